"""What `dicejack solve --game` prints: a protocol game's solution as text, a JSON-ready dict, or
CSV (one row per reachable state). Beside the generic solver because formats/ holds the
handout's layouts; no run times in any of them (the command prints those on stderr), so the same
command prints the same bytes. Each takes any solution (:class:`BaseSolution`) and prints its
per-row form."""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from typing import Any

from dicejack.games.protocol import game_params
from dicejack.solver.results import BaseSolution, GameSolution

__all__ = ["game_solution_text", "game_solution_dict", "game_solution_csv", "plain",
           "game_params"]


def plain(value: Any) -> Any:
    """A parameter value as JSON can hold it (Fractions as "a/b" text)."""
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def _method_line(sol: GameSolution) -> str:
    if sol.method == "backward":
        how = "backward induction (no cycles): one backup per state"
    elif sol.method == "value-iteration" and sol.space.game.name == "handout":
        # only the handout's own engine sweeps that game (the generic one takes one backup)
        how = f"synchronous value iteration: {sol.sweeps:,} sweeps to no change"
    elif sol.method == "value-iteration" and sol.error_bound is not None:
        how = (f"Gauss-Seidel value iteration and policy iteration (compiled) on the cyclic "
               f"components: {sol.sweeps:,} component sweeps and passes to a fixed point, every "
               f"value within {sol.error_bound:.1g}")
    elif sol.method == "value-iteration":
        how = (f"value iteration on the cyclic levels: {sol.sweeps:,} level sweeps to a change "
               f"of at most {sol.tolerance:g}")
    else:
        how = f"policy iteration on the cyclic levels: {sol.sweeps:,} policy evaluations"
    return f"method: {how}; Bellman residual {sol.residual:.3g}"


def game_solution_text(sol: BaseSolution) -> str:
    """The summary: the game, its size, the method and residual, and player 0's value."""
    sol = sol.generic()
    space = sol.space
    players = "one player" if space.num_players == 1 else "two players, zero-sum"
    lines = [
        f"# {space.label} ({players}): {space.n_states:,} reachable states, "
        f"{space.n_rows:,} (state, action) pairs",
        _method_line(sol),
        f"value of the initial state for player 0 (first to move): {sol.value:.12f}",
    ]
    if sol.value_exact is not None:
        lines.append(f"exactly: {sol.value_exact}")
    start = space.states[0]
    if not space.terminal[0]:
        best = [space.actions[r] for r in space.rows(0) if sol.optimal[r]]
        lines.append(f"optimal at the start {start!r}: {', '.join(map(str, best))}")
    return "\n".join(lines) + "\n"


def game_solution_dict(sol: BaseSolution) -> dict[str, Any]:
    """The summary as JSON: game, params, states, pairs, method, sweeps, tolerance, residual,
    value, value_exact ("a/b" or null), optimal_start (the optimal actions at the start)."""
    sol = sol.generic()
    space = sol.space
    return {
        "game": str(space.game.name),
        "params": {k: plain(v) for k, v in game_params(space.game).items()},
        "players": space.num_players,
        "states": space.n_states,
        "pairs": space.n_rows,
        "method": sol.method,
        "sweeps": sol.sweeps,
        "tolerance": sol.tolerance,
        "residual": sol.residual,
        "value": sol.value,
        "value_exact": None if sol.value_exact is None else str(sol.value_exact),
        "optimal_start": [plain(space.actions[r]) for r in space.rows(0) if sol.optimal[r]]
        if not space.terminal[0] else [],
    }


def game_solution_csv(sol: BaseSolution) -> str:
    """Every reachable state: ``state,player,value,optimal`` (state as Python writes it, player
    -1 at terminal states, optimal actions separated by ``;``)."""
    sol = sol.generic()
    space = sol.space
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["state", "player", "value", "optimal"])
    for s, state in enumerate(space.states):
        best = ";".join(str(space.actions[r]) for r in space.rows(s) if sol.optimal[r])
        writer.writerow([repr(state), int(space.player[s]), repr(float(sol.values[s])), best])
    return buffer.getvalue()
