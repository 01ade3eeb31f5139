"""The metrics of a learned policy of a game with hidden information
(:mod:`dicejack.games.information`: Kuhn poker) against the game's exact equilibrium (the
sequence form, :mod:`dicejack.solver.sequence_form`), and their record and text
(:func:`compare_hidden`, ``dicejack compare --game kuhn``): the part of the one metrics module
(:mod:`.metrics`) for such games, apart by concern (a policy per information state, not a row
per state).

Every metric is exact over the tree of plays (no sampling), in the arithmetic of the numbers
given: a policy of Fractions against an exactly checked equilibrium gives exact Fractions (the
uniform policy of Kuhn poker: exploitability 11/24), floats one rounding per operation.

* **exploitability** and **nash_conv**: OpenSpiel's (``open_spiel.python.algorithms
  .exploitability``; :mod:`dicejack.solver.information_policies`): NashConv is what best
  responses gain over the policy, summed over the players; exploitability is NashConv over the
  number of players. 0 exactly at an equilibrium.
* **value_first** / **value_second**: player 0's expected payoff with the learned policy in seat
  0 against the equilibrium's seat 1, and with the equilibrium's seat 0 against the learned
  policy in seat 1. The equilibrium used is the sequence form's (its exactly checked rounding,
  where there is one); player 1's equilibrium in Kuhn poker is unique.
* **loss_first** / **loss_second**: what the learned policy gives up against the game value in
  its own payoff in each seat: game_value - value_first and value_second - game_value, each >= 0
  (the equilibrium holds the learned seat to at most the value), 0 when the seat plays as well
  as an equilibrium against it.
* **score_vs_optimal**: -(loss_first + loss_second), as :func:`.metrics.learned_metrics` defines
  it for protocol games (<= 0; one player: value_self_play - game_value).
* **value_self_play**: player 0's expected payoff with the learned policy in both seats.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dicejack.compare.truth import CompareError
from dicejack.games.information import InformationTree
from dicejack.games.protocol import game_label, game_params
from dicejack.runtime.messages import DicejackError, one_line
from dicejack.solver.generic_output import plain
from dicejack.solver.information_policies import expected_payoff, exploitability, nash_conv
from dicejack.solver.sequence_form import SequenceFormSolution

__all__ = ["HIDDEN_METRIC_NAMES", "hidden_metrics", "HiddenComparison", "compare_hidden"]

#: The metrics of a two-player game, in the order of every output (one player: game_value,
#: score_vs_optimal, value_self_play, nash_conv, exploitability).
HIDDEN_METRIC_NAMES: tuple[str, ...] = (
    "game_value",
    "value_first",
    "value_second",
    "loss_first",
    "loss_second",
    "score_vs_optimal",
    "value_self_play",
    "nash_conv",
    "exploitability",
)


def _seated(tree: InformationTree, first: Mapping[Hashable, Any],
            second: Mapping[Hashable, Any]) -> dict[Hashable, Any]:
    """Player 0's decision keys from `first`, player 1's from `second` (what either misses is
    left out: the evaluation then names it)."""
    out = {}
    for infoset in tree.decisions():
        given = first if infoset.player == 0 else second
        if infoset.key in given:
            out[infoset.key] = given[infoset.key]
    return out


def hidden_metrics(solution: SequenceFormSolution, policy: Mapping[Hashable, Any]
                   ) -> dict[str, Any]:
    """Every metric of the module docstring of `policy` (decision key -> {action: probability}
    or probabilities in the key's action order; keys of both players) against `solution`, in
    :data:`HIDDEN_METRIC_NAMES` order; Fractions where the arithmetic is exact. CompareError
    (one line) when the policy misses a key or is not a distribution there."""
    tree = solution.tree
    exact = solution.exact_policy is not None and solution.exact_value is not None
    value: Any = solution.exact_value if exact else solution.value
    equilibrium: Mapping[Hashable, Any] = solution.exact_policy if exact else solution.policy()
    try:
        out: dict[str, Any] = {"game_value": value}
        self_play = expected_payoff(tree, policy)
        if tree.num_players == 2:
            first = expected_payoff(tree, _seated(tree, policy, equilibrium))
            second = expected_payoff(tree, _seated(tree, equilibrium, policy))
            out.update(value_first=first, value_second=second, loss_first=value - first,
                       loss_second=second - value,
                       score_vs_optimal=(first - value) + (value - second))
        else:
            out["score_vs_optimal"] = self_play - value
        out["value_self_play"] = self_play
        out["nash_conv"] = nash_conv(tree, policy)
        out["exploitability"] = exploitability(tree, policy)
    except DicejackError as exc:
        raise CompareError(f"the learned policy of {game_label(tree.game)}: "
                           f"{one_line(exc)}") from None
    return {k: (Fraction(v) if isinstance(v, (int, Fraction)) else float(v))
            for k, v in out.items()}


@dataclass(frozen=True)
class HiddenComparison:
    """What `source` (a run's label, a file) learned, against `solution`: the metrics (floats,
    or Fractions where exact)."""

    source: str
    solution: SequenceFormSolution
    metrics: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """The record: metrics as floats, and metrics_exact (each exact one as a fraction's
        text, e.g. "11/24")."""
        game = self.solution.game
        return {"source": self.source, "game": str(game.name),
                "params": {k: plain(v) for k, v in game_params(game).items()},
                "solution_method": "sequence-form",
                "decision_keys": len(self.solution.tree.decisions()),
                "metrics": {k: float(v) for k, v in self.metrics.items()},
                "metrics_exact": {k: str(v) for k, v in self.metrics.items()
                                  if isinstance(v, Fraction)}}

    def text(self) -> str:
        """``learned: SOURCE``, the game, then one metric a line (12 significant digits, and
        the exact fraction where there is one)."""
        sol = self.solution
        lines = [f"learned: {self.source}",
                 f"game: {game_label(sol.game)} (hidden information); decision keys "
                 f"{len(sol.tree.decisions()):,}",
                 "against the exact equilibrium (sequence-form LP, HiGHS"
                 + ("; checked exactly):" if sol.exact_value is not None else "):")]
        for key, value in self.metrics.items():
            shown = f"{float(value):.12g}"
            if isinstance(value, Fraction) and value.denominator != 1:
                shown += f" ({value})"
            lines.append(f"  {key:<20} {shown}")
        return "\n".join(lines) + "\n"


def compare_hidden(solution: SequenceFormSolution, policy: Mapping[Hashable, Any],
                   source: str) -> HiddenComparison:
    """`policy` (e.g. a CFR run's average, ``run.final.policy()``) against `solution`."""
    return HiddenComparison(source, solution, hidden_metrics(solution, policy))
