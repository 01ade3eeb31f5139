"""Traces of the handout's learner (`learn --trace`, `--explain`): its games move by move.

:func:`trace` replays the next games of a run in the reference loop
(:func:`dicejack.learners.handout.reference_loop.play_one_python`) on copies of its tables and
generator, recording every move's :class:`Choice` (the counts, f_J, B, T, p_J and draws it used)
and every game's count updates; :func:`replay_trace` does the same for a game whose dice are given
(the handout's examples, scripted with :func:`replay_game`), :func:`replay_script` a series of
them with counts set by hand (`learn --replay FILE`). Tracing never changes what is learnt.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.handout_rules import CONTINUES, MOVER_WINS, Game
from dicejack.learners.checks import check_count, check_games_limit
from dicejack.learners.formulas import (
    LearnerError,
    check_m,
    check_tables,
    estimates,
    move_probabilities,
    other_sum,
)
from dicejack.learners.handout.learner import Handout, HandoutRun
from dicejack.learners.handout.reference_loop import play_one_python, record_game, updated_counts

__all__ = [
    "Choice",
    "CountUpdate",
    "TracedMove",
    "TracedGame",
    "replay_game",
    "trace",
    "replay_trace",
    "CountSetting",
    "ScriptedGame",
    "replay_script",
    "move_sentence",
    "trace_text",
]


# ------------------------------------------------------------------- what a trace holds
@dataclass(frozen=True)
class Choice:
    """The handout's computation of one move in state <x, y>, with the numbers the learner used.

    win, lose: WinCount[x, y, 0..K] and LoseCount[x, y, 0..K] at the move (a game's counts are
    updated only when it ends). f: f_0..f_K (f_0 = 0, unused); total: T; best: B; tied: every J
    with the largest f_J; tie_draw: the uniform that picked B among them (``tie_break="random"``
    with two or more tied), else None. p: p_0..p_K (p_0 = 0). draw: the uniform x of the
    handout's sampler, None in a replayed game (its dice are given); dice: the J rolled;
    roll_draw: the uniform that drew the roll's total (None in a replayed game).
    """

    x: int
    y: int
    win: tuple[int, ...]
    lose: tuple[int, ...]
    f: tuple[float, ...]
    total: int
    best: int
    tied: tuple[int, ...]
    tie_draw: float | None
    p: tuple[float, ...]
    draw: float | None
    dice: int
    roll_draw: float | None = None

    @property
    def k(self) -> int:
        """K = NDice."""
        return len(self.p) - 1

    @property
    def g(self) -> float:
        """g = sum of f_J over J != B, added in increasing J as
        :func:`dicejack.learners.formulas.move_probabilities` adds it (0 when K = 1)."""
        return other_sum(self.f, self.best, self.k) if self.k > 1 else 0.0

    @property
    def cumulative(self) -> tuple[float, ...]:
        """u_0..u_K of the handout's sampler, u_i = u_(i-1) + p_i, added as the learner adds them
        (the learner stops at the first i < K with x < u_i; u_K is never compared)."""
        u = [self.p[0]]
        for i in range(1, self.k + 1):
            u.append(u[-1] + self.p[i])
        return tuple(u)


@dataclass(frozen=True)
class CountUpdate:
    """One cell a finished game incremented: `table` ("WinCount" or "LoseCount") at [x, y, j],
    and its `count` after the update."""

    table: str
    x: int
    y: int
    j: int
    count: int


@dataclass(frozen=True)
class TracedMove:
    """One move of a traced game: `player` at <x, y> rolls `dice` dice showing `faces`;
    `choice`: how the learner chose `dice` (see :class:`Choice`)."""

    player: str
    x: int
    y: int
    dice: int
    faces: tuple[int, ...]
    total: int
    score: int
    choice: Choice | None = None


@dataclass(frozen=True)
class TracedGame:
    """One traced game: its 1-based number in the run, its moves, the winner ("A"/"B"), and the
    counts it incremented when it ended, in move order."""

    number: int
    moves: tuple[TracedMove, ...]
    winner: str
    updates: tuple[CountUpdate, ...] = ()

    @property
    def loser_busted(self) -> bool:
        """True when the game ended by the last mover passing UTarget."""
        return self.moves[-1].player != self.winner


# --------------------------------------------------------------------- scripted games
def replay_game(
    game: Game, rolls: Iterable[Sequence[int]]
) -> tuple[list[tuple[int, int, int]], str]:
    """Replay a game from its dice: rolls[i] are the faces the i-th mover (A, B, A, ...) rolled.

    Returns (moves, winner): moves[i] = (X, Y, J) of the i-th move, winner "A" or "B". The game must
    end exactly at the last roll. Handout Game 1: ((5, 6), (3, 4), (5, 5)) -> B wins.
    """
    score = [0, 0]
    moves: list[tuple[int, int, int]] = []
    rolls = [tuple(r) for r in rolls]
    for i, faces in enumerate(rolls):
        if not 1 <= len(faces) <= game.n_dice:
            raise LearnerError(f"roll {i + 1}: must roll 1..{game.n_dice} dice, got {len(faces)}")
        if any(not 1 <= int(v) <= game.n_sides for v in faces):
            raise LearnerError(f"roll {i + 1}: faces must be in 1..{game.n_sides}, got {faces}")
        mover = i % 2
        moves.append((score[mover], score[1 - mover], len(faces)))
        score[mover] += sum(int(v) for v in faces)
        result = game.outcome(score[mover])
        if result != CONTINUES:
            if i != len(rolls) - 1:
                raise LearnerError(f"the game ends at roll {i + 1} of {len(rolls)}")
            return moves, "AB"[mover if result == MOVER_WINS else 1 - mover]
    raise LearnerError("the rolls end before the game does")


# ------------------------------------------------------------------------- tracing
#: Spawn-key tag of the separate face generator used by :func:`trace`.
_TRACE_KEY = 0x74726163


def _faces(game: Game, j: int, total: int, pyrng: random.Random) -> tuple[int, ...]:
    """j faces, uniformly among all ordered rolls with the given total (exact integer weights)."""
    faces = []
    left = total
    for r in range(j, 0, -1):
        rest = game.sum_counts(r - 1)
        weights = [
            rest[left - v] if 0 <= left - v < len(rest) else 0 for v in range(1, game.n_sides + 1)
        ]
        pick = pyrng.randrange(sum(weights))
        face = 1
        while pick >= weights[face - 1]:
            pick -= weights[face - 1]
            face += 1
        faces.append(face)
        left -= face
    return tuple(faces)


def trace(
    game: Game,
    m: float = 100.0,
    games: int = 3,
    seed: int | None = None,
    *,
    tie_break: str = "lowest",
    start: HandoutRun | None = None,
) -> list[TracedGame]:
    """The next `games` games of a run, move by move, replayed on copies (the run is untouched).

    From scratch (seed) or after `start`. The learner draws each roll's total with one uniform;
    the individual faces shown are drawn, conditioned on that total, from a separate generator
    (seeded from the run's seed and game count), so tracing never changes what is learnt.
    """
    games = check_games_limit(check_count("games", games))
    session = _learner_at(game, m, seed, tie_break, start)
    k, low, high = game.n_dice, game.low, game.high
    wl, ll = session.win.tolist(), session.lose.tolist()
    cdf_rows = game.sum_cdf_table.tolist()  # the float64 table the learner samples from
    key = np.random.SeedSequence(session.seed, spawn_key=(_TRACE_KEY, session.played))
    pyrng = random.Random(int.from_bytes(key.generate_state(4, np.uint64).tobytes(), "little"))
    out = []
    for number in range(session.played + 1, session.played + games + 1):
        choices: list[tuple[Any, ...]] = []
        moves, winner = play_one_python(
            wl, ll, cdf_rows, low, high, k, session.m, session.rng, session.tie_break == "random",
            choices,
        )
        traced = tuple(
            TracedMove("AB"[i % 2], x, y, j, _faces(game, j, t, pyrng), t, x + t, Choice(*fields))
            for i, ((x, y, j, t), fields) in enumerate(zip(moves, choices, strict=True))
        )
        updates = _record_traced(wl, ll, [mv[:3] for mv in moves], winner)
        out.append(TracedGame(number, traced, winner, updates))
    return out


def _learner_at(
    game: Game, m: float, seed: int | None, tie_break: str, start: HandoutRun | None
) -> Handout:
    """The reference learner to trace from: fresh, or where `start` (of `game`) stopped."""
    if start is None:
        return Handout(game, seed, engine="python", m=m, tie_break=tie_break)
    if start.game != game:
        raise LearnerError(f"the run to resume is from a different game ({start.game})")
    return Handout.at(start, engine="python")


def _record_traced(
    win: Any, lose: Any, moves: Sequence[tuple[int, int, int]], winner: str
) -> tuple[CountUpdate, ...]:
    """:func:`dicejack.learners.handout.reference_loop.record_game`, returning the cells it
    incremented and their new counts."""
    record_game(win, lose, moves, winner)
    return tuple(
        CountUpdate("WinCount" if won else "LoseCount", x, y, j,
                    int((win if won else lose)[x][y][j]))
        for won, x, y, j in updated_counts(moves, winner)
    )


def replay_trace(
    game: Game,
    m: float,
    rolls: Iterable[Sequence[int]],
    win: np.ndarray | None = None,
    lose: np.ndarray | None = None,
    *,
    number: int = 1,
) -> TracedGame:
    """A scripted game (`rolls` as in :func:`replay_game`) traced like :func:`trace`: at every
    move the handout's computation from the counts `win` and `lose` (zeros when None), which
    are then updated in place as :func:`dicejack.learners.handout.reference_loop.record_game` does.

    The dice are given, so a move's choice has no draws; B is the lowest J among tied f_J.
    Handout Game 3 from empty tables: WinCount[0,0,2], LoseCount[0,7,2], ... are incremented.
    """
    m = check_m(m, game.n_dice)
    if win is None or lose is None:
        win = np.zeros(game.table_shape, dtype=np.int64) if win is None else win
        lose = np.zeros(game.table_shape, dtype=np.int64) if lose is None else lose
    win, lose = check_tables(win, lose)
    if win.shape != game.table_shape:
        raise LearnerError(f"count tables have shape {win.shape}, not {game.table_shape}")
    rolls = [tuple(int(v) for v in r) for r in rolls]
    moves, winner = replay_game(game, rolls)
    k = game.n_dice
    traced = []
    for i, ((x, y, j), faces) in enumerate(zip(moves, rolls, strict=True)):
        wrow, lrow = win[x, y].tolist(), lose[x, y].tolist()
        f, total, best = estimates(wrow, lrow, k)
        p = move_probabilities(f, total, best, k, m)
        tied = tuple(jj for jj in range(1, k + 1) if f[jj] == f[best])
        choice = Choice(x, y, tuple(wrow), tuple(lrow), tuple(f), total, best, tied, None,
                        tuple(p), None, j)
        traced.append(TracedMove("AB"[i % 2], x, y, j, faces, sum(faces), x + sum(faces), choice))
    updates = _record_traced(win, lose, moves, winner)
    return TracedGame(number, tuple(traced), winner, updates)


@dataclass(frozen=True)
class CountSetting:
    """One count set by hand before the next scripted game: ``WinCount[x,y,j] = value`` (table
    "WinCount" or "LoseCount"); `line`: where it was written (for messages), 0 if nowhere."""

    table: str
    x: int
    y: int
    j: int
    value: int
    line: int = 0


@dataclass(frozen=True)
class ScriptedGame:
    """One game whose dice are given: rolls[i] the faces of the i-th roll (A, B, A, ...)."""

    rolls: tuple[tuple[int, ...], ...]
    line: int = 0


def replay_script(
    game: Game, m: float, steps: Iterable[CountSetting | ScriptedGame]
) -> list[TracedGame]:
    """Games whose dice are given, each traced (:func:`replay_trace`) from the counts the games
    before it left, after the counts set by hand before it (`learn --replay FILE`). The counts
    start empty. LearnerError naming the step's line for a count outside the tables or dice that
    do not make a game."""
    m = check_m(m, game.n_dice)
    win = np.zeros(game.table_shape, dtype=np.int64)
    lose = np.zeros(game.table_shape, dtype=np.int64)
    traced: list[TracedGame] = []
    for step in steps:
        where = f"line {step.line}: " if step.line else ""
        if isinstance(step, CountSetting):
            low, k = game.low, game.n_dice
            if step.table not in ("WinCount", "LoseCount"):
                raise LearnerError(f"{where}no table {step.table!r}: WinCount or LoseCount")
            if not (0 <= step.x < low and 0 <= step.y < low and 1 <= step.j <= k):
                raise LearnerError(f"{where}{step.table}[{step.x},{step.y},{step.j}] is outside "
                                   f"the tables: X and Y in 0..{low - 1}, J in 1..{k}")
            name = f"{where}{step.table}[{step.x},{step.y},{step.j}]"
            check_games_limit(check_count(name, step.value), name)
            (win if step.table == "WinCount" else lose)[step.x, step.y, step.j] = step.value
            continue
        try:
            traced.append(replay_trace(game, m, step.rolls, win, lose, number=len(traced) + 1))
        except LearnerError as exc:
            raise LearnerError(f"{where}{exc}") from None
    if not traced:
        raise LearnerError("no game to replay: write one game per line, the faces of each roll "
                           "separated by |, e.g. 3 4 | 1 4 | 2 5 | 3 5 | 1")
    return traced


# ------------------------------------------------------------------------ in words
def _faces_text(faces: tuple[int, ...]) -> str:
    if len(faces) == 1:
        return f"which comes up {faces[0]}"
    return "which come up " + ", ".join(map(str, faces[:-1])) + f" and {faces[-1]}"


def move_sentence(move: TracedMove, winner: str | None = None) -> str:
    """One move in the handout's words: 'Player A rolls 2 dice, which come up 3 and 4. A total:
    7.'; with the game's `winner` (last move only), ' A wins.' or ' A loses.' after it."""
    dice = "1 die" if move.dice == 1 else f"{move.dice} dice"
    line = (
        f"Player {move.player} rolls {dice}, {_faces_text(move.faces)}. "
        f"{move.player} total: {move.score}."
    )
    if winner is not None:
        line += f" {move.player} {'wins' if move.player == winner else 'loses'}."
    return line


def trace_text(games: list[TracedGame]) -> str:
    """`learn --trace N`: games move by move in the handout's words."""
    lines = []
    for tg in games:
        lines.append(f"Game {tg.number}:")
        for mv in tg.moves:
            lines.append(move_sentence(mv, tg.winner if mv is tg.moves[-1] else None))
        lines.append("")
    return "\n".join(lines)
