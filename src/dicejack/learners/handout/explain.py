"""`dicejack learn --explain`: the handout's computation at every move of a trace, in its notation.

For each move of a traced game (:func:`dicejack.learners.handout.trace.trace`, or a scripted one
from :func:`dicejack.learners.handout.trace.replay_trace`): the counts WinCount[X,Y,J] and
LoseCount[X,Y,J], f_J, B, g, T, every p_J with the numbers put into the handout's formulas, the
sums u_i of its sampler, the uniform draw x and the J it picks; after each game, the counts it
incremented. The numbers are those the learner recorded while it played
(:class:`dicejack.learners.handout.trace.Choice`), never recomputed, so a student can follow the
handout's worked example line by line and find the first line where their own program differs.

Numbers are shown as the handout shows them (4 decimals, trailing zeros dropped: 0.75, 0.5556;
``digits`` changes that), uniform draws with 6 decimals or as many more as it takes to tell x
from the u_i it was compared with.
"""

from __future__ import annotations

from collections.abc import Sequence

from dicejack.games.handout_rules import Game
from dicejack.learners.handout.trace import Choice, TracedGame, move_sentence

__all__ = ["explain_text", "explain_game", "explain_choice", "legend", "number_text"]

#: Decimals of a uniform draw and of the u_i it is compared with (more when they would look equal).
DRAW_DIGITS = 6


def number_text(value: float, digits: int = 4) -> str:
    """`value` as the handout prints it: whole numbers bare (0, 8, 100), others with `digits`
    decimals and trailing zeros dropped (0.75, 0.5556); tiny ones in `g` notation (1e-05)."""
    v = float(value)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    if v != 0 and abs(v) < 0.5 * 10.0**-digits:
        return f"{v:.{digits}g}"
    text = f"{v:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _draw_digits(x: float, compared: Sequence[float]) -> int:
    """Decimals at which x differs from every u it was compared with (at least DRAW_DIGITS)."""
    for d in range(DRAW_DIGITS, 18):
        if all(f"{x:.{d}f}" != f"{u:.{d}f}" for u in compared):
            return d
    return 17


def legend(game: Game, m: float, tie_break: str = "lowest") -> list[str]:
    """The handout's rules, once, above the moves: what every line below computes."""
    ties = "the lowest J" if tie_break == "lowest" else "one of them at random (one more rand())"
    return [
        f"The handout's computation at every move (K = NDice = {game.n_dice}, "
        f"M = {number_text(m, 12)}),",
        "in state <X,Y> = <the mover's total, the opponent's total>:",
        "  f_J = WinCount[X,Y,J]/(WinCount[X,Y,J] + LoseCount[X,Y,J]), 0.5 if the denominator "
        "is 0",
        f"  B = the J with the highest f_J (ties: {ties})",
        "  g = sum of f_J over J != B;  T = sum over J of WinCount[X,Y,J] + LoseCount[X,Y,J]",
        "  p_B = (T*f_B + M)/(T*f_B + K*M);  p_J = (1 - p_B)*(T*f_J + M)/(g*T + (K - 1)*M), "
        "J != B",
        "  u_i = p_1 + ... + p_i;  x = rand();  J = the first i with x < u_i, else K",
        "  the roll's total: one more rand() against the exact distribution of the sum of J dice",
        "  (the faces shown are one roll with that total, drawn apart: tracing changes nothing)",
        "After each game every (X,Y,J) of the winner adds 1 to WinCount, every one of the",
        "loser 1 to LoseCount.",
        "",
    ]


