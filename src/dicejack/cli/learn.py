"""`dicejack learn`: self-play of any game with a bundled learner (--learner NAME --param
KEY=VALUE): the handout's game by default (--sides --low --high --dice; the handout's learner, its
tables printed), any other protocol game with --game (its learners; the learned policy measured
against the exact solution). One path for both: the learner by name from the catalogue, played
under the progress bar (play_session), saved to --out and on Ctrl-C as one run file
(formats.learner_runs), resumed with --resume, printed by learn_output. Also what `compare
--learner` shares with it: the learner options read into parameters, run files read back, and
the help section that lists the bundled learners."""

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperCommand

from dicejack.cli.common import (
    BUNDLED_GAMES,
    GAME_PARAMS_HELP,
    ForceOpt,
    UsageError,
    app,
    check_out_path,
    confirm_large_outputs,
    count_parser,
    game_learner_params,
    handout_named,
    learner_name,
    make_game,
    write_output,
)
from dicejack.cli.learn_output import print_game_run, print_hidden_run, print_run
from dicejack.cli.play_session import play_saving_on_interrupt

if TYPE_CHECKING:
    from dicejack.games.handout_rules import Game
    from dicejack.learners import Run
    from dicejack.learners.base import LearnedRun


class LearnFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"


class TieBreak(str, Enum):
    lowest = "lowest"
    random = "random"


#: The learner a command runs when --learner is not given (and nothing is resumed).
DEFAULT_LEARNER = "handout"


class LearnerHelpCommand(TyperCommand):
    """A command whose --help ends with the bundled learners and their parameters
    (:func:`dicejack.learners.help_text`, loaded only when the help is shown, so that the
    command line starts without numpy)."""

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        super().format_epilog(ctx, formatter)
        from dicejack import learners

        with formatter.section("Learners and their parameters (--learner NAME --param KEY=VALUE)"):
            for line in learners.help_text().splitlines():
                if line.startswith(" "):
                    formatter.indent()
                    formatter.write_text(line.strip())
                    formatter.dedent()
                else:
                    formatter.write_text(line)
            formatter.write_paragraph()
            formatter.write_text(
                "Parameters not set keep their defaults. E.g. --learner q-learning --param "
                "alpha=0.1 --param epsilon=0.2; "
                "--learner ucb --param c=0.5; --learner handout --param m=10 (= -m 10)."
            )


LearnerOpt = typer.Option(
    None, "--learner", metavar="NAME", parser=learner_name,
    help="The learner: handout (the default, or the resumed "
    "run's), q-learning, mc-epsilon, ucb or thompson (listed under Learners below)."
)
ParamOpt = typer.Option(
    None, "--param", metavar="KEY=VALUE", help="Set a parameter of the learner; repeat for "
    "more, e.g. --param alpha=0.1 --param epsilon=0.2 (each learner's under Learners below)."
)


def learner_params(
    name: str, items: list[str] | None, m: float | None, tie_break: str | None
) -> dict[str, Any]:
    """The parameters the options give learner `name` (only those given; checked): every
    --param KEY=VALUE, and for the handout's learner -m and --tie-break as m and tie_break
    (given both ways, they must agree). -m and --tie-break with another learner are a
    UsageError saying why; a bad --param is a LearnerError naming the key and valid values."""
    from dicejack import learners
    from dicejack.learners.base import format_value
    from dicejack.learners.catalogue import learner_class, parameters
    from dicejack.learners.formulas import check_m

    learner_class(name)  # an unknown name: the error lists the bundled ones
    params = learners.parse_params(name, items or [])
    options = {"m": ("-m", m), "tie_break": ("--tie-break", tie_break)}
    for key, (flag, value) in options.items():
        if value is None:
            continue
        if name != "handout":
            names = [p.name for p in parameters(name)]
            known = f"the parameters {', '.join(names)}" if names else "no parameters"
            raise UsageError(
                f"{flag} is a setting of the handout's learner, not of {name}; give {name}'s "
                f"parameters as --param KEY=VALUE ({name} has {known})"
            )
        if key in params and params[key] != value:
            shown = f"{value:g}" if isinstance(value, float) else value
            raise UsageError(
                f"{flag} {shown} and --param {key}={format_value(params[key])} disagree; "
                "give it once"
            )
        params[key] = check_m(value) if key == "m" else value  # NDice*M: with the game
    return params


