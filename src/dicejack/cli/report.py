"""`dicejack report`: a convergence study of any game written as a report folder."""

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from dicejack.cli.common import (
    BUNDLED_GAMES,
    GAME_PARAMS_HELP,
    HANDOUT_OPTIONS,
    DaskOpt,
    DiceOpt,
    HighOpt,
    LowOpt,
    SidesOpt,
    UsageError,
    WorkersOpt,
    app,
    count_parser,
    handout_named,
    make_game,
)

if TYPE_CHECKING:
    from dicejack.games.handout_rules import Game
    from dicejack.report import Report


# report's options (module constants keep report_cmd short).
_LEARNER_OPT = typer.Option(
    None, "--learner", metavar="NAME[,NAME...]",
    help="Learners to compare, a comma list or repeated: handout, "
    "q-learning, mc-epsilon, ucb, thompson, or your own class as MODULE:Class (a module "
    "importable from the current folder, or a file.py; built as Class(game, seed, "
    "**params), checked against the learner contract first) (one curve each; default "
    "handout). E.g. --learner handout,q-learning,ucb or --learner handout,agent.py:MyLearner."
)
_PARAM_OPT = typer.Option(
    None, "--param", metavar="KEY=VALUE[,VALUE...]",
    help="A learner parameter, repeatable: key=value sets it for every "
    "listed learner that has it (an error if none has), learner.key=value for that learner "
    "only; a comma list of values gives one curve per value. E.g. --param epsilon_min=0.05,0.1 "
    "--param q-learning.alpha=0.1. Parameters: handout: m, tie_break; q-learning: epsilon, "
    "epsilon_min, epsilon_decay, alpha (a number or 1/n), q_init; mc-epsilon: epsilon, "
    "epsilon_min, epsilon_decay; ucb: c; thompson: none; your MODULE:Class: its PARAMS, "
    "else the keyword arguments of its __init__ with a number as default "
    "(MODULE:Class.key=value for it alone)."
)
_M_OPT = typer.Option(
    None, "-m", "--m", metavar="M[,M...]",
    help="M, the handout learner's explore/exploit hyperparameter; repeat "
    "the option or give a comma list for one curve per M. Default 100."
)
_GAMES_OPT = typer.Option(
    None, "--games", help="Checkpoints (NGAMES): a strictly increasing comma list, e.g. "
    "100,1000,10000, or A..B for 1-2-5 steps from A to B. Default 100..1000000 "
    "(1000..100000 with --game). At most 10^12 games per run, and 10^12 in all (seeds x "
    "curves x the last count)."
)
_SEEDS_OPT = typer.Option(
    None, "--seeds", parser=count_parser("--seeds"),
    help="Learner runs (seeds) per curve: per M or learner (at most 10000). Default 10 (5 "
    "with --game)."
)
_SEED_OPT = typer.Option(1, "--seed", help="First seed; run i uses seed + i.")
_OUT_OPT = typer.Option(
    None, "--out", help="Report folder (replaced as a whole when complete; an existing folder "
    "only if dicejack wrote it, i.e. it holds .dicejack-report, or it is empty). "
    "Default reports/<game> for a study of M (e.g. reports/s6-l15-h17-d2), "
    "reports/learners-<game> for a comparison of learners, reports/<game>-learners with "
    "--game; a report of another kind is never replaced."
)
_FIGURE_FORMAT_OPT = typer.Option(
    "png", "--figure-format", metavar="FMT[,FMT...]",
    help="Formats of every figure, a comma list of png, svg, pdf (e.g. png,svg,pdf for a "
    "paper: SVG and PDF are vector). PNG is always written: report.md and report.html "
    "show it."
)
_GAME_SPEC_OPT = typer.Option(
    None, "--game", metavar="NAME|FILE.py:Class", help="Study another game through the game "
    f"protocol ({BUNDLED_GAMES}, or your FILE.py:Class; docs/games.md) with its learners "
    "(--learner q-learning, mc-exploring-starts, counting; default the first two), every "
    "checkpoint measured exactly against the game's solution (agreement, value error, the "
    "learned policy's exact value, exploitability). Default --games 1000..100000, --seeds 5, "
    "--out reports/<game>-learners. A game with hidden information (kuhn, deck-duel) is "
    "learned by cfr "
    "(default: one series per --param variant=cfr+,cfr,outcome-sampling; --games 10..10000 "
    "iterations), its average policy's exact exploitability, NashConv and values measured. "
    "--game handout is the handout's report, byte for byte the one without --game (its "
    "parameters by --game-param or by --sides --low --high --dice)."
)
_GAME_PARAM_OPT = typer.Option(
    None, "--game-param", metavar="KEY=VALUE", help="A parameter of --game; repeat for more "
    f"({GAME_PARAMS_HELP})."
)


