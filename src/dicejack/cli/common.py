"""What every command shares: the typer app, the game options, output helpers, UsageError.

Help is click's plain text (``rich_markup_mode=None``): what a help string says is what the
user sees (Rich markup would swallow ``pip install 'dicejack[cluster]'``), flags show as flags
and ``-m`` as ``-m, --m``, whatever typer version draws it. Outputs over
:data:`LARGE_OUTPUT_BYTES` need ``--force`` (or a yes at a terminal), asked before the work;
outputs over :data:`ANNOUNCED_OUTPUT_BYTES` are announced with their size before the work.
"""

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from typer.core import TyperGroup

from dicejack.runtime.messages import DicejackError

if TYPE_CHECKING:
    from dicejack.games.handout_rules import Game

#: The commands in the order the README introduces them; `dicejack --help` lists them so.
COMMAND_ORDER = ("solve", "learn", "compare", "report", "grade")

#: The bundled games of `--game` as the help says them, and each one's --game-param keys
#: (written here: importing dicejack.games loads numpy, which --help never does;
#: tests/cli/test_cli_games.py holds them to dicejack.games.registry's games).
BUNDLED_GAMES = "handout, pig, piglet, pig-reset, peeking-blackjack, yamslam, kuhn, deck-duel"
GAME_PARAMS_HELP = ("handout: sides, low, high, dice; pig: goal, die; piglet: goal; "
                    "pig-reset: goal, die; "
                    "peeking-blackjack: card_values, multiplicity, threshold, peek_cost; "
                    "yamslam: rerolls; kuhn: ante, bet; "
                    "deck-duel: counts, hand_size, rounds, passing")


def _no_type(*_args: Any, **_kw: Any) -> None:
    """No type after an argument's name in its help (see :meth:`_Commands.get_command`)."""


class _Commands(TyperGroup):
    """The root command group: its commands in :data:`COMMAND_ORDER` (any other after them),
    each with the whole first sentence of its help (click cuts it to fit the line, mid-word:
    "...(or...")."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(self.commands)
        return sorted(names, key=lambda n: (COMMAND_ORDER.index(n) if n in COMMAND_ORDER
                                            else len(COMMAND_ORDER), names.index(n)))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The command, its arguments given a metavar shown by it alone: typer writes every
        argument's Python type after its name (``SUBMISSION <list[Path]>``), which says nothing
        to the user; the metavar (e.g. ``SUBMISSION...``) says it all."""
        cmd = super().get_command(ctx, cmd_name)
        for param in getattr(cmd, "params", ()):
            if param.param_type_name == "argument" and param.metavar:
                param.display_type_rich = _no_type
        return cmd

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


app = typer.Typer(
    name="dicejack",
    cls=_Commands,
    help=(
        "An exact solver beside the handout's counting learner for the two-player dice game "
        "(NSides, LTarget, UTarget, NDice).\n\n"
        "Example: dicejack solve --sides 6 --low 15 --high 17 --dice 2"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120},
)


class UsageError(DicejackError):
    """A command-line usage problem found after parsing (e.g. an option that needs another)."""


# Shared option definitions: the game's four parameters, with the handout's names in help text.
def count_parser(option: str) -> Callable[[str], int]:
    """The parser of a count option: a count as people write it (100000, 100_000, 100,000,
    1e5), read by :func:`dicejack.formats.numbers.parse_count`, the same for every command; anything
    else is a one-line error naming `option` (exit 2)."""
    def parse(value: str | int) -> int:
        from dicejack.formats.numbers import parse_count

        return parse_count(value, option)

    return parse


def learner_name(value: str) -> str:
    """The parser of --learner: a bundled learner's name in any case or spelling of its
    separators (:func:`dicejack.learners.catalogue.canonical_name`); a slip gets "did you mean"."""
    from dicejack import learners
    from dicejack.learners.catalogue import canonical_name

    try:
        return canonical_name(value)
    except learners.LearnerError as exc:  # a ValueError, which click would reword
        raise UsageError(str(exc)) from None


SidesOpt = typer.Option(6, "--sides", help="NSides: faces of each die, numbered 1..NSides.")
LowOpt = typer.Option(15, "--low", help="LTarget: lowest winning score.")
HighOpt = typer.Option(17, "--high", help="UTarget: highest winning score.")
DiceOpt = typer.Option(2, "--dice", help="NDice: most dice a player may roll per turn.")
# Where learner runs go (report, grade): a local process pool, in-process, or a Dask cluster.
WorkersOpt = typer.Option(
    None, "--workers", help="Local worker processes for the learner runs (1 = in-process; "
    "default: CPU count, or in-process when the work is small)."
)
DaskOpt = typer.Option(
    None, "--dask", help="Run the learner runs on a Dask cluster instead, e.g. tcp://host:8786 "
    "(pip install 'dicejack[cluster]'; the workers need dicejack installed too)."
)


def make_game(sides: int, low: int, high: int, dice: int) -> "Game":
    """Build a validated Game from CLI options (errors surface as one-line messages)."""
    from dicejack.games.handout_rules import Game

    return Game(n_sides=sides, low=low, high=high, n_dice=dice)


def write_output(text: str | bytes, out: Path | None) -> None:
    """Print text to stdout, or write it atomically to `out`."""
    from dicejack.formats import write_atomic

    if out is None:
        if isinstance(text, bytes):
            raise UsageError("binary output needs --out PATH")
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
        return
    write_atomic(out, text)
    typer.echo(f"wrote {out}", err=True)


_T = TypeVar("_T")


