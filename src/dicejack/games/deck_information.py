"""The deck divide-the-dollar game (:mod:`dicejack.games.deck_dollar`) as a two-player zero-sum
game with hidden cards (:mod:`dicejack.games.information`): :class:`DeckDuel`.

The rules are :class:`~dicejack.games.deck_dollar.DeckDollar`'s (its ``counts``, ``hand_size``,
``rounds``, ``passing``): player 0 is the study's "monte" seat (it leads even rounds and draws
first), player 1 the opponent; chance deals both hands (one forced ``"deal"`` of player 0, its
outcomes the pairs of hands as card counts, multivariate hypergeometric, exact) and, after every
round but the last while the deck lasts, the two draws (player 0's, then player 1's; one chance
outcome per pair). The payoff is player 0's: +1, -1 or 0 by the totals' difference.

Actions are the study's three (``small_spoil``, ``median``, ``large_max``, played as the quoted
code's ``play_action``, :func:`~dicejack.games.deck_dollar.play_position`), for both players:
so that an equilibrium, a CFR learner and the study's Monte Carlo agent choose in one action
space, and the uniform opponent of the study is a policy of this game (:func:`study_uniform`).
Actions that play the same card (a hand of equal cards: smallest = median) are one action of
this game, named by the study's actions joined with ``+`` (``"small_spoil+median"``), so that
no two sequences of the sequence form are the same play; under ``passing`` the follower's
``large_max`` that plays nothing is ``large_max`` still (a card of -1: a pass, seen by both).

A player's information state is a text, e.g. ``"p0 [1/4 3/4] 1/2 pass +3/4"``: the player, its
dealt hand, then every event it saw, in order: each card played by either player (``pass``:
none) and each card it drew itself (``+3/4``); the state keeps them as `seen`, the dealt hand's
counts then event numbers (0-2 a card, 3 a pass, 4-6 a draw). That is perfect recall: a
player's own plays are among the cards seen, and different actions play different cards. The
opponent's hand and draws are hidden; the study's observation (40 values) is a coarser function
of what the player saw.

The tree of plays grows fast with the deck: the constructor counts its histories (a dynamic
programme over the shape of the game, :func:`count_histories`) and refuses, in one line, a deck
whose tree holds more than ``limit`` histories (:data:`~dicejack.games.information
.HISTORIES_LIMIT`, the enumeration's own): the study's deck (16, 28, 16), hands of 5, passes
that limit within its first two rounds.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

from dicejack.games.deck_dollar import (
    ACTIONS,
    NO_CARD,
    DeckDollar,
    observation,
    play_position,
    policy_table,
)
from dicejack.games.information import HISTORIES_LIMIT, InformationTree
from dicejack.games.protocol import GameDefinitionError

__all__ = ["DeckDuel", "DEAL", "PASS_EVENT", "DRAW_EVENT", "count_histories", "study_uniform",
           "parse_counts", "observation_policy"]

DEAL = "deal"
#: The event of a pass among the cards seen; a player's own draw of card type t is DRAW_EVENT + t.
PASS_EVENT = 3
DRAW_EVENT = 4

Counts = tuple[int, int, int]
_NAMES = ("1/4", "1/2", "3/4")
#: The events as a key spells them: cards played, a pass, the player's own draws.
_EVENTS = (*_NAMES, "pass", *(f"+{n}" for n in _NAMES))


def parse_counts(value: Any) -> Counts:
    """Three card counts from a tuple or from text ``"1,2,1"`` (``--game-param counts=1,2,1``)."""
    if isinstance(value, str):
        try:
            value = tuple(int(v) for v in value.replace(" ", "").strip("()").split(","))
        except ValueError:
            raise GameDefinitionError(f"counts must be three whole numbers, e.g. 1,2,1; got "
                                      f"{value!r}") from None
    try:
        out = tuple(value)
    except TypeError:
        raise GameDefinitionError(f"counts must be three whole numbers, got {value!r}") from None
    return out  # type: ignore[return-value]


def _flag(value: Any) -> bool:
    """True/False from a bool, 0/1 or the text true/false (``--game-param passing=0``)."""
    if isinstance(value, bool):
        return value
    if value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "yes", "false", "no"):
        return text in ("true", "yes")
    raise GameDefinitionError(f"passing must be true or false (1 or 0), got {value!r}")


def _hand(counts: Counts) -> list[int]:
    """The sorted hand (card types) of card counts."""
    return [t for t in range(3) for _ in range(counts[t])]


def _minus(counts: Counts, t: int) -> Counts:
    return tuple(c - (i == t) for i, c in enumerate(counts))  # type: ignore[return-value]


def _plus(counts: Counts, t: int) -> Counts:
    return tuple(c + (i == t) for i, c in enumerate(counts))  # type: ignore[return-value]


def _choices(deck: DeckDollar, hand: Counts, showing: int) -> tuple[tuple[str, int], ...]:
    """The distinct plays of the three actions: (name, card type or -1 for a pass), in order."""
    cards = _hand(hand)
    named: dict[int, list[str]] = {}
    for a, name in enumerate(ACTIONS):
        pos = play_position(cards, showing, a, deck)
        named.setdefault(-1 if pos < 0 else cards[pos], []).append(name)
    return tuple(("+".join(names), card) for card, names in named.items())


def _deals(counts: Counts, size: int) -> list[tuple[Counts, Fraction]]:
    """Every hand of `size` cards from `counts` with its exact probability."""
    total = comb(sum(counts), size)
    out = []
    for a in range(min(size, counts[0]) + 1):
        for b in range(min(size - a, counts[1]) + 1):
            c = size - a - b
            if c <= counts[2]:
                ways = comb(counts[0], a) * comb(counts[1], b) * comb(counts[2], c)
                out.append(((a, b, c), Fraction(ways, total)))
    return out


def _draws(deck: Counts) -> list[tuple[tuple[int, ...], Counts, Fraction]]:
    """The draws after a round: player 0 then player 1 while the deck lasts, as (the card types
    drawn, the deck left, probability)."""
    out: list[tuple[tuple[int, ...], Counts, Fraction]] = [((), deck, Fraction(1))]
    for _ in range(2):
        nxt = []
        for drawn, left, p in out:
            n = sum(left)
            if n == 0:
                nxt.append((drawn, left, p))
                continue
            nxt.extend(((*drawn, t), _minus(left, t), p * Fraction(left[t], n))
                       for t in range(3) if left[t])
        out = nxt
    return out


@dataclass(frozen=True)
class DeckDuel:
    """The deck game between two players who each see their own hand (module docstring).

    counts, hand_size, rounds, passing: as :class:`~dicejack.games.deck_dollar.DeckDollar`
    (``rounds`` None: as many as the deck allows; by default 2, 2, 2 with hands of two: 526
    histories, every deal leading to a decision, as the bridges require); ``limit`` (a class
    constant, the enumeration's): the most histories its tree may hold (the constructor
    refuses a larger one). ``histories``: the tree's size, counted."""

    counts: Any = (2, 2, 2)
    hand_size: int = 2
    rounds: int | None = None
    passing: Any = True
    name = "deck-duel"
    num_players = 2
    limit = HISTORIES_LIMIT

    def __post_init__(self) -> None:
        deck = DeckDollar(parse_counts(self.counts), self.hand_size, self.rounds,
                          _flag(self.passing))
        object.__setattr__(self, "counts", deck.counts)
        object.__setattr__(self, "rounds", deck.rounds)
        object.__setattr__(self, "passing", deck.passing)
        object.__setattr__(self, "_deck", deck)
        size, cut = count_histories(deck, self.limit)
        if cut < deck.rounds:
            raise GameDefinitionError(
                f"{self.label()}: its tree of plays holds more than {self.limit:,} histories "
                f"(the limit; {size:,} already within its first {cut} round"
                f"{'s' if cut > 1 else ''}): too large for the exact solver and CFR; use a "
                "smaller deck, e.g. counts=2,3,2 hand_size=2")
        object.__setattr__(self, "_histories", size)

    def params(self) -> dict[str, Any]:
        return {"counts": ",".join(map(str, self.counts)), "hand_size": self.hand_size,
                "rounds": self.rounds, "passing": self.passing}

    def label(self) -> str:
        return self.name + " " + " ".join(f"{k}={v}" for k, v in self.params().items())

    @property
    def deck(self) -> DeckDollar:
        """The rules as the one-player view has them."""
        return self._deck  # type: ignore[attr-defined,no-any-return]

    @property
    def histories(self) -> int:
        """The number of histories (nodes) of the tree of plays."""
        return self._histories  # type: ignore[attr-defined,no-any-return]

    # States: (deck left or None before the deal, hand 0, hand 1, round, card showing or None,
    # player 0's total minus player 1's in quarters, seen by player 0, seen by player 1).
    def initial_state(self) -> tuple[Any, ...]:
        return (None, (), (), 0, None, 0, (), ())

    def is_terminal(self, state: Any) -> bool:
        return state[0] is not None and state[3] == self.rounds

    def payoff(self, state: Any) -> int:
        return (state[5] > 0) - (state[5] < 0)

    def player(self, state: Any) -> int:
        if state[0] is None:
            return 0
        leader = state[3] % 2
        return leader if state[4] is None else 1 - leader

    def actions(self, state: Any) -> tuple[str, ...]:
        if state[0] is None:
            return (DEAL,)
        mover = self.player(state)
        showing = NO_CARD if state[4] is None else state[4]
        return tuple(name for name, _ in _choices(self.deck, state[1 + mover], showing))

    def outcomes(self, state: Any, action: Any) -> list[tuple[Any, Fraction]]:
        deck, h0, h1, r, showing, d, s0, s1 = state
        if deck is None:
            return [((_minus3(self.counts, a, b), a, b, 0, None, 0, (a,), (b,)), p * q)
                    for a, p in _deals(self.counts, self.hand_size)
                    for b, q in _deals(_minus3(self.counts, a, (0, 0, 0)), self.hand_size)]
        mover = self.player(state)
        hands = [h0, h1]
        card = dict(_choices(self.deck, hands[mover], NO_CARD if showing is None
                             else showing))[action]
        if card >= 0:
            hands[mover] = _minus(hands[mover], card)
        event = PASS_EVENT if card < 0 else card
        if showing is None:  # the lead: the card shows
            return [((deck, *hands, r, card, d, s0 + (event,), s1 + (event,)), Fraction(1))]
        lead, follow = showing + 1, card + 1  # values in quarters (a pass scores 0)
        if lead + follow <= 4:
            d += (lead - follow) if mover == 1 else (follow - lead)
        if r + 1 == self.rounds:
            return [((deck, *hands, r + 1, None, d, s0 + (event,), s1 + (event,)), Fraction(1))]
        out = []
        for drawn, left, p in _draws(deck):
            got = list(hands)
            seen = [s0 + (event,), s1 + (event,)]
            for who, t in enumerate(drawn):
                got[who] = _plus(got[who], t)
                seen[who] += (DRAW_EVENT + t,)
            out.append(((left, *got, r + 1, None, d, *seen), p))
        return out

    def information_state(self, state: Any, player: int) -> str:
        """``"p0 [1/4 3/4] 1/2 pass +3/4"``: the player, its dealt hand, the events it saw."""
        seen = state[6 + player]
        if not seen:
            return f"p{player}"
        words = [f"p{player} [" + " ".join(_NAMES[t] for t in _hand(seen[0])) + "]"]
        words += [_EVENTS[e] for e in seen[1:]]
        return " ".join(words)


