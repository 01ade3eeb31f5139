"""FSM players of the deck divide-the-dollar game (solver.deck_fsm_evaluation,
learners.deck_fsm): exact FSM evaluations and simulated games per CPU-second, compiled (numba)
against the plain-Python references; with ``--learner``, the harness learner DeckFSM's games
and moves per CPU-second, engine numba against engine python in the same run (the ratio);
with ``--evolve G``, an evolution of G generations at the deck, its checkpoints, and its best
machine's exact value (and a 10^6-game simulation).

Usage: python benchmarks/bench_deck_fsm.py [--counts 4,6,4] [--hand 3] [--passing]
                                           [--states 8] [--seed 1] [--evolve 0]
                                           [--fitness auto] [--games 2000] [--learner]

Measured (2 cores shared with other jobs; ``--counts 16,28,16 --hand 5 --states 2 --learner``,
the study's deck and its FSM series' settings: population 36, 100 games per machine):
  numba   406,801 games per CPU-s   10,576,819 moves per CPU-s
  python    9,289 games per CPU-s      241,505 moves per CPU-s
  compiled / plain: 44x  (a second run: 413,771 and 9,404 games per CPU-s, 44x)
(games: those the fitness simulations play; moves: the machines' turns in them, 26 a game;
the compiled figure includes the evolution's operators and per-machine calls in Python:
simulate_fsm alone, 200,000 games in one call, plays about 500,000 games per CPU-s here).

The figures in the report of branch deck-fsm:
  python benchmarks/bench_deck_fsm.py --counts 6,10,6 --hand 4 --evolve 300
  python benchmarks/bench_deck_fsm.py --counts 16,28,16 --hand 5 --evolve 1000 --seed 2
(fitness exact at the 22-card deck, simulated with 2000 games per machine at the study's).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dicejack.games.deck_dollar import DeckDollar
from dicejack.learners.deck_fsm import DeckFSM, EvolutionConfig, evolve_fsm, random_fsm
from dicejack.solver.deck_fsm_evaluation import evaluate_fsm, simulate_fsm


def rate(work, units: int, least: float = 1.0) -> float:
    """Units per CPU-second of `work` (a callable doing `units` units), repeated for at least
    `least` CPU-seconds."""
    done, start = 0, time.process_time()
    while True:
        work()
        done += units
        spent = time.process_time() - start
        if spent >= least:
            return done / spent


def speeds(game: DeckDollar, states: int, seed: int) -> None:
    fsm = random_fsm(states, np.random.default_rng(seed))
    tiny = DeckDollar((2, 2, 2), 2, passing=game.passing)
    evaluate_fsm(tiny, fsm)  # compile (or load numba's cache) outside the timings
    simulate_fsm(tiny, fsm, 10, np.random.default_rng(0))
    print(f"{game}: a random {states}-state machine, "
          f"{evaluate_fsm(game, fsm).total_states:,} (hands, deck, machine) states")
    for name, compiled in (("compiled", True), ("plain", False)):
        ev = rate(lambda c=compiled: evaluate_fsm(game, fsm, compiled=c), 1)
        games = 20_000 if compiled else 200
        sim = rate(lambda c=compiled, g=games: simulate_fsm(game, fsm, g,
                                                             np.random.default_rng(0),
                                                             compiled=c), games)
        print(f"  {name:8}  {ev:12.2f} exact evaluations per CPU-s  {sim:14,.0f} games per CPU-s")


def learner_speeds(game: DeckDollar, states: int, seed: int, repeats: int = 3) -> None:
    """DeckFSM's games (the fitness simulations') and moves per CPU-second, compiled and
    plain, `repeats` times each in alternation (the ratio is of medians)."""
    params = dict(n_states=states, population=36, machine_games=100)
    DeckFSM(game, seed, **params).play(3600)  # compile (or load numba's cache) first
    found: dict[str, list[tuple[float, float]]] = {"numba": [], "python": []}
    for _ in range(repeats):
        for engine, rounds in (("numba", 40), ("python", 1)):
            learner = DeckFSM(game, seed, engine=engine, **params)
            start = time.process_time()
            learner.play(rounds * learner.cost)
            spent = time.process_time() - start
            found[engine].append((learner.tables().simulated / spent, learner.moves / spent))
    for engine, rates in found.items():
        games = float(np.median([g for g, _ in rates]))
        moves = float(np.median([m for _, m in rates]))
        print(f"  {engine:6}  {games:12,.0f} games per CPU-s  {moves:14,.0f} moves per CPU-s  "
              f"(runs: {', '.join(f'{g:,.0f}' for g, _ in rates)})")
    ratio = np.median([g for g, _ in found["numba"]]) / np.median([g for g, _ in found["python"]])
    print(f"  compiled / plain: {ratio:,.0f}x")


def evolve(game: DeckDollar, generations: int, seed: int, config: EvolutionConfig) -> None:
    start = time.process_time()
    marks = sorted({0, *range(0, generations + 1, max(1, generations // 5)), generations})
    run = evolve_fsm(game, generations, seed, config, checkpoints=marks)
    print(f"evolution: {generations} generations, seed {seed}, fitness "
          f"{'exact' if run.exact else 'simulated'}, {time.process_time() - start:.1f} CPU-s")
    print(f"  {'generation':>10} {'evaluations':>11} {'games':>11} {'fitness':>16}")
    for c in run.checkpoints:
        print(f"  {c.generation:10d} {c.evaluations:11d} {c.games:11d} {c.fitness:16.12f}")
    start = time.process_time()
    exact = evaluate_fsm(game, run.best.fsm)
    tally = simulate_fsm(game, run.best.fsm, 10**6, np.random.default_rng(seed + 1))
    print(f"best machine: exact {exact.expected:.12f} (P(win) {exact.win:.12f}; "
          f"{exact.total_states:,} states; {time.process_time() - start:.1f} CPU-s with the "
          f"simulation), 10^6 games {tally.mean:.6f} +- {tally.half_width:.6f}")
    print(run.best.fsm.describe())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="4,6,4")
    parser.add_argument("--hand", type=int, default=3)
    parser.add_argument("--passing", action="store_true")
    parser.add_argument("--states", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--evolve", type=int, default=0)
    parser.add_argument("--fitness", default="auto")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--learner", action="store_true")
    args = parser.parse_args()
    game = DeckDollar(tuple(int(c) for c in args.counts.split(",")), args.hand,
                      passing=args.passing)
    if args.learner:
        print(f"{game}: DeckFSM, {args.states}-state machines, population 36, 100 games each")
        learner_speeds(game, args.states, args.seed)
    elif args.evolve:
        config = EvolutionConfig(n_states=args.states, fitness=args.fitness, games=args.games)
        evolve(game, args.evolve, args.seed, config)
    else:
        speeds(game, args.states, args.seed)


if __name__ == "__main__":
    main()
