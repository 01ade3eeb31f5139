"""compare: metrics of a learned table against the exact solution (docs/design/metrics.md).

Everything that depends only on the game (solution, visit probabilities, the state sets that encode
the handout's caveats A-E) is computed once in a frozen :class:`Truth`; comparing a learned table is
then a handful of vectorised numpy operations plus two exact policy evaluations, cheap enough for
thousands of checkpoints. Pure functions, no I/O.

Interpretations (each one a choice the handout and docs/design/metrics.md leave open):

* **State sets.** ``all``: every <X,Y>. ``reachable``: :meth:`Game.reachable`. ``on-path``: visit
  probability >= 1e-3 in a game between two optimal players, ties split evenly
  (``solver.visit_probabilities(game, sol)``). ``decisive``: on-path, P*(s) > 1e-12 (not lost, up
  to float round-off) and gap(s) >= 0.02; a NaN gap (every J optimal) is not decisive.
* **No data.** A state whose learned best J is not in 1..K (the learner writes 0 where no J was
  ever played) has no data: it counts as a disagreement, its regret is that of a uniformly random J
  (P* minus the mean of Q*(s, J) over J = 1..K), and it has no estimate.
* **Estimates.** Probability errors use the states with data whose printed estimate is a number
  other than -1.
* **Weighted** agreement and regret weight every state by its visit probability under optimal play
  (the on-path weights), normalised to sum 1; states optimal play never visits weigh 0.
* **Score against optimal.** The learned greedy policy plays its best J where it has data and a
  uniformly random J (1/K each) elsewhere; score_vs_optimal = 0.5 * (P(learned, first, beats
  optimal) + 1 - P(optimal, first, beats learned)); 0.5 means as good as optimal.
* **Exploitability** of that same policy: P(a best response, moving first, beats it) + P(a best
  response, moving second, beats it) - 1 (``solver.exploitability``; OpenSpiel's exploitability
  with returns +1/-1); 0 means nothing exploits it.
* **A policy alone** (``learned_from_policy``: a callable, a table of J, an OpenSpiel policy) has no
  estimates: the probability metrics are NaN, "not available". A mixed policy is scored by its
  own distribution and agrees where its most likely J is optimal. Its J counts from 1: a 0 is
  refused as a 0-based policy unless ``zero_based=True``; -1 or NaN (a NaN row in a
  distribution) marks a state without data, in tables only.
* **Per seat**: ``Comparison.best_response`` holds what a best response wins moving first and
  moving second (exploitability = their sum - 1); a seat pair learned apart is measured with
  ``solver.exploitability(game, first=, second=)``.
* Metrics over an empty set are NaN.
* **Slips in printed tables** (transposed, 0-based J, another LTarget): :mod:`.hints`.

Modules, each importing only those above it: truth.py (Truth, truth, the state sets, CompareError,
CompareWarning), conventions.py (0-based actions, [-1, 1] values, greedy_tables: no optional
package), learned.py (what a caller hands compare, as a Learned), metrics.py (the one metrics
module: metric_values, compare, state_classes, format_comparison for the handout's tables;
learned_metrics and compare_game for any protocol game), hints.py (slips in printed tables).
This package imports the solver and (lazily) the handout's learner's table rule; nothing above
it.
"""

from __future__ import annotations

from dicejack.compare.frameworks import (
    action_to_dice,
    dice_to_action,
    greedy_tables,
    mover_view,
    probability_to_value,
    value_to_probability,
)
from dicejack.compare.learned import (
    as_learned,
    learned_from_counts,
    learned_from_policy,
    learned_from_q,
    learned_from_tables,
)
from dicejack.compare.metrics import (
    METRIC_NAMES,
    METRIC_RANGES,
    compare,
    format_comparison,
    greedy_distribution,
)
from dicejack.compare.truth import CompareError, CompareWarning, truth

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it): everything else
#: is imported from its module (Truth, truth_for and the state sets' thresholds from truth;
#: Comparison, metric_values and METRIC_HELP from metrics; Learned and register_policy_reader from
#: learned; the printed tables' hints from hints).
__all__ = [
    "compare",
    "format_comparison",
    "CompareError",
    "CompareWarning",
    "METRIC_NAMES",
    "METRIC_RANGES",
    "learned_from_tables",
    "learned_from_counts",
    "learned_from_q",
    "learned_from_policy",
    "as_learned",
    "truth",
    "greedy_distribution",
    "greedy_tables",
    "dice_to_action",
    "action_to_dice",
    "probability_to_value",
    "value_to_probability",
    "mover_view",
]
