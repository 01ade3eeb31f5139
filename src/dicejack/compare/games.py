"""Comparing a learned policy of a protocol game (:mod:`dicejack.games`) with its exact solution:
``dicejack compare --game``.

Owns the comparison's record and its text, not the metrics
(:func:`dicejack.solver.generic_metrics.learned_metrics` computes them: agreement, value error,
the learned policy's exact value in each seat, exploitability). :func:`compare_game` measures a
learner's greedy tables (:class:`dicejack.learners.game_learners.GameTables`, e.g. a run read by
:func:`dicejack.formats.load_learner_run`) and :class:`GameComparison` prints as text or a
JSON-ready dict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dicejack.games.protocol import game_label, game_params
from dicejack.solver.generic import GameSolution
from dicejack.solver.generic_metrics import learned_metrics
from dicejack.solver.generic_output import plain

__all__ = ["GameComparison", "compare_game"]


@dataclass(frozen=True)
class GameComparison:
    """What `source` (a run's label, a file) learned, against `solution`: the metrics."""

    source: str
    solution: GameSolution
    metrics: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        game = self.solution.space.game
        return {"source": self.source, "game": str(game.name),
                "params": {k: plain(v) for k, v in game_params(game).items()},
                "solution_method": self.solution.method,
                "solution_residual": self.solution.residual, "metrics": dict(self.metrics)}

    def text(self) -> str:
        """``learned: SOURCE``, the game, then one metric a line."""
        sol, m = self.solution, self.metrics
        lines = [f"learned: {self.source}",
                 f"game: {game_label(sol.space.game)}; states with data "
                 f"{m['states_with_data']:,} of {m['states']:,}",
                 f"against the exact solution ({sol.method}, residual {sol.residual:.2g}):"]
        for key, value in m.items():
            if key in ("states", "states_with_data"):
                continue
            shown = f"{value:,}" if isinstance(value, int) else f"{value:.6f}"
            lines.append(f"  {key:<20} {shown}")
        return "\n".join(lines) + "\n"


def compare_game(solution: GameSolution, tables: Any, source: str) -> GameComparison:
    """`tables` (best row per state, -1 = no data; value per state) against `solution`."""
    return GameComparison(source, solution,
                          learned_metrics(solution, tables.best, getattr(tables, "value", None)))
