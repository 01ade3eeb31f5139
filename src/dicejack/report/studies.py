"""The classroom studies redone against exact truth (docs/studies.md), written as report folders:
:func:`write_study` runs one (``peeking-blackjack``: :mod:`~dicejack.report.studies_blackjack`;
``yamslam``: :mod:`~dicejack.report.studies_yamslam`; ``deck-divide-dollar``:
:mod:`~dicejack.report.studies_deck`, :mod:`~dicejack.report.studies_deck_report`) and writes
``README.md``, ``runs.csv`` and its figures (PNG) into a folder built beside `out` and renamed
into place whole. Nothing in them varies between runs (no times, no versions), so a re-run
writes the same bytes.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dicejack.formats.atomic import write_atomic
from dicejack.formats.folders import new_folder_beside, swap_folder
from dicejack.runtime.messages import DicejackError

__all__ = ["STUDIES", "StudyError", "study_command", "write_study"]

#: The marker file of a study folder (a folder holding it may be replaced).
MARKER = ".dicejack-study"


class StudyError(DicejackError, ValueError):
    """An unknown study or bad study settings."""


def _blackjack(seeds: tuple[int, ...] | None) -> tuple[Any, Callable[..., Any]]:
    from dicejack.report.studies_blackjack import BlackjackStudy, blackjack_report, blackjack_study

    config = BlackjackStudy() if seeds is None else BlackjackStudy(seeds=seeds)
    return blackjack_study(config), blackjack_report


def _yamslam(seeds: tuple[int, ...] | None) -> tuple[Any, Callable[..., Any]]:
    from dicejack.report.studies_yamslam import YamslamStudy, yamslam_report, yamslam_study

    config = YamslamStudy() if seeds is None else YamslamStudy(seeds=seeds)
    return yamslam_study(config), yamslam_report


def _deck(seeds: tuple[int, ...] | None) -> tuple[Any, Callable[..., Any]]:
    from dicejack.report.studies_deck import DeckStudy, deck_study
    from dicejack.report.studies_deck_report import deck_report

    config = DeckStudy() if seeds is None else DeckStudy(seeds=seeds)
    return deck_study(config), deck_report


#: The studies by name.
STUDIES: dict[str, Callable[[tuple[int, ...] | None], tuple[Any, Callable[..., Any]]]] = {
    "peeking-blackjack": _blackjack,
    "yamslam": _yamslam,
    "deck-divide-dollar": _deck,
}


def study_command(name: str, out: str | Path, seeds: int | None = None) -> str:
    """The command line that writes this study (quoted in its README)."""
    words = ["dicejack", "study", name, "--out", str(out)]
    if seeds is not None:
        words += ["--seeds", str(seeds)]
    return " ".join(words)


def write_study(name: str, out: str | Path, seeds: int | None = None) -> list[Path]:
    """Run study `name` with seeds 1..`seeds` (None: the study's default) and write its folder
    `out` (module docstring); returns the files written."""
    if name not in STUDIES:
        raise StudyError(f"no study {name!r}; the studies: {', '.join(STUDIES)}")
    if seeds is not None and (isinstance(seeds, bool) or not isinstance(seeds, int)
                              or not 1 <= seeds <= 1000):
        raise StudyError(f"seeds must be a whole number in 1..1000, got {seeds!r}")
    from dicejack.figures.study_figures import curves_figure

    out = Path(out)
    tmp = new_folder_beside(out, marker=MARKER, what="study", example="reports/studies-mine")
    try:
        result, report = STUDIES[name](None if seeds is None else tuple(range(1, seeds + 1)))
        readme, csv, figures = report(result, study_command(name, out, seeds))
        files = {"README.md": readme, "runs.csv": csv, MARKER: f"dicejack study {name}\n"}
        for spec in figures:
            args = {k: v for k, v in spec.items() if k != "file"}
            files[spec["file"]] = curves_figure(**args)
        for file_name, data in files.items():
            write_atomic(tmp / file_name, data)
        swap_folder(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return [out / f for f in files]
