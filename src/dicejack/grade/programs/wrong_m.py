"""Naming a wrong M: a program whose runs are inconsistent with the handout's algorithm at M may
be consistent with it at another M (a units slip: M divided or multiplied by ten where it is
read, as the power probes of :mod:`dicejack.grade.evidence.power` model). Each inconsistent run's
output
is graded again against reference runs at M x 0.1 and M x 10 (computed and cached like any
references); a factor under which every one of those runs fits (consistency p at least
FIT_LEVEL), where the other does not, names the bug (flag ``m-tenth`` or ``m-tenfold``). A hint
beside ``inconsistent``, never a verdict of its own; :func:`mark_wrong_m` also makes it the
student's likely cause when the runs' own diagnosis (:func:`dicejack.grade.programs.joint.
joint_cause`) named no known bug.

FIT_LEVEL is well below the review level: each regraded run of a program with that bug would
miss the review level by chance 3.4% of the time (so a program with two inconsistent runs went
unnamed about one time in six: measured on tests/students/programs/bugs/wrong_m.py), while a run
at the wrong factor scores p far below it (1e-9 and less on that program)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from dicejack.grade.evidence.bug_models import BY_NAME
from dicejack.grade.evidence.references import References
from dicejack.grade.programs.joint import ProgramRun
from dicejack.grade.programs.plan import PlannedSetting
from dicejack.grade.scoring.diagnosis import UNUSUAL
from dicejack.grade.scoring.grading import grade_text
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import P_INCONSISTENT

__all__ = ["M_FACTORS", "FIT_LEVEL", "wrong_m", "scaled", "mark_wrong_m"]

#: The wrong-M bugs named, by the factor on M they apply.
M_FACTORS: dict[str, float] = {"m-tenth": 0.1, "m-tenfold": 10.0}
#: A regraded run fits a factor when its consistency p is at least this.
FIT_LEVEL = 1e-3
#: A wrong M is named only when some inconsistent run is decisively so (consistency p below
#: this): a faithful student at review is inconsistent by chance at p near the review level,
#: where a scaled M can fit as well, and must not be blamed (fair by default).
NAME_LEVEL = 1e-3


def wrong_m(runs: Sequence[ProgramRun],
            refs_for: Callable[[PlannedSetting, float], References]) -> str:
    """The wrong-M flag that explains every inconsistent run (their outputs kept: ProgramRun
    result.stdout), or "" when none or both do. refs_for(setting, factor): the references at
    that setting with M times factor."""
    bad = [r for r in runs if r.grade is not None and r.grade.status == "ok"
           and r.grade.consistency_p < P_INCONSISTENT and r.result is not None
           and r.result.stdout]
    if not bad or min(r.grade.consistency_p for r in bad) >= NAME_LEVEL:
        return ""
    fits = []
    for name, factor in M_FACTORS.items():
        ok = True
        for r in bad:
            g = grade_text(refs_for(r.setting, factor), r.result.stdout)
            if g.status != "ok" or not g.consistency_p >= FIT_LEVEL:
                ok = False
                break
        if ok:
            fits.append(name)
    return fits[0] if len(fits) == 1 else ""


def scaled(setting: PlannedSetting, factor: float) -> PlannedSetting:
    """The same setting with M times `factor`."""
    return dataclasses.replace(setting, settings=dataclasses.replace(
        setting.settings, m=setting.settings.m * factor))


def mark_wrong_m(g: Grade, runs: Sequence[ProgramRun],
                 refs_for: Callable[[PlannedSetting, float], References]) -> Grade:
    """The student's row with the wrong M named, when inconsistent and :func:`wrong_m` names
    one: its flag, a note, and the likely cause unless the runs' diagnosis already named a
    known bug (a cause of its own family is replaced: this test saw every inconsistent run).
    A bug of another family named by the runs' diagnosis contradicts it: nothing is added. So
    does a print-only slip on the row (a ``printed-*`` flag: the family rejected the runs'
    print-flag count): it explains an inconsistent run as well. Print flags on single runs do
    not count: a program with M ten times too small is flagged ``printed-by-plays`` on 2 of 5
    runs at times, and must still be named."""
    slipped = any(f.startswith("printed-") for f in g.flags)
    if "inconsistent" not in g.flags or slipped or (g.cause in BY_NAME
                                                    and BY_NAME[g.cause].family != "wrong-m"):
        return g
    named = wrong_m(runs, refs_for)
    if not named:
        return g
    note = f"every inconsistent run fits M x {M_FACTORS[named]:g} ({named})"
    cause, text = g.cause, g.cause_text
    if cause != named and (cause in ("", UNUSUAL)
                           or (cause in BY_NAME and BY_NAME[cause].family == "wrong-m")):
        model = BY_NAME[named]
        cause = named
        text = f"{model.cause} ({note}). {model.hint[:1].upper()}{model.hint[1:]}."
    return dataclasses.replace(g, flags=tuple(dict.fromkeys((*g.flags, named))),
                               notes=f"{g.notes}; {note}", cause=cause, cause_text=text)
