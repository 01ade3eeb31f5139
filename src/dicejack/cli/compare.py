"""`dicejack compare`: learned tables (a run file or printed text) against the exact solution."""

import contextlib
import dataclasses
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from dicejack import formats
from dicejack.cli.common import (
    BUNDLED_GAMES,
    UsageError,
    app,
    count_parser,
    game_learner_params,
    handout_named,
    write_output,
)
from dicejack.cli.learn import (
    GameParamOpt,
    LearnerHelpCommand,
    ParamOpt,
    learner_or_game_learner,
    learner_params,
    load_run_file,
)
from dicejack.runtime.messages import one_line

if TYPE_CHECKING:
    from dicejack.games.handout_rules import Game


class CompareFormat(str, Enum):
    text = "text"
    json = "json"


def _game_from_options(
    given: dict[str, int | None], fallback: "Game | None"
) -> "Game | None":
    """The game named by --sides/--low/--high/--dice; unnamed ones come from `fallback` (or the
    handout's game); None when no option was given and there is no fallback."""
    from dicejack.games.handout_rules import HANDOUT_GAME, Game

    if all(v is None for v in given.values()) and fallback is None:
        return None
    base = (fallback or HANDOUT_GAME).params()
    names = {"sides": "n_sides", "low": "low", "high": "high", "dice": "n_dice"}
    return Game(**{names[k]: (base[names[k]] if v is None else v) for k, v in given.items()})


def _read_text_tables(
    path: Path, given: dict[str, int | None]
) -> "tuple[Game, object, object]":
    """The two printed arrays of a text file, as (game, a compare.learned.Learned, a
    formats.Submission).

    Any layout `formats.read_submission` understands (dicejack's own text output and what student
    programs print). A 'NSides=.. LTarget=.. UTarget=.. NDice=..' header, as `dicejack learn`
    prints, names the game; otherwise the options (or the handout's game) do. Tables of another
    size give an error that names the LTarget they fit.
    """
    from dicejack import compare as cmp
    from dicejack.compare.hints import size_hint
    from dicejack.formats.submission import find_table_size
    from dicejack.formats.tables import read_params_header
    from dicejack.games.handout_rules import HANDOUT_GAME, Game

    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        raise cmp.CompareError(f"cannot read {path}: {exc.strerror or exc}") from None
    header = read_params_header(text)
    file_game = Game(**header) if header else None
    game = _game_from_options(given, file_game) or HANDOUT_GAME
    if file_game is not None and game != file_game:
        raise cmp.CompareError(f"{path} holds tables for {file_game}, not {game}")
    try:
        sub = formats.read_submission(path, game.low, game.n_dice)
    except formats.FormatError as exc:
        hint = size_hint(game, find_table_size(text, game.n_dice))
        raise cmp.CompareError(
            f"cannot read two {game.low}x{game.low} tables from {path}: {exc}"
            + (f"; {hint}" if hint else "")
        ) from None
    learned = cmp.learned_from_tables(
        game, sub.policy, sub.probability, no_data=sub.no_data, source=str(path)
    )
    return game, learned, sub