def learner_or_game_learner(value: str) -> str:
    """The parser of learn's --learner: a bundled learner's name (:func:`learner_name`), or a
    learner of protocol games (``mc-exploring-starts``, ``cfr``: with --game)."""
    from dicejack.learners.cfr import CFR_LEARNERS
    from dicejack.learners.game_learners import GAME_LEARNERS

    if str(value).strip().lower().replace("_", "-") in {**GAME_LEARNERS, **CFR_LEARNERS}:
        return str(value).strip().lower().replace("_", "-")
    return learner_name(value)


LearnOpt = typer.Option(
    None, "--learner", metavar="NAME", parser=learner_or_game_learner,
    help="The learner: handout (the default, or the resumed "
    "run's), q-learning, mc-epsilon, ucb or thompson (listed under Learners below); with "
    "--game: q-learning (the default), mc-exploring-starts or counting (the handout's rule, "
    "win/lose games; --param m=M; counting and handout name one rule on every game)."
)
GameOpt = typer.Option(
    None, "--game", metavar="NAME|FILE.py:Class", help="Learn another game through the game "
    f"protocol ({BUNDLED_GAMES}, or your FILE.py:Class; docs/games.md) with q-learning, "
    "mc-exploring-starts or counting, and measure the learned policy against the game's exact "
    "solution."
)
GameParamOpt = typer.Option(
    None, "--game-param", metavar="KEY=VALUE", help="A parameter of --game; repeat for more "
    f"({GAME_PARAMS_HELP})."
)


TraceOpt = typer.Option(
    0, "--trace", help="Print the first N games move by move (stderr unless --format text; "
    "the handout's learner only)."
)
ExplainOpt = typer.Option(
    False, "--explain", help="With --trace N: at every move the handout's computation "
    "(WinCount, LoseCount, f_J, B, g, T, every p_J, the draw and the J chosen) and after "
    "each game the counts it updates, with the numbers the learner used. Without --trace: "
    "the first game (--trace 1)."
)
ReplayOpt = typer.Option(
    None, "--replay", metavar="FILE", help="Replay games whose dice FILE gives and print "
    "the handout's computation at every move, as --explain does (nothing is learnt or "
    "saved): one game per line, each roll's faces separated by |, e.g. '3 4 | 1 4 | 2 5 | "
    "3 5 | 1' (A, B, A, ...); a line 'WinCount[2,3,2] = 3' (or LoseCount) sets a count "
    "before the next game; # starts a comment. The game from --sides/--low/--high/--dice, "
    "M from -m."
)
TieBreakOpt = typer.Option(
    None, "--tie-break", help="Best J among equal estimates: lowest (default) or random "
    "(the handout's learner; the same as --param tie_break=...)."
)


def load_run_file(path: Path, game: Any = None) -> "LearnedRun":
    """A saved run of any bundled learner of any game (:func:`dicejack.formats.load_learner_run`,
    which also reads the handout's old layout), read against `game` when given; FormatError (one
    line) when it is not one."""
    from dicejack import formats

    return formats.load_learner_run(path, game)