def formatted(fmt: str, value: _T, text: "Callable[[_T], str]", as_dict: "Callable[[_T], Any]",
              as_csv: "Callable[[_T], str]") -> str:
    """`value` as --format `fmt` asks (text, json or csv) for solve and learn: `text(value)`,
    the compact JSON of `as_dict(value)` (:func:`dicejack.formats.json_text`), or
    `as_csv(value)`."""
    if fmt == "json":
        from dicejack.formats.json_output import json_text

        return json_text(as_dict(value), compact=True)
    return {"text": text, "csv": as_csv}[fmt](value)


def _print_version(value: bool) -> None:
    if value:
        from dicejack import __version__

        typer.echo(f"dicejack {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True,
        help="Print dicejack's version and exit.",
    ),
) -> None:
    """Keep `dicejack COMMAND` a command group even while it has a single command."""


#: Outputs estimated above this size need --force (or a yes at a terminal prompt).
LARGE_OUTPUT_BYTES = 2**30
#: Outputs estimated above this size are announced with their size on stderr before the work,
#: --force or not: a big file never appears unannounced.
ANNOUNCED_OUTPUT_BYTES = 100 * 2**20

ForceOpt = typer.Option(
    False, "--force", help="Write outputs over 1 GiB without asking (otherwise: a y/N question "
    "at a terminal, an error elsewhere)."
)


def size_text(size: float) -> str:
    """A byte count for the user: '950 MiB', '3.2 GiB'."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{int(size)} bytes"


def _interactive() -> bool:
    """True when a question can be asked: stdin and stderr are both terminals."""
    try:
        return bool(sys.stdin and sys.stdin.isatty() and sys.stderr and sys.stderr.isatty())
    except (AttributeError, ValueError):  # no stdin at all, or a closed one
        return False


def confirm_large_outputs(outputs: "list[tuple[str, int]]", force: bool) -> None:
    """Before the work: every (what, estimated bytes) over LARGE_OUTPUT_BYTES needs `force`.

    At a terminal (stdin and stderr both one) the user is asked y/N; elsewhere, or on no, a
    one-line UsageError names the sizes and --force. Every output over
    :data:`ANNOUNCED_OUTPUT_BYTES` that is going to be written is announced first, with its
    size, on stderr (``note: writing big.npz: up to 1.8 GiB``), with --force too.
    """
    large = [(what, size) for what, size in outputs if size > LARGE_OUTPUT_BYTES]
    announced = [(what, size) for what, size in outputs
                 if size > min(ANNOUNCED_OUTPUT_BYTES, LARGE_OUTPUT_BYTES)]

    def announce() -> None:
        if announced:
            listed = " and ".join(f"{what}: up to {size_text(size)}" for what, size in announced)
            typer.echo(f"note: writing {listed}", err=True)

    if force or not large:
        announce()
        return
    said = " and ".join(f"{what} would take up to {size_text(size)}" for what, size in large)
    limit = size_text(LARGE_OUTPUT_BYTES)
    if _interactive():
        sys.stderr.write(f"{said} (over {limit}). Write it? [y/N] ")
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().lower()
        if answer in ("y", "yes"):
            announce()
            return
        raise UsageError(f"not written: {said}; add --force to write it without asking")
    raise UsageError(f"{said}, over {limit}; add --force to write it")


def free_path(name: str) -> Path:
    """`name` in the current folder, or name-2, name-3, ... if it exists."""
    path = Path(name)
    n = 2
    while path.exists():
        path = Path(f"{Path(name).stem}-{n}{Path(name).suffix}")
        n += 1
    return path


def check_out_path(out: Path | None) -> None:
    """Fail before the work, not after it, when --out cannot be written: a folder, a missing or
    read-only folder, or something other than a regular file (a FIFO, a device)."""
    import os

    from dicejack.formats.atomic import check_output_file

    if out is None:
        return
    check_output_file(out, option="--out")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"cannot write {out}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {out}: folder {folder} is not writable")


#: The handout's own options, in the order of its game's parameters.
HANDOUT_OPTIONS = ("sides", "low", "high", "dice")


def handout_named(spec: str, items: list[str] | None,
                  given: dict[str, int | None]) -> dict[str, int | None] | None:
    """``--game NAME`` when NAME is the handout's game (``--game handout``, the default game):
    its options (sides, low, high, dice -> a value, None where not set) as the command without
    --game would have them, set by --game-param KEY=VALUE or by the handout's own options as
    given (`given`, None where not given; both: UsageError). None when NAME is another game.
    Every command that takes --game turns ``--game handout`` into itself without --game so
    (solve, compare): the same engines, byte for byte the same output."""
    from dicejack.games import make_game as make_protocol_game
    from dicejack.games.handout import HandoutGame
    from dicejack.games.registry import parse_game_params

    params = parse_game_params(items)
    if not isinstance(make_protocol_game(spec, params), HandoutGame):
        return None
    set_ = [f"--{name}" for name in HANDOUT_OPTIONS if given.get(name) is not None]
    if set_ and params:
        raise UsageError(f"{', '.join(set_)} and --game-param both set the handout's game; "
                         "give one of them")
    if params:
        return {name: params.get(name) for name in HANDOUT_OPTIONS}
    return {name: given.get(name) for name in HANDOUT_OPTIONS}


def game_learner_params(cls: Any, param: list[str] | None) -> dict[str, Any]:
    """The --param KEY=VALUE items for a learner class `cls` of protocol games (its `PARAMS`),
    parsed and checked: learn's and compare's."""
    params = {}
    specs = {p.name: p for p in cls.PARAMS}
    for item in param or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in specs:
            raise UsageError(f"--param {item!r}: {cls.NAME} takes KEY=VALUE with KEY one of "
                             f"{', '.join(specs)}")
        params[key] = specs[key].parse(cls.NAME, value)
    return params