def explain_choice(c: Choice, m: float, digits: int = 4) -> list[str]:
    """The lines of one move's computation (counts, f_J, B, g, T, p_J, the draw and J)."""

    def n(v: float) -> str:
        return number_text(v, digits)

    k, x, y, best = c.k, c.x, c.y, c.best
    lines = []
    for j in range(1, k + 1):
        w, lo = c.win[j], c.lose[j]
        f = f"{w}/({w} + {lo}) = {n(c.f[j])}" if w + lo else f"{n(c.f[j])} (denominator 0)"
        lines.append(
            f"  WinCount[{x},{y},{j}] = {w}.  LoseCount[{x},{y},{j}] = {lo}.  f_{j} = {f}."
        )
    why = "the best move"
    if len(c.tied) > 1:
        equal = " = ".join(f"f_{j}" for j in c.tied)
        if c.tie_draw is None:
            why = f"{equal} = {n(c.f[best])}: a tie, the lowest J"
        else:
            count = len(c.tied)
            why = (f"{equal} = {n(c.f[best])}: a tie; rand() = {c.tie_draw:.{DRAW_DIGITS}f} "
                   f"picks tied J number floor(rand()*{count}) + 1 = {c.tied.index(best) + 1} "
                   f"of {count}")
    lines.append(f"  B = {best} ({why}).")
    others = [j for j in range(1, k + 1) if j != best]
    g_terms = " + ".join(n(c.f[j]) for j in others)
    lines.append(f"  g = {g_terms} = {n(c.g)}." if len(others) > 1
                 else f"  g = {n(c.g)}.")
    t_terms = [str(v) for j in range(k + 1) for v in (c.win[j], c.lose[j])
               if j > 0 or c.win[0] or c.lose[0]]
    lines.append(f"  T = {' + '.join(t_terms)} = {c.total}.")
    tt, mm, fb, pb = c.total, n(m), n(c.f[best]), c.p[best]
    if k == 1:
        lines.append("  p_1 = 1 (K = 1: the only move).")
    elif tt * c.f[best] + k * m == 0.0:
        lines.append(f"  T*f_B + K*M = {tt}*{fb} + {k}*{mm} = 0: no preference, "
                     f"every p_J = 1/K = {n(1.0 / k)}.")
    else:
        lines.append(f"  p_{best} = ({tt}*{fb} + {mm})/({tt}*{fb} + {k}*{mm}) = {n(pb)}.")
        den_zero = c.g * tt + (k - 1) * m == 0.0
        for j in others:
            if den_zero:
                lines.append(f"  p_{j} = 0 (g*T + (K - 1)*M = 0: p_B = 1, nothing left).")
            else:
                lines.append(
                    f"  p_{j} = (1 - {n(pb)})*({tt}*{n(c.f[j])} + {mm})/"
                    f"({tt}*{n(c.g)} + {k - 1}*{mm}) = {n(c.p[j])}."
                )
    if c.draw is None:
        lines.append(f"  (replayed game: J = {c.dice} is given, not drawn)")
        return lines
    u = c.cumulative
    compared = u[1:k]  # u_K is never compared: the sampler returns K when x < u_i never held
    d = _draw_digits(c.draw, compared)
    us = ", ".join(f"u_{i} = {u[i]:.{d}f}" for i in range(1, k + 1))
    if c.dice < k:
        pick = f"the first i with x < u_i is {c.dice}, so J = {c.dice}"
    elif k == 1:
        pick = "J = 1"
    else:
        below = "u_1" if k == 2 else f"u_1, ..., u_{k - 1}"
        pick = f"x >= {below}, so J = K = {k}"
    lines.append(f"  {us};  x = rand() = {c.draw:.{d}f}: {pick}.")
    return lines


def explain_game(tg: TracedGame, m: float, digits: int = 4) -> list[str]:
    """The lines of one traced game: every move's computation and roll, then the count updates."""
    lines = [f"Game {tg.number}:"]
    for i, mv in enumerate(tg.moves, start=1):
        lines.append(f"Move {i}: Player {mv.player} at <X,Y> = <{mv.x},{mv.y}>")
        if mv.choice is not None:
            lines.extend(explain_choice(mv.choice, m, digits))
            if mv.choice.roll_draw is not None:
                dice = "1 die" if mv.dice == 1 else f"{mv.dice} dice"
                lines.append(
                    f"  roll total: rand() = {mv.choice.roll_draw:.{DRAW_DIGITS}f} gives "
                    f"{mv.total}, the smallest t with rand() < P(sum of {dice} <= t)."
                )
        last = mv is tg.moves[-1]
        lines.append("  " + move_sentence(mv, tg.winner if last else None))
    if tg.updates:
        lines.append(f"After Game {tg.number} ({tg.winner} wins), these counts are incremented "
                     "by 1:")
        lines.extend(f"  {u.table}[{u.x},{u.y},{u.j}] = {u.count}" for u in tg.updates)
    lines.append("")
    return lines


def explain_text(
    game: Game, m: float, games: Sequence[TracedGame], *, tie_break: str = "lowest",
    digits: int = 4,
) -> str:
    """`learn --trace N --explain`: the legend, then every game move by move (see the module)."""
    lines = legend(game, m, tie_break)
    for tg in games:
        lines.extend(explain_game(tg, m, digits))
    return "\n".join(lines) + "\n"
