"""Speed of the deck divide-the-dollar study's Monte Carlo agent (learners/deck_mc.py): games and
moves (the agent's turns) per CPU-second of its compiled loop and of its plain Python reference,
at the study's deck (60 cards, hands of 5, 26 rounds), before which the two are checked to give
identical tables.

    python benchmarks/bench_deck_mc.py                  # 1,000,000 compiled games, the code's rules
    python benchmarks/bench_deck_mc.py --games 200000 --intent --no-passing

CPU time (time.process_time) of play() alone (numba's start-up excluded: each engine plays a few
games first); the plain reference plays a 200th of the games (at least 500).
"""

from __future__ import annotations

import argparse
import time

from dicejack.games.deck_dollar import DeckDollar
from dicejack.learners.deck_mc import DeckMC


def rate(learner: DeckMC, games: int) -> tuple[float, float]:
    """(games, moves) per CPU-second of `games` more games."""
    moves = learner.moves
    start = time.process_time()
    learner.play(games)
    seconds = time.process_time() - start
    return games / seconds, (learner.moves - moves) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--no-passing", action="store_true")
    parser.add_argument("--intent", action="store_true")
    args = parser.parse_args()
    game = DeckDollar(passing=not args.no_passing)
    params = dict(DeckMC.INTENT) if args.intent else {}
    fast, slow = DeckMC(game, 1, **params), DeckMC(game, 1, engine="python", **params)
    fast.play(300)
    slow.play(300)
    assert fast.tables().equals(slow.tables()), "compiled and plain tables differ"
    plain = max(500, args.games // 200)
    fast_games, fast_moves = rate(fast, args.games)
    slow_games, slow_moves = rate(slow, plain)
    print(f"{game}, {params or 'the quoted code'}")
    print(f"compiled: {fast_games:12,.0f} games/CPU-s {fast_moves:14,.0f} moves/CPU-s "
          f"({args.games:,} games)")
    print(f"plain:    {slow_games:12,.0f} games/CPU-s {slow_moves:14,.0f} moves/CPU-s "
          f"({plain:,} games); compiled/plain {fast_moves / slow_moves:.0f}x")


if __name__ == "__main__":
    main()