@app.command("report")
def report_cmd(
    ctx: typer.Context,
    sides: int = SidesOpt,
    low: int = LowOpt,
    high: int = HighOpt,
    dice: int = DiceOpt,
    learner: list[str] | None = _LEARNER_OPT,
    param: list[str] | None = _PARAM_OPT,
    m: list[str] | None = _M_OPT,
    games: str | None = _GAMES_OPT,
    seeds: int | None = _SEEDS_OPT,
    seed: int = _SEED_OPT,
    out: Path | None = _OUT_OPT,
    figure_format: str = _FIGURE_FORMAT_OPT,
    workers: int | None = WorkersOpt,
    dask: str | None = DaskOpt,
    game_spec: str | None = _GAME_SPEC_OPT,
    game_param: list[str] | None = _GAME_PARAM_OPT,
) -> None:
    """Convergence report: how learners approach optimal play as games accumulate.

    For each curve (the handout's learner at one M, or a learner with its parameters) and seed,
    one learner run measured at every checkpoint; writes report.md (and report.html, the same
    as one page to open in a browser), figures/*.png (and .svg, .pdf with --figure-format;
    each curves figure's numbers as figures/*.csv), metrics.csv and metrics.json to --out,
    which the same command (whatever --workers) rewrites byte for byte, and the run times to
    timing.json. With several learners, report.md adds the games each needs to reach 95%
    decisive agreement and its score against the optimal player.

    Examples: dicejack report (the handout's game, 10 seeds, 100..1,000,000 games);
    dicejack report --sides 6 --low 30 --high 35 --dice 4 -m 10,100,1000 --games 100..1e7;
    dicejack report --learner handout,q-learning,mc-epsilon,ucb,thompson (into
    reports/learners-s6-l15-h17-d2);
    dicejack report --learner handout,agent.py:MyLearner --param agent.py:MyLearner.epsilon=0.1,0.3;
    dicejack report --learner q-learning,mc-epsilon --param epsilon_min=0.05,0.1
    --param q-learning.alpha=0.1;
    dicejack report --game pig --game-param goal=50 --seeds 3 (another game, with the learners
    of protocol games, into reports/pig-goal50-die6-learners);
    dicejack report --game kuhn (Kuhn poker: CFR+, CFR and outcome sampling against the exact
    value -1/18, into reports/kuhn-ante1-bet1-learners)
    """
    from dicejack import report as rep
    from dicejack.cli import report_options as opts
    from dicejack.games.registry import parse_game_params
    from dicejack.report.config import protocol_game

    handout = _handout_named(ctx, game_spec, game_param, (sides, low, high, dice))
    protocol = game_spec is not None and handout is None
    if protocol:
        _refuse_handout_options(ctx, m)
    elif game_param and game_spec is None:
        raise UsageError("--game-param needs --game NAME")
    params = tuple(parse_game_params(game_param).items()) if protocol else ()
    with opts.flag_names():
        game = protocol_game(game_spec, params) if protocol else None
        series = None
        if learner or param or m or not protocol:  # else the game's defaults (ReportConfig)
            series = opts.parse_series(learner or (), param or (), m or (), protocol, game)
        config = rep.ReportConfig(
            game=game_spec if protocol else handout or make_game(sides, low, high, dice),
            game_params=params,
            series=series,
            games=opts.parse_games(games) if games is not None else None,
            seeds=seeds,
            first_seed=seed,
            figure_formats=opts.parse_figure_formats(figure_format),
        )
        if workers is not None and workers < 1:
            raise rep.ReportError(f"--workers must be >= 1, got {workers}")
        result = rep.make_report(config, out, workers=workers, dask=dask, progress=True)
    _echo_wrote(result)


def _handout_named(ctx: typer.Context, spec: str | None, items: list[str] | None,
                   values: tuple[int, int, int, int]) -> "Game | None":
    """`--game handout`: the handout's game with --game-param's parameters or the handout's own
    options as given (:func:`~dicejack.cli.common.handout_named`, every command's), reported as
    `dicejack report` without --game; None for no --game or another game."""
    if spec is None:
        return None
    given = {name: value for name, value in zip(HANDOUT_OPTIONS, values, strict=True)
             if getattr(ctx.get_parameter_source(name), "name", "") == "COMMANDLINE"}
    named = handout_named(spec, items, given)
    if named is None:
        return None
    return make_game(*(v if named[k] is None else named[k]
                       for k, v in zip(HANDOUT_OPTIONS, values, strict=True)))


def _refuse_handout_options(ctx: typer.Context, m: list[str] | None) -> None:
    """With --game: the handout's game's options typed (--sides, --low, --high, --dice, -m)
    are a usage error (the game's parameters are --game-param KEY=VALUE)."""
    def typed(name: str) -> bool:
        return getattr(ctx.get_parameter_source(name), "name", "") == "COMMANDLINE"

    given = [f"--{name}" for name in ("sides", "low", "high", "dice") if typed(name)]
    if m:
        given.append("-m")
    if given:
        verb = "does" if len(given) == 1 else "do"
        raise UsageError(f"{', '.join(given)} {verb} not apply to --game (give the game's "
                         "parameters as --game-param KEY=VALUE)")


def _echo_wrote(result: "Report") -> None:
    """On stderr: the folder written and where the run's time went."""
    from dicejack.report.limits import TIMING_FILE

    t = result.study.timing
    typer.echo(
        f"wrote {result.path}/ (report.md, report.html, figures/, metrics.csv, metrics.json; run "
        f"times in {TIMING_FILE}) in "
        f"{t['total']:.1f} s: solve {t['solve']:.2f} s, compile/warm-up {t['warmup']:.2f} s, "
        f"learner runs {t['runs_wall']:.1f} s "
        f"(learning {t['learn_cpu']:.1f} s CPU, metrics {t['metrics_cpu']:.1f} s CPU), "
        f"figures {t['plot']:.1f} s",
        err=True,
    )