def _minus3(a: Counts, b: Counts, c: Counts) -> Counts:
    return tuple(x - y - z for x, y, z in zip(a, b, c, strict=True))  # type: ignore[return-value]


def count_histories(deck: DeckDollar, limit: int = HISTORIES_LIMIT) -> tuple[int, int]:
    """(histories, rounds counted): the size of :class:`DeckDuel`'s tree of plays for `deck`'s
    rules, by a dynamic programme over (deck left, hands, round, card showing), which fix a
    subtree's shape. The tree cut after 1, 2, ... rounds is counted until the whole tree is
    (rounds counted = deck.rounds) or a cut tree already holds more than `limit` histories (a
    lower bound, and the rounds it took)."""
    size = 0
    for cut in range(1, deck.rounds + 1):
        size = _count_cut(deck, cut)
        if size > limit:
            return size, cut
    return size, deck.rounds


def _count_cut(deck: DeckDollar, cut: int) -> int:
    """The histories of the tree of plays ended after `cut` rounds."""

    @cache
    def below(left: Counts, h0: Counts, h1: Counts, r: int, showing: int) -> int:
        if r == cut:
            return 1
        leader = r % 2
        mover = leader if showing < 0 else 1 - leader
        hands = [h0, h1]
        total = 1
        for _, card in _choices(deck, hands[mover], NO_CARD if showing < 0 else showing):
            got = list(hands)
            if card >= 0:
                got[mover] = _minus(got[mover], card)
            if showing < 0:
                total += below(left, got[0], got[1], r, card)
            elif r + 1 == deck.rounds:
                total += 1
            else:
                for drawn, rest, _ in _draws(left):
                    kids = list(got)
                    for who, t in enumerate(drawn):
                        kids[who] = _plus(kids[who], t)
                    total += below(rest, kids[0], kids[1], r + 1, -1)
        return total

    counts = deck.counts
    root = 1
    for a, _ in _deals(counts, deck.hand_size):
        for b, _ in _deals(_minus3(counts, a, (0, 0, 0)), deck.hand_size):
            root += below(_minus3(counts, a, b), a, b, 0, -1)
    return root


