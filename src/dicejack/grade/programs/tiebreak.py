"""Breaking a tie between two likely causes: when a student's runs leave two known bugs tied
(:func:`dicejack.grade.programs.joint.tied_causes`: runs naming bugs of two families, or every
run unusual while two bugs explain them alike), the program is run again, TIEBREAK_RUNS times,
at the candidate setting where those two bugs are told apart best
(:func:`dicejack.grade.scoring.diagnosis.pair_separation` over the bugs' own model runs at each
of :data:`CANDIDATES`, a part of the calibration grid: two 6-sided dice, LTarget 10 or 20, M 1
or 100, 2,000 or 20,000 games). The cause is named when at least TIEBREAK_AGREE of those runs
name one of the two bugs and none names the other.

The budget, per student: TIEBREAK_RUNS runs at one setting of at most 20,000 games; per batch:
the candidates' reference and model runs, computed once (cached on disk like every
setting's) when the first tie needs them. The extra runs only name a cause: they never enter
the verdict or the score (the family of tests the verdict comes from is the plan's alone), and
a student whose runs are not tied, or who passed, is not run again."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from dicejack.grade.evidence.references import References
from dicejack.grade.programs.conventions import Settings
from dicejack.grade.programs.joint import ProgramRun, joint_cause
from dicejack.grade.programs.plan import PlannedSetting
from dicejack.grade.scoring.diagnosis import pair_separation
from dicejack.grade.scoring.record import Grade

__all__ = ["TIEBREAK_RUNS", "TIEBREAK_AGREE", "CANDIDATES", "ROLE", "separating_setting",
           "settle"]

#: Extra runs per tied student, all at the one setting that separates the pair best.
TIEBREAK_RUNS = 3
#: How many of them must name one of the pair (and none the other) for it to be named.
TIEBREAK_AGREE = 2
#: The role of the extra runs (runs.csv, the student's page).
ROLE = "tie-break"
#: Where a tie may be broken: a part of the calibration grid (docs/calibration-grid.md) cheap
#: enough to run three more times (at most 20,000 games) and printable by every printer.
CANDIDATES: tuple[Settings, ...] = tuple(
    Settings(6, low, low + 2, 2, m, games)
    for low in (10, 20) for m in (1, 100) for games in (2_000, 20_000))


def separating_setting(pair: tuple[str, str], refs_for: Callable[[Settings], References],
                       cache_dir: object = False) -> tuple[PlannedSetting, float]:
    """The candidate setting where the two bugs are told apart best (ties to fewer games, then
    the earlier candidate), as a planned setting of TIEBREAK_RUNS runs, and its separation.
    `refs_for(settings)`: the reference runs there."""
    scored = []
    for k, s in enumerate(CANDIDATES):
        sep = pair_separation(refs_for(s), *pair, cache_dir=cache_dir)  # type: ignore[arg-type]
        scored.append((-sep, s.games, k, s))
    best = min(scored)
    return PlannedSetting(best[3], ROLE, TIEBREAK_RUNS), -best[0]


def settle(g: Grade, pair: tuple[str, str], setting: PlannedSetting, separation: float,
           extra: Sequence[ProgramRun]) -> Grade:
    """The student's row after the tie-break runs: the cause named when they back one of the
    pair (module docstring), with a note either way; the verdict and score untouched."""
    a, b = pair
    graded = [r for r in extra if not r.failed]
    causes = [_cause_of(r) for r in graded]  # each run diagnosed once
    count = {a: causes.count(a), b: causes.count(b)}
    where = (f"{len(extra)} tie-break runs at {setting.settings.describe()}, where the two "
             f"are told apart in {separation:.0%} of their own runs")
    winner = next((c for c, other in ((a, b), (b, a))
                   if count[c] >= TIEBREAK_AGREE and count[other] == 0), "")
    if not winner:
        said = ", ".join(f"{c} ({n})" for c, n in count.items())
        lost = len(extra) - len(graded)
        note = (f"{a} and {b} tied; {where}: still tied ({said}"
                f"{f'; {lost} did not run' if lost else ''})")
        return dataclasses.replace(g, notes="; ".join(n for n in (g.notes, note) if n))
    cause, text, _ = joint_cause([r for r, c in zip(graded, causes, strict=True) if c == winner])
    note = f"likely cause {winner}: {a} and {b} tied; {where}: {count[winner]} named {winner}"
    return dataclasses.replace(g, cause=winner, cause_text=text or g.cause_text,
                               notes="; ".join(n for n in (g.notes, note) if n))


def _cause_of(run: ProgramRun) -> str:
    """The cause one run names on its own ("" none)."""
    cause, _, _ = joint_cause([run])
    return cause
