"""Games by name and from the user's file (dicejack.games.registry)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dicejack.games import GameDefinitionError, HandoutGame, Pig, Piglet, make_game
from dicejack.games.protocol import game_label
from dicejack.games.registry import parse_game_params


def test_bundled_by_name():
    assert make_game("pig") == Pig(goal=100, die=6)
    assert make_game("PIG", {"goal": 20, "die": 4}) == Pig(goal=20, die=4)
    assert make_game("piglet", {"goal": 5}) == Piglet(goal=5)
    assert make_game("handout", {"low": 6, "high": 7}) == HandoutGame(6, 6, 7, 2)
    assert game_label(Pig(goal=20)) == "pig goal=20 die=6"


def test_params_parsed():
    assert parse_game_params(["goal=100", "die = 6", "p=1/3", "x=0.5", "w=word"]) == {
        "goal": 100, "die": 6, "p": Fraction(1, 3), "x": Fraction(1, 2), "w": "word"}
    with pytest.raises(GameDefinitionError, match="KEY=VALUE"):
        parse_game_params(["goal"])
    with pytest.raises(GameDefinitionError, match="twice"):
        parse_game_params(["goal=1", "goal=2"])


def test_bad_names_and_params():
    with pytest.raises(GameDefinitionError, match="no game 'chess'; the games: handout, pig"):
        make_game("chess")
    with pytest.raises(GameDefinitionError, match="unexpected keyword argument 'sides'"):
        make_game("pig", {"sides": 3})
    with pytest.raises(GameDefinitionError, match="goal must be a whole number"):
        make_game("pig", {"goal": Fraction(1, 2)})


def test_user_file(tmp_path, monkeypatch):
    (tmp_path / "mygame.py").write_text(
        "from dicejack.games import Piglet\n"
        "class Mine(Piglet):\n    name = 'mine'\n"
        "BUILT = Piglet(goal=3)\n"
    )
    monkeypatch.chdir(tmp_path)
    game = make_game("mygame.py:Mine", {"goal": 4})
    assert game.name == "mine" and game.goal == 4
    assert make_game("mygame.py:BUILT") == Piglet(goal=3)
    with pytest.raises(GameDefinitionError, match="takes no --game-param"):
        make_game("mygame.py:BUILT", {"goal": 4})
    with pytest.raises(Exception, match="no file nothere.py"):
        make_game("nothere.py:Mine")


@pytest.mark.parametrize("name", ["deck-divide-dollar", "deck", "Deck-Dollar"])
def test_the_one_player_deck_game_says_where_it_is(name):
    """The deck game against its random opponent is no game of the commands: one line saying
    where it runs (the study) and what its two-player form is called."""
    with pytest.raises(GameDefinitionError) as err:
        make_game(name)
    text = str(err.value)
    assert "\n" not in text and "dicejack study deck-divide-dollar" in text
    assert "--game deck-duel" in text
    assert make_game("deck-duel").num_players == 2