def study_uniform(tree: InformationTree, player: int | None = None
                  ) -> dict[Hashable, dict[Hashable, Fraction]]:
    """The study's random opponent as a policy of this game: each of the three actions with
    probability 1/3, so an action of this game that stands for k of them (``"small_spoil+median"``)
    has k/3; at every decision key of `player` (None: both), exact."""
    return {s.key: {a: Fraction(a.count("+") + 1, 3) for a in s.actions}
            for s in tree.decisions(player)}


def observation_policy(tree: InformationTree, policy: Any, player: int = 0
                       ) -> dict[Hashable, dict[Hashable, float]]:
    """A policy of the study's 40 observations x 3 actions
    (:func:`~dicejack.games.deck_dollar.policy_table`) as `player`'s policy of this game: at each
    decision key, the observation of the player's hand and the card showing, and an action of
    this game standing for several of the study's gets their summed probability."""
    table = policy_table(policy)
    game: DeckDuel = tree.game
    out: dict[Hashable, dict[Hashable, float]] = {}
    for s in tree.decisions(player):
        state = tree.states[s.nodes[0]]
        showing = NO_CARD if state[4] is None else state[4]
        obs = observation(_hand(state[1 + player]), showing, game.deck)
        out[s.key] = {a: float(sum(table[obs, ACTIONS.index(n)] for n in a.split("+")))
                      for a in s.actions}
    return out
