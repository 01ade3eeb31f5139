"""`dicejack study`: a classroom study redone against exact truth, written as a folder
(docs/studies.md)."""

from enum import Enum
from pathlib import Path

import typer

from dicejack.cli.common import app


class StudyName(str, Enum):
    peeking_blackjack = "peeking-blackjack"
    yamslam = "yamslam"
    deck_divide_dollar = "deck-divide-dollar"


@app.command("study")
def study_cmd(
    name: StudyName = typer.Argument(..., help="The study: peeking-blackjack (CS221's blackjack "
                                     "assignment), yamslam (the Yamslam re-roll study) or "
                                     "deck-divide-dollar (E. Wild's Monte Carlo agent and "
                                     "evolved FSM players)."),
    out: Path = typer.Option(..., "--out", help="The study's folder (replaced as a whole when "
                             "complete; an existing folder only if dicejack wrote it or it is "
                             "empty)."),
    seeds: int | None = typer.Option(None, "--seeds", min=1, max=1000,
                                     help="Learner runs (seeds 1..N) per setting; default: "
                                     "the study's own (peeking-blackjack 10, yamslam 5, "
                                     "deck-divide-dollar 3)."),
) -> None:
    """Redo a classroom study against exact truth: README.md, runs.csv and figures in --out.

    A run takes minutes (peeking-blackjack: 60 Q-learning runs of 30,000 trials;
    yamslam: a 10,000-trial reference table and 5 learners to 6,400 trials per pair, 340
    million trials; deck-divide-dollar, about 1,200 CPU-seconds and 4 GB: 2,000,000 games per Monte
    Carlo run and per evolved-FSM run, each checkpoint's policy or machine valued exactly, the
    exact full-information bound, CFR on the two-player game at a small deck).
    The same command writes the same bytes.

    Examples: dicejack study peeking-blackjack --out reports/studies-peeking-blackjack;
    dicejack study yamslam --out reports/studies-yamslam --seeds 3.
    """
    from dicejack.report.studies import write_study

    for path in write_study(name.value, out, seeds):
        typer.echo(str(path))
