"""Moves per second of the game through each interface, each beside a baseline measured in the
same run: the Gymnasium env :class:`DiceJackEnv` (self-play, and against a uniform opponent)
against its stepping code before it became the one single-agent environment (reproduced below as
:class:`PreChangeDiceJack`, from ``git show 1941569:src/dicejack/envs/gym_env.py``: its own roll,
outcome and score copy); the generic single-agent env (``envs.single_agent``, the same game
against a uniform opponent) against the same pre-change opponent loop; the PettingZoo AEC env and
the OpenSpiel game (a player move plus its chance node count as one move) against a plain Python
loop of the same rules (``Game.outcome`` and ``roll_total``), also printed.

Usage: python benchmarks/bench_envs.py [--games 2000] [--repeat 3] [--sides 6 --low 15
--high 17 --dice 2]

Uniformly random J in every interface; CPU seconds (time.process_time). Each row is the best of
`--repeat` timings (the machine is shared: the best is the least disturbed), baselines and
interfaces alternating. Needs the gym, pettingzoo and openspiel extras (the test extra installs
all three).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium
import numpy as np

from dicejack.envs.gym_env import Move, check_dice, opponent_policy
from dicejack.games.handout_rules import CONTINUES, MOVER_WINS, Game, roll_total


def plain_loop(game: Game, games: int, rng: np.random.Generator) -> int:
    cdf = [list(row) for row in game.sum_cdf_table.tolist()]
    moves = 0
    for _ in range(games):
        scores, mover = [0, 0], 0
        while True:
            j = int(rng.integers(1, game.n_dice + 1))
            score = scores[mover] + roll_total(cdf[j], float(rng.random()))
            moves += 1
            if game.outcome(score) != CONTINUES:
                break
            scores[mover] = score
            mover = 1 - mover
    return moves


# ------------------------------------------------------- DiceJackEnv's stepping before the change
class PreChangeDiceJack(gymnasium.Env):
    """DiceJackEnv's reset and step as they were before it became the one single-agent env (its
    own roll, outcome and scores; reset options and the render left out): the speed to keep."""

    def __init__(self, game: Game, opponent: Any) -> None:
        self.game, self._running, self.zero_based, self.zero_sum = game, "", False, False
        self._opponent = opponent_policy(game, opponent)
        self.self_play = self._opponent is None
        self._cdf = [list(row) for row in game.sum_cdf_table.tolist()]
        self._seat_names = ("first", "second")
        self._agent_seat, self._started, self.agent_first = 0, False, 1.0

    def reset(self, *, seed: int | None = None, options: Any = None) -> Any:
        with self._not_reentered("reset"):
            return self._reset(seed, options)

    def _reset(self, seed: int | None, options: Any) -> Any:
        super().reset(seed=seed)
        agent_first, start = self._reset_options(options)
        if start is not None:
            agent_first = True
        if agent_first is None:
            p = self.agent_first
            agent_first = p == 1.0 or (0.0 < p and self.np_random.random() < p)
        self._agent_seat = 0 if (agent_first or self.self_play) else 1
        restarts = 0
        while True:
            self._scores = [0, 0] if start is None else list(start)
            self._to_move, self._winner, self._moves = 0, None, []
            if self._agent_seat == 0:
                break
            self._opponent_move()
            if self._winner is None:
                break
            restarts += 1
        self._history = list(self._moves)
        self._started = True
        info = self._info()
        if not self.self_play:
            info["restarts"] = restarts
        return self._observation(), info

    def _reset_options(self, options: Any) -> tuple[bool | None, tuple[int, int] | None]:
        if options is None:
            return None, None
        raise NotImplementedError("the benchmark passes no options")

    def step(self, action: Any) -> Any:
        with self._not_reentered("step"):
            return self._step(action)

    @contextlib.contextmanager
    def _not_reentered(self, call: str) -> Iterator[None]:
        if self._running:
            raise RuntimeError(f"{call}() re-entered")
        self._running = call
        try:
            yield
        finally:
            self._running = ""

    def _step(self, action: Any) -> Any:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._winner is not None:
            raise RuntimeError("the game is over; call reset() to start another")
        j = check_dice(action, self.game.n_dice, zero_based=self.zero_based)
        self._moves = []
        mover = self._to_move
        total = self._move(j)
        if not self.self_play and self._winner is None:
            self._opponent_move()
        self._history.extend(self._moves)
        reward = 1.0 if self._winner == mover else 0.0
        if self.zero_sum and self._winner is not None and self._winner != mover:
            reward = -1.0
        info = self._info()
        info["roll"] = total
        if self.self_play:
            info["mover"] = self._name(mover)
        return self._observation(), reward, self._winner is not None, False, info

    def _name(self, seat: int) -> str:
        if self.self_play:
            return self._seat_names[seat]
        return "agent" if seat == self._agent_seat else "opponent"

    def _move(self, j: int) -> int:
        seat = self._to_move
        total = roll_total(self._cdf[j], float(self.np_random.random()))
        score = self._scores[seat] + total
        self._scores[seat] = score
        self._moves.append(Move(self._name(seat), j, total, score))
        result = self.game.outcome(score)
        if result == CONTINUES:
            self._to_move = 1 - seat
        else:
            self._winner = seat if result == MOVER_WINS else 1 - seat
        return total

    def _opponent_move(self) -> None:
        seat = self._to_move
        x, y = self._scores[seat], self._scores[1 - seat]
        j = check_dice(self._opponent(x, y, self.np_random), self.game.n_dice,
                       f"the opponent's J at <{x},{y}>")
        self._move(j)

    def _observation(self) -> Any:
        cap = self.game.low - 1
        seat = self._to_move if self.self_play else self._agent_seat
        return (min(self._scores[seat], cap), min(self._scores[1 - seat], cap))

    def _info(self) -> dict[str, Any]:
        if self.self_play:
            scores = (self._scores[0], self._scores[1])
        else:
            a = self._agent_seat
            scores = (self._scores[a], self._scores[1 - a])
        winner = None if self._winner is None else self._name(self._winner)
        info: dict[str, Any] = {"moves": tuple(self._moves), "scores": scores,
                                "winner": winner}
        if self.self_play:
            info["to_move"] = self._name(self._to_move) if winner is None else None
        else:
            info["agent_first"] = self._agent_seat == 0
        return info





def _gym_loop(env: Any, games: int, rng: np.random.Generator, low: int, n: int) -> int:
    """Agent steps of `games` games with uniformly random actions low..low+n-1."""
    env.reset(seed=int(rng.integers(2**31)))
    moves = 0
    for _ in range(games):
        env.reset()
        done = False
        while not done:
            _, _, done, cut, _ = env.step(low + int(rng.integers(n)))
            done = done or cut
            moves += 1
    return moves


def gym_self(game: Game, games: int, rng: np.random.Generator) -> int:
    from dicejack.envs.gym_env import DiceJackEnv

    return _gym_loop(DiceJackEnv(game, "self"), games, rng, 1, game.n_dice)


def pre_change_self(game: Game, games: int, rng: np.random.Generator) -> int:
    return _gym_loop(PreChangeDiceJack(game, "self"), games, rng, 1, game.n_dice)


def gym_uniform(game: Game, games: int, rng: np.random.Generator) -> int:
    from dicejack.envs.gym_env import DiceJackEnv

    return _gym_loop(DiceJackEnv(game, "uniform"), games, rng, 1, game.n_dice)


def pre_change_uniform(game: Game, games: int, rng: np.random.Generator) -> int:
    return _gym_loop(PreChangeDiceJack(game, "uniform"), games, rng, 1, game.n_dice)


def single_uniform(game: Game, games: int, rng: np.random.Generator) -> int:
    from dicejack.envs import dicejack_v0, single_agent

    env = single_agent(dicejack_v0.env(game=game), "player_0", np.full(game.shape, -1))
    return _gym_loop(env, games, rng, 0, game.n_dice)


def pettingzoo_env(game: Game, games: int, rng: np.random.Generator) -> int:
    from dicejack.envs import dicejack_v0

    env = dicejack_v0.env(game=game)
    env.reset(seed=int(rng.integers(2**31)))
    moves = 0
    for _ in range(games):
        env.reset()
        for _agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                env.step(int(rng.integers(game.n_dice)))
                moves += 1
    return moves


def openspiel_game(game: Game, games: int, rng: np.random.Generator) -> int:
    import dicejack.envs.openspiel as dos

    os_game = dos.load(game)
    moves = 0
    for _ in range(games):
        state = os_game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                totals, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(totals, p=probs)))
            else:
                state.apply_action(int(rng.integers(game.n_dice)))
                moves += 1
    return moves


Run = Callable[[Game, int, np.random.Generator], int]
#: (interface, how it runs, its baseline's row name).
ROWS: tuple[tuple[str, Run, str | None], ...] = (
    ("plain Python loop", plain_loop, None),
    ("pre-change DiceJackEnv, self", pre_change_self, None),
    ("DiceJackEnv, self-play", gym_self, "pre-change DiceJackEnv, self"),
    ("pre-change DiceJackEnv, unif", pre_change_uniform, None),
    ("DiceJackEnv vs uniform", gym_uniform, "pre-change DiceJackEnv, unif"),
    ("single_agent vs uniform", single_uniform, "pre-change DiceJackEnv, unif"),
    ("PettingZoo dicejack_v0", pettingzoo_env, "plain Python loop"),
    ("OpenSpiel python_dicejack", openspiel_game, "plain Python loop"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sides", type=int, default=6)
    parser.add_argument("--low", type=int, default=15)
    parser.add_argument("--high", type=int, default=17)
    parser.add_argument("--dice", type=int, default=2)
    args = parser.parse_args()
    game = Game(args.sides, args.low, args.high, args.dice)
    print(f"{game}: {args.games:,} random games per interface, best of {args.repeat}")
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        for name, run, _base in ROWS:
            rng = np.random.default_rng(1)
            start = time.process_time()
            moves = run(game, args.games, rng)
            best[name] = max(best.get(name, 0.0), moves / (time.process_time() - start))
    print(f"{'interface':<30} {'moves/s':>10}  {'ratio':>6}  baseline")
    for name, _run, base in ROWS:
        ratio = f"{best[name] / best[base]:>5.2f}x" if base else f"{'':>6}"
        print(f"{name:<30} {best[name]:>10,.0f}  {ratio}  {base or '(baseline)'}")


if __name__ == "__main__":
    main()