def _check_input_file(path: Path) -> None:
    """A regular file to read, or a one-line error saying what `path` is instead (only stat()ed:
    a FIFO is never opened, since opening one waits for a writer)."""
    import os
    import stat

    from dicejack import compare as cmp

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise cmp.CompareError(f"cannot read {path}: no such file") from None
    except OSError as exc:
        raise cmp.CompareError(f"cannot read {path}: {exc.strerror or one_line(exc)}") from None
    if stat.S_ISDIR(mode):
        raise cmp.CompareError(f"cannot read {path}: it is a folder, not a file")
    if not stat.S_ISREG(mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file")
        raise cmp.CompareError(f"cannot read {path}: it is {kind}, not a regular file")


# compare's arguments and options (module constants keep compare_cmd short).
_SOURCE_ARG = typer.Argument(
    None, metavar="[SOURCE]", help="A learner run (.npz from `dicejack learn --out`, any "
    "learner) or a text file with the two printed LxL arrays (best number of dice, then win "
    "probability; -1 = no data). Without it: --learner."
)
_SIDES_OPT = typer.Option(
    None, "--sides", help="NSides, for text tables (a run file carries its game). Default 6."
)
_LOW_OPT = typer.Option(None, "--low", help="LTarget, for text tables. Default 15.")
_HIGH_OPT = typer.Option(None, "--high", help="UTarget, for text tables. Default 17.")
_DICE_OPT = typer.Option(None, "--dice", help="NDice, for text tables. Default 2.")
_FMT_OPT = typer.Option(CompareFormat.text, "--format", help="Output format.")
_LEARNER_NAME_OPT = typer.Option(
    None, "--learner", metavar="NAME", parser=learner_or_game_learner,
    help="Instead of SOURCE: learn with this learner "
    "(handout, q-learning, mc-epsilon, ucb, thompson; listed under Learners below) on the "
    "game of --sides/--low/--high/--dice, then compare. With --game: q-learning, "
    "mc-exploring-starts or counting; with --game kuhn or deck-duel: cfr."
)
_M_OPT = typer.Option(
    None, "-m", "--m", help="With --learner handout: M (default 100; = --param m=M)."
)
_GAMES_OPT = typer.Option(
    None, "--games", parser=count_parser("--games"),
    help="With --learner: games of self-play (default "
    "100000; 1e5 and 100_000 work too)."
)
_SEED_OPT = typer.Option(None, "--seed", help="With --learner: seed (default 1).")
_POLICY_OPT = typer.Option(
    None, "--policy", metavar="MODULE:NAME", help="Instead of SOURCE: a policy in Python. "
    "NAME in MODULE (a module importable from the current folder, or a file.py) is a "
    "callable (x, y) -> J (x the mover's score, y the opponent's; J 1..NDice) or a policy "
    "object (a table of J, an OpenSpiel policy); compared on the game of "
    "--sides/--low/--high/--dice, with no estimates (probability metrics n/a). "
    "E.g. --policy my_agent:policy or --policy agent.py:choose. J counts from 1: a policy "
    "that plays 0 is refused, unless --zero-based."
)
_ZERO_BASED_OPT = typer.Option(
    False, "--zero-based", help="With --policy: the policy gives actions 0..NDice-1 "
    "(J = action + 1), as PettingZoo, OpenSpiel and most RL code number them."
)
_GAME_SPEC_OPT = typer.Option(
    None, "--game", metavar="NAME|FILE.py:Class", help=f"A protocol game ({BUNDLED_GAMES}, "
    "or your FILE.py:Class; docs/games.md): SOURCE is then a run of it "
    "(`dicejack learn --game ... --out run.npz`), or --learner learns one; compared with "
    "the game's exact solution (agreement, value error, the learned policy's exact value, "
    "exploitability; kuhn and deck-duel, hidden information: exploitability, NashConv and "
    "the payoff in each seat against the exact equilibrium). --game handout is the command without "
    "--game (its parameters by --game-param or --sides --low --high --dice)."
)


@app.command("compare", cls=LearnerHelpCommand)
def compare_cmd(
    source: Path | None = _SOURCE_ARG,
    sides: int | None = _SIDES_OPT,
    low: int | None = _LOW_OPT,
    high: int | None = _HIGH_OPT,
    dice: int | None = _DICE_OPT,
    fmt: CompareFormat = _FMT_OPT,
    learner_name: str | None = _LEARNER_NAME_OPT,
    param: list[str] | None = ParamOpt,
    m: float | None = _M_OPT,
    games: int | None = _GAMES_OPT,
    seed: int | None = _SEED_OPT,
    policy: str | None = _POLICY_OPT,
    zero_based: bool = _ZERO_BASED_OPT,
    game_spec: str | None = _GAME_SPEC_OPT,
    game_param: list[str] | None = GameParamOpt,
) -> None:
    """Compare learned tables with the exact solution.

    Prints every metric (docs/design/metrics.md), then the decisive states where the learned
    policy is wrong, worst regret first. For text tables, a hint on stderr when they look
    transposed or their J 0-based, and an error naming the LTarget they fit when they are
    another size.
    Without SOURCE, --learner NAME [--param KEY=VALUE ...] --games N --seed S learns first
    (nothing saved) and compares the run.

    Examples: dicejack learn -m 100 --games 100000 --out run.npz && dicejack compare run.npz;
    dicejack compare TABLES.txt --sides 6 --low 15 --high 17 --dice 2 --format json;
    dicejack compare --learner ucb --param c=0.5 --games 100000 --seed 1;
    dicejack compare --policy agent.py:choose --sides 4 --low 8 --high 9
    """
    from dicejack import compare as cmp
    from dicejack.compare.hints import table_hints
    from dicejack.formats.json_output import json_text

    given = {"sides": sides, "low": low, "high": high, "dice": dice}
    learning = {"--param": param or None, "-m": m, "--games": games, "--seed": seed}
    if game_spec is not None or game_param:
        named = None if game_spec is None else handout_named(game_spec, game_param, given)
        if named is None:  # another game; --game handout is the command without --game
            _compare_game(source, game_spec, game_param, learner_name, param, games, seed,
                          fmt, {"--sides": sides, "--low": low, "--high": high, "--dice": dice,
                                "-m": m, "--policy": policy, "--zero-based": zero_based or None})
            return
        given = named
    learner_name = _handout_learner(learner_name, game_spec)
    sub = None
    if sum(x is not None for x in (source, learner_name, policy)) > 1:
        raise UsageError("give one of SOURCE, --learner NAME or --policy MODULE:NAME: SOURCE is "
                         "compared as it is, --learner learns a new run, --policy asks a policy")
    if zero_based and policy is None:
        raise UsageError("--zero-based: only with --policy (it says how the policy numbers J)")
    if policy is not None:
        extra = [k for k, v in learning.items() if v is not None]
        if extra:
            raise UsageError(f"{', '.join(extra)}: only with --learner, not with --policy")
        from dicejack.games.handout_rules import HANDOUT_GAME

        game = _game_from_options(given, None) or HANDOUT_GAME
        learned = _policy_learned(game, policy, zero_based)
    elif learner_name is not None:
        game, learned = _learn_for_compare(learner_name, param, m, games, seed, given)
    elif source is None:
        raise UsageError("give SOURCE (a run file or printed tables), --learner NAME to learn "
                         "a run, or --policy MODULE:NAME, and compare it")
    else:
        game, learned, sub = _learned_from_source(source, given, learning)
    truth = cmp.truth(game)
    result = cmp.compare(game, truth, learned, hints=False)
    if fmt is CompareFormat.json:
        write_output(json_text(result.as_dict()), None)
    else:
        write_output(cmp.format_comparison(result, more="--format json"), None)
    if sub is not None:
        hints = table_hints(truth, sub.policy, sub.probability, no_data=sub.no_data)
        for line in hints.messages(game.n_dice):
            typer.echo(f"hint: {line}", err=True)


def _handout_learner(name: str | None, spec: str | None) -> str | None:
    """--learner on the handout's game: one of its learners (the others learn other games;
    counting is its learner, handout: :data:`dicejack.learners.catalogue.SAME_RULE`)."""
    from dicejack import learners
    from dicejack.learners.catalogue import same_rule_name

    name = None if name is None else same_rule_name(name, handout=True)
    if name is not None and name not in learners.NAMES:
        where = "other protocol games" if spec is not None else "protocol games"
        raise UsageError(f"--learner {name} learns {where}: give --game NAME (e.g. --game pig)")
    return name


def _learned_from_source(source: Path, given: dict[str, int | None],
                         learning: dict[str, Any]) -> "tuple[Game, object, object]":
    """(game, learned, text tables or None) of compare's SOURCE: a run file (.npz) or
    printed tables; an error if a learning option (`learning`) is given with it."""
    from dicejack import compare as cmp

    extra = [k for k, v in learning.items() if v is not None]
    if extra:
        raise UsageError(f"{', '.join(extra)}: only with --learner (to learn a run), not "
                         "with SOURCE")
    _check_input_file(source)
    if source.suffix.lower() == ".npz":
        run = load_run_file(source)
        _check_handout_run(source, run.game)
        game = _game_from_options(given, run.game)
        if game != run.game:
            raise cmp.CompareError(f"{source} is a run of {run.game}, not of {game}")
        from_run = cmp.as_learned(game, run)  # labelled by the run: learner, seed, games
        learned = dataclasses.replace(from_run, source=f"{source}: {from_run.source}")
        return game, learned, None
    return _read_text_tables(source, given)


def _check_handout_run(source: Path, game: object) -> None:
    """UsageError naming the --game options when `source` is a run of another game than the
    handout's (compare without --game measures the handout's game)."""
    from dicejack.games.handout_rules import Game
    from dicejack.games.protocol import game_label

    if isinstance(game, Game):
        return
    name, *params = game_label(game).split()
    options = " ".join([f"--game {name}", *(f"--game-param {p}" for p in params if "=" in p)])
    raise UsageError(f"{source} is a run of {game_label(game)}, not of the handout's game: "
                     f"compare it with {options}")


def _policy_learned(game: "Game", spec: str, zero_based: bool) -> object:
    """The policy of `spec` as a compare.learned.Learned; a 0-based policy's refusal names
    --zero-based (the library's names its own argument)."""
    from dicejack import compare as cmp
    from dicejack import solver

    obj = _load_policy(spec)
    if hasattr(obj, "action_probabilities"):  # an OpenSpiel policy: its bridge reads it
        with contextlib.suppress(ImportError):  # (without OpenSpiel, compare says what to do)
            import dicejack.envs.openspiel  # noqa: F401
    try:
        return cmp.learned_from_policy(game, obj, zero_based=zero_based, source=spec)
    except cmp.CompareError as exc:
        if isinstance(exc.__cause__, solver.ZeroBasedError):
            raise cmp.CompareError(str(exc.__cause__.saying("add --zero-based"))) from None
        raise


def _load_policy(spec: str) -> object:
    """The object NAME of `spec` = MODULE:NAME (a module importable from the current folder, or
    a path to a .py file); its import runs the user's own code, as asked."""
    from dicejack.runtime import user_code

    return user_code.load_object(spec, "--policy")


def _learn_for_compare(
    name: str,
    items: list[str] | None,
    m: float | None,
    games: int | None,
    seed: int | None,
    given: dict[str, int | None],
) -> "tuple[Game, object]":
    """(game, run): `name` with its parameters learned for `compare --learner` (progress bar on
    stderr; Ctrl-C stops it, nothing is saved)."""
    from dicejack import learners
    from dicejack.games.handout_rules import HANDOUT_GAME
    from dicejack.learners import checks
    from dicejack.runtime import parallel

    games = 100_000 if games is None else games
    if games < 0:
        raise UsageError(f"--games must be >= 0, got {games}")
    checks.check_games_limit(games, "--games")
    params = learner_params(name, items, m, None)
    game = _game_from_options(given, None) or HANDOUT_GAME
    update, close = parallel.games_progress_bar(games, 0)
    try:
        run = learners.learn(game, name, games, 1 if seed is None else seed, progress=update,
                             chunk_seconds=0.25, **params)
    finally:
        close()
    return game, run


def _compare_game(source: Path | None, spec: str | None, items: list[str] | None,
                  name: str | None, param: list[str] | None, games: int | None,
                  seed: int | None, fmt: CompareFormat, others: dict[str, object]) -> None:
    """`compare --game`: a saved run of a protocol game (formats.learner_runs), or a run learned
    now with --learner, against the game's exact solution (compare.metrics; for a game with
    hidden information its equilibrium by the sequence form, compare.hidden_information)."""
    from dicejack import solver
    from dicejack.compare.hidden_information import compare_hidden
    from dicejack.compare.metrics import compare_game
    from dicejack.formats.json_output import json_text
    from dicejack.formats.learner_runs import load_learner_run as load_game_run
    from dicejack.games import enumerate_game, make_game
    from dicejack.games.information import is_information_game
    from dicejack.games.protocol import game_label
    from dicejack.games.registry import parse_game_params
    from dicejack.learners import checks
    from dicejack.learners.catalogue import game_learner_class
    from dicejack.learners.harness import Session as GameSession
    from dicejack.runtime import parallel

    if spec is None:
        raise UsageError("--game-param needs --game NAME")
    given = [k for k, v in others.items() if v is not None]
    if given:
        verb = "does" if len(given) == 1 else "do"
        raise UsageError(f"{', '.join(given)} {verb} not apply to --game (give the game's "
                         "parameters as --game-param KEY=VALUE)")
    if (source is None) == (name is None):
        raise UsageError("with --game, give SOURCE (a run of the game, from `dicejack learn "
                         "--game ... --out run.npz`) or --learner NAME to learn one, not both")
    game = make_game(spec, parse_game_params(items))
    hidden = is_information_game(game)
    space = None if hidden else enumerate_game(game)
    if source is not None:
        extra = [k for k, v in {"--param": param or None, "--games": games, "--seed": seed
                                }.items() if v is not None]
        if extra:
            raise UsageError(f"{', '.join(extra)}: only with --learner (to learn a run), not "
                             "with SOURCE")
        _check_input_file(source)
        run = load_game_run(source, game)
        label = f"{source}: {run.label}"
    else:
        cls = game_learner_class(name, game)
        params = game_learner_params(cls, param)
        games = 100_000 if games is None else games
        if games < 0:
            raise UsageError(f"--games must be >= 0, got {games}")
        checks.check_games_limit(games, "--games")
        update, close = parallel.games_progress_bar(games, 0)
        try:
            run = GameSession(cls(game, 1 if seed is None else seed, **params)).run_to(
                games, progress=update, chunk_seconds=0.25)
        finally:
            close()
        label = f"{run.label} (learned now, not saved): {game_label(game)}"
    result = (compare_hidden(solver.solve(game), run.final.policy(), label) if hidden
              else compare_game(solver.solve(space), run.final, label))
    if fmt is CompareFormat.json:
        write_output(json_text(result.as_dict()), None)
    else:
        write_output(result.text(), None)