@app.command(cls=LearnerHelpCommand)
def learn(
    sides: int | None = typer.Option(
        None, "--sides", help="NSides (default 6, or the resumed run's)."
    ),
    low: int | None = typer.Option(None, "--low", help="LTarget (default 15)."),
    high: int | None = typer.Option(None, "--high", help="UTarget (default 17)."),
    dice: int | None = typer.Option(None, "--dice", help="NDice (default 2)."),
    m: float | None = typer.Option(
        None, "-m", "--m", help="M: explore/exploit hyperparameter of the handout's learner, a "
        "float >= 0 (default 100; the same as --param m=M)."
    ),
    games: int = typer.Option(
        100_000, "--games", parser=count_parser("--games"),
        help="NGAMES: games to play in all (with --resume, "
        "the new total), e.g. 100000, 100_000, 100,000 or 1e5; at most 10^12."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Random seed (default 1)."),
    out: Path | None = typer.Option(None, "--out", help="Save the run (.npz, resumable) here."),
    resume: Path | None = typer.Option(
        None, "--resume", help="Continue this saved run (its learner, parameters, game and "
        "seed) to --games games."
    ),
    fmt: LearnFormat = typer.Option(LearnFormat.text, "--format", help="Output format."),
    trace: int = TraceOpt,
    explain: bool = ExplainOpt,
    replay: Path | None = ReplayOpt,
    tie_break: TieBreak | None = TieBreakOpt,
    learner_name: str | None = LearnOpt,
    param: list[str] | None = ParamOpt,
    force: bool = ForceOpt,
    game_spec: str | None = GameOpt,
    game_param: list[str] | None = GameParamOpt,
) -> None:
    """Learn by self-play with the handout's counting learner (or --learner NAME); print the
    two LxL arrays.

    --trace N prints the first N games move by move; --explain adds the handout's formulas with
    the numbers the learner used, to follow its worked example or find where a program differs.
    --learner NAME runs another bundled learner, its parameters set with --param KEY=VALUE
    (listed under Learners below); its printed arrays are the same two (best J, its estimated
    win probability; 0 and -1 where it has no data) under a header naming the learner and its
    parameters, and --out / --resume / Ctrl-C save and resume it the same way.

    Examples: dicejack learn --sides 6 --low 15 --high 17 --dice 2 -m 100 --games 100000;
    dicejack learn --games 1000 --trace 2 --explain;
    dicejack learn --replay my_games.txt -m 4 --dice 3 (your own dice, explained);
    dicejack learn --learner q-learning --param alpha=0.1 --games 100000 --out q.npz;
    dicejack learn --resume q.npz --games 1000000 --out q.npz
    """
    named = {"sides": sides, "low": low, "high": high, "dice": dice}
    if game_spec is not None and (handout := handout_named(game_spec, game_param, named)):
        named, game_spec, game_param = handout, None, None  # the handout's game, as ever
    learner_name = _handout_rule_name(learner_name, game_spec is None and not game_param)
    sizes = {f"--{name}": value for name, value in named.items()}
    opts = _LearnOptions(
        sizes=sizes, m=m,
        tie_break=tie_break.value if tie_break else None, learner=learner_name, param=param,
        games=games, seed=seed, out=out, resume=resume, fmt=fmt, trace=trace, explain=explain,
        force=force)
    handout_options = {**opts.sizes, "-m": m, "--trace": trace or None,
                       "--explain": explain or None, "--replay": replay, "--tie-break": tie_break}
    if game_spec is not None or game_param:
        _learn_game(_GameOptions(game_spec, game_param, learner_name, param, games, seed,
                                 fmt.value, out, resume), handout_options)
    elif resume is not None and replay is None and _resumes_a_game(resume):
        _learn_game(_GameOptions(None, None, learner_name, param, games, seed, fmt.value, out,
                                 resume), handout_options)
    elif learner_name is not None and _other_games_only(learner_name):
        from dicejack.learners.catalogue import NAMES

        raise UsageError(f"--learner {learner_name} learns protocol games other than the "
                         "handout's: give --game NAME (e.g. --game pig); the handout's game "
                         f"has its own: {', '.join(NAMES)} (handout: the counting rule)")
    elif replay is not None:
        _replay(replay, opts.sizes, learner_params("handout", param, m, opts.tie_break),
                {"--out": out, "--resume": resume, "--trace": trace or None,
                 "--learner": None if learner_name in (None, "handout") else learner_name,
                 "--seed": seed})
    else:
        _learn_run(opts)


@dataclass(frozen=True)
class _LearnOptions:
    """The options of `learn` that a learner run uses, as given (None: not given)."""

    sizes: dict[str, int | None]  # --sides, --low, --high, --dice
    m: float | None
    tie_break: str | None
    learner: str | None
    param: list[str] | None
    games: int
    seed: int | None
    out: Path | None
    resume: Path | None
    fmt: "LearnFormat"
    trace: int
    explain: bool
    force: bool


def _learn_run(o: _LearnOptions) -> None:
    """`learn` with any bundled learner, the handout's included: a fresh run or the --resume
    file continued, saved to --out (and on Ctrl-C), printed; --trace / --explain first."""
    from dicejack import formats, learners
    from dicejack.learners.catalogue import learner_class, restore

    _check_counts(o)
    check_out_path(o.out)
    if o.learner is not None:
        learner_class(o.learner)  # an unknown name is an error before any file
    start = _start_run(o)
    name = start.name if start is not None else o.learner or DEFAULT_LEARNER
    params = learner_params(name, o.param, o.m, o.tie_break)
    traced = o.trace or (1 if o.explain else 0)
    if traced and name != "handout":
        raise UsageError(f"--trace and --explain follow the handout learner's games; they do "
                         f"not apply to --learner {name}")
    game = _run_game(o, start, params)
    _confirm_run_outputs(name, game, o.fmt, o.games, o.out, start, o.force)
    if start is not None:
        session = learners.Session(restore(start), start.snapshots)
    else:
        seed = 1 if o.seed is None else o.seed
        session = learners.Session(learners.make(game, name, seed, **params))
    first = (lambda: _show_trace(session, traced, o)) if traced else None
    run = play_saving_on_interrupt(session, o.games, o.out, o.resume, formats.save_learner_run,
                                   first)
    print_run(o.fmt.value, run)


def _handout_rule_name(name: str | None, handout: bool) -> str | None:
    """--learner on the handout's game (`handout`): counting is its learner, handout
    (:data:`dicejack.learners.catalogue.SAME_RULE`); else as given."""
    if name is None or not handout:
        return name
    from dicejack.learners.catalogue import same_rule_name

    return same_rule_name(name, handout=True)


def _other_games_only(name: str) -> bool:
    """True for a learner that plays protocol games but not the handout's (the catalogue's
    learners_for)."""
    from dicejack.games import HandoutGame
    from dicejack.learners.catalogue import GAME_LEARNERS, learners_for

    return name in GAME_LEARNERS and name not in learners_for(HandoutGame())


@dataclass(frozen=True)
class _GameOptions:
    """The options of `learn --game` (a protocol game other than the handout's), as given."""

    spec: str | None  # --game (None: the --resume file's game)
    items: list[str] | None  # --game-param
    learner: str | None
    param: list[str] | None
    games: int
    seed: int | None
    fmt: str
    out: Path | None
    resume: Path | None


def _resumes_a_game(path: Path) -> bool:
    """True when --resume names a run of a protocol game other than the handout's."""
    from dicejack.formats.learner_runs import GAME_RUN_KIND, run_kind

    return run_kind(path) == GAME_RUN_KIND


def _learn_game(o: _GameOptions, handout_options: dict[str, Any]) -> None:
    """`learn --game` (or --resume of such a run): a learner of protocol games to --games games
    on the one path (catalogue, Session under the progress bar, the one run file), then printed
    (learn_output.print_game_run)."""
    from dicejack import formats
    from dicejack.games import enumerate_game
    from dicejack.games import make_game as make_protocol_game
    from dicejack.games.information import is_information_game
    from dicejack.games.registry import parse_game_params
    from dicejack.learners import Session
    from dicejack.learners.catalogue import game_learner_class

    if o.spec is None and o.items:
        raise UsageError("--game-param needs --game NAME")
    given = [k for k, v in handout_options.items() if v is not None]
    if given:
        verb = "does" if len(given) == 1 else "do"
        raise UsageError(f"{', '.join(given)} {verb} not apply to --game (give the game's "
                         "parameters as --game-param KEY=VALUE)")
    if o.games < 0:
        raise UsageError(f"--games must be >= 0, got {o.games}")
    check_out_path(o.out)
    game_items = parse_game_params(o.items)
    game = None if o.spec is None else make_protocol_game(o.spec, game_items)
    if o.resume is not None:  # a saved run of this game, played on (its learner's own)
        start = _resumed_game_run(o, game)
        game = start.game
        learner = start.learner_type.restore(game, start.seed, start.params, start.state)
    else:
        cls = game_learner_class(o.learner or ("cfr" if is_information_game(game)
                                               else "q-learning"), game)
        params = game_learner_params(cls, o.param)
        learner = cls(game, 1 if o.seed is None else o.seed, **params)
    hidden = is_information_game(game)
    space = None if hidden else enumerate_game(game)
    spec = o.spec
    words = "" if spec is None else "".join(
        [f" --game {spec}", *(f" --game-param {item}" for item in o.items or ())])
    run = play_saving_on_interrupt(
        Session(learner), o.games, o.out, o.resume,
        lambda path, done: formats.save_learner_run(
            path, done, spec, None if spec is None else game_items),
        resume_args=words)
    if hidden:
        print_hidden_run(o.fmt, game, run)
    else:
        print_game_run(o.fmt, game, space, run)


def _resumed_game_run(o: _GameOptions, game: Any) -> Any:
    """The --resume run of `game` (None: the file's own game); an error if the command line
    asks for another learner, parameters, seed or fewer games."""
    from dicejack.learners.game_learners import GameRun

    loaded = load_run_file(o.resume, game)
    if not isinstance(loaded, GameRun):
        raise UsageError(f"{o.resume} is a run of the handout's game; resume it without --game")
    if (o.learner is not None and o.learner != loaded.name) or o.param:
        raise UsageError(f"{o.resume} is a run of {loaded.label}; resume it without "
                         "--learner and --param (it keeps its own)")
    if o.seed is not None and o.seed != loaded.seed:
        raise UsageError(f"{o.resume} has seed {loaded.seed}; omit --seed to resume it")
    if o.games < loaded.games:
        raise UsageError(f"{o.resume} already has {loaded.games} games; --games must be >= "
                         "that")
    return loaded


def _check_counts(o: _LearnOptions) -> None:
    """--games and --trace: whole numbers >= 0 within the limits."""
    from dicejack.learners import checks

    if o.games < 0:
        raise UsageError(f"--games must be >= 0, got {o.games}")
    checks.check_games_limit(o.games, "--games")
    if o.trace < 0:
        raise UsageError(f"--trace must be >= 0, got {o.trace}")


def _start_run(o: _LearnOptions) -> "Run | None":
    """The --resume run (None without it); UsageError when --learner names another learner."""
    if o.resume is None:
        return None
    start = load_run_file(o.resume)
    if o.learner is not None and o.learner != start.name:
        raise UsageError(f"{o.resume} is a run of learner {start.name}, not {o.learner}; "
                         "omit --learner to resume it")
    return start


def _run_game(o: _LearnOptions, start: "Run | None", params: dict[str, Any]) -> "Game":
    """The game to learn: the options' (defaults 6, 15, 17, 2), or the resumed run's, which
    the options and parameters must not contradict."""
    from dicejack.learners.base import format_value

    if start is None:
        defaults = {"--sides": 6, "--low": 15, "--high": 17, "--dice": 2}
        return make_game(*(defaults[k] if v is None else v for k, v in o.sizes.items()))
    g = start.game
    has = {"--sides": g.n_sides, "--low": g.low, "--high": g.high, "--dice": g.n_dice,
           "--seed": start.seed}
    given = {**o.sizes, "--seed": o.seed}
    clash = [f"{k} {v}" for k, v in given.items() if v is not None and v != has[k]]
    clash += [f"--param {k}={format_value(v)}" for k, v in params.items()
              if v != start.params.get(k)]
    words = " ".join([start.name, *(f"{k}={format_value(v)}" for k, v in start.params.items())])
    _check_resumable(o.resume, f"{g}, {words}, seed {start.seed}", clash, o.games, start.games)
    return g


def _show_trace(session: Any, games: int, o: _LearnOptions) -> None:
    """The next `games` games of the handout's learner in `session`, move by move (explained
    with --explain), on stdout for --format text, else stderr; the learner is untouched."""
    from dicejack.learners.handout import trace

    learner = session.learner
    start = session.result() if learner.played else None
    shown = min(games, o.games - learner.played)
    traced = trace.trace(learner.game, learner.m, shown, learner.seed,
                         tie_break=learner.tie_break, start=start)
    if o.explain:
        from dicejack.learners.handout.explain import explain_text

        text = explain_text(learner.game, learner.m, traced, tie_break=learner.tie_break)
    else:
        text = trace.trace_text(traced)
    typer.echo(text, err=o.fmt is not LearnFormat.text, nl=False)


def _replay(path: Path, sizes: dict[str, int | None], params: dict[str, Any],
            others: dict[str, Any]) -> None:
    """`learn --replay FILE`: the games of FILE replayed from empty counts (and the counts it
    sets), every move explained on stdout."""
    from dicejack.formats.escape import safe_text
    from dicejack.formats.replay import read_replay
    from dicejack.learners import LearnerError
    from dicejack.learners.handout import explain, trace

    given = [name for name, value in others.items() if value is not None]
    if given:
        verb = "does" if len(given) == 1 else "do"
        raise UsageError(f"--replay prints the handout's computation for the dice in "
                         f"{safe_text(str(path))}; {', '.join(given)} {verb} not apply "
                         "to it")
    if params.get("tie_break", "lowest") != "lowest":
        raise UsageError("--replay breaks ties to the lowest J (the dice are given, nothing is "
                         "drawn); --tie-break random does not apply")
    game = make_game(6 if sizes["--sides"] is None else sizes["--sides"],
                     15 if sizes["--low"] is None else sizes["--low"],
                     17 if sizes["--high"] is None else sizes["--high"],
                     2 if sizes["--dice"] is None else sizes["--dice"])
    m = float(params.get("m", 100.0))
    steps = read_replay(path)
    try:
        traced = trace.replay_script(game, m, steps)
    except LearnerError as exc:
        raise UsageError(f"{safe_text(str(path))} {exc}") from None
    write_output(explain.explain_text(game, m, traced), None)


def _check_resumable(resume: Path | None, run: str, clash: list[str], games: int, played: int
                     ) -> None:
    """Refuse to resume `resume` (described as `run`) when options contradict it (`clash`, as
    the user wrote them) or --games is below the `played` games it already has."""
    if clash:
        raise UsageError(
            f"{resume} is a different run ({run}): {', '.join(clash)} disagrees; omit it to resume"
        )
    if games < played:
        raise UsageError(f"{resume} already has {played} games; --games must be >= that")


def _confirm_run_outputs(name: str, game: "Game", fmt: LearnFormat, games: int,
                         out: Path | None, start: "Run | None", force: bool) -> None:
    """Before playing: the printed tables (the handout's learner prints its counts too) and the
    --out run file (with `start`'s snapshots) go through --force, and the printed tables must
    fit in the memory available (JSON is printed a row at a time)."""
    from dicejack.formats.sizes import (
        check_output_memory,
        learner_run_bytes,
        output_memory_bytes,
        run_bytes,
    )

    printed = run_bytes if name == "handout" else learner_run_bytes
    sizes = [("the printed tables", printed(game, fmt.value, games))]
    if out is not None:
        snapshots = len(start.snapshots) if start is not None else 0
        sizes.insert(0, (str(out), learner_run_bytes(game, "npz", games, snapshots)))
    confirm_large_outputs(sizes, force)
    check_output_memory(
        "the printed tables", output_memory_bytes(sizes[-1][1], fmt.value, streamed=True),
        "--format json prints them a row at a time")
