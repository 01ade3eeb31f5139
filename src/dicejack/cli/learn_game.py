"""`dicejack learn --game`: a learner of protocol games (dicejack.learners.game_session) played
on any small game of :mod:`dicejack.games`, saved and resumed, then measured against the game's
exact solution (dicejack.compare.metrics)."""

from __future__ import annotations

from typing import Any

from dicejack.cli.common import UsageError, check_out_path, write_output
from dicejack.cli.play_session import play_saving_on_interrupt

__all__ = ["learn_protocol_game"]


def _game_run_options(others: dict[str, Any], games: int) -> tuple[Any, Any]:
    """(--out, --resume) of `learn --game`; an error if an option of the handout's game
    (another of `others`) is given or --games is negative."""
    others = dict(others)
    out, resume = others.pop("--out", None), others.pop("--resume", None)
    given = [k for k, v in others.items() if v is not None]
    if given:
        verb = "does" if len(given) == 1 else "do"
        raise UsageError(f"{', '.join(given)} {verb} not apply to --game (give the game's "
                         "parameters as --game-param KEY=VALUE)")
    if games < 0:
        raise UsageError(f"--games must be >= 0, got {games}")
    return out, resume


def _game_learner_params(cls: Any, param: list[str] | None) -> dict[str, Any]:
    """The --param KEY=VALUE items for learner class `cls`, parsed and checked."""
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


def _resumed_game_learner(resume: Any, game: Any, name: str | None, param: list[str] | None,
                          seed: int | None, games: int) -> Any:
    """The learner of a saved run of `game` (formats.game_runs) to play on; an error if the
    command line asks for another learner, parameters, seed or fewer games."""
    from dicejack.formats.game_runs import load_game_run

    loaded = load_game_run(resume, game)
    if (name is not None and name != loaded.name) or param:
        raise UsageError(f"{resume} is a run of {loaded.label}; resume it without "
                         "--learner and --param (it keeps its own)")
    if seed is not None and seed != loaded.seed:
        raise UsageError(f"{resume} has seed {loaded.seed}; omit --seed to resume it")
    if games < loaded.games:
        raise UsageError(f"{resume} already has {loaded.games} games; --games must be >= "
                         "that")
    return loaded.learner_type.restore(game, loaded.seed, loaded.params, loaded.state)


def _game_tables_csv(space: Any, tables: Any) -> str:
    """The learned tables as CSV, one row per state: state, player, best, value, visits."""
    import csv
    import io
    import math

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["state", "player", "best", "value", "visits"])
    for s, state in enumerate(space.states):
        best = space.actions[tables.best[s]] if tables.best[s] >= 0 else ""
        value = "" if math.isnan(tables.value[s]) else repr(float(tables.value[s]))
        writer.writerow([repr(state), int(space.player[s]), best, value,
                         int(tables.visits[s])])
    return buffer.getvalue()


def _game_learned_json(game: Any, run: Any, sol: Any, metrics: dict[str, Any]) -> str:
    """`learn --game --format json`: the game, the run and its metrics against `sol`."""
    from dicejack.formats.json_output import json_text
    from dicejack.solver import generic_output

    doc = {"game": str(game.name),
           "params": {k: generic_output.plain(v)
                      for k, v in generic_output.game_params(game).items()},
           "learner": run.name, "learner_params": dict(run.params), "seed": run.seed,
           "games": run.games, "moves": run.moves, "solution_method": sol.method,
           "solution_residual": sol.residual, "metrics": metrics}
    return json_text(doc, compact=True)


def _game_learned_text(game: Any, run: Any, sol: Any, metrics: dict[str, Any]) -> str:
    """`learn --game` as text: the run, then one line per metric against `sol`."""
    from dicejack.games.protocol import game_label

    lines = [f"# learned by self-play with {run.label}: {game_label(game)}",
             f"moves {run.moves:,}; states with data {metrics['states_with_data']:,} of "
             f"{metrics['states']:,}",
             f"against the exact solution ({sol.method}, residual {sol.residual:.2g}):"]
    for key, value in metrics.items():
        if key in ("states", "states_with_data"):
            continue
        shown = f"{value:,}" if isinstance(value, int) else f"{value:.6f}"
        lines.append(f"  {key:<20} {shown}")
    return "\n".join(lines) + "\n"


def learn_protocol_game(spec: str | None, items: list[str] | None, name: str | None,
                        param: list[str] | None, games: int, seed: int | None,
                        fmt: str, others: dict[str, Any]) -> None:
    """`learn --game`: a learner of protocol games (dicejack.learners.game_session) to --games
    games, then the learned policy against the exact solution (dicejack.compare.metrics)
    as text or JSON, or the learned tables as CSV (one row per state); `fmt`: text, json or
    csv."""
    from dicejack import solver
    from dicejack.compare import metrics as compare_metrics
    from dicejack.formats.game_runs import save_game_run
    from dicejack.games import enumerate_game, make_game
    from dicejack.games.registry import parse_game_params
    from dicejack.learners.game_session import GameSession, game_learner_class

    if spec is None:
        raise UsageError("--game-param needs --game NAME")
    out, resume = _game_run_options(others, games)
    cls = game_learner_class(name or "q-learning")
    params = _game_learner_params(cls, param)
    check_out_path(out)
    game_items = parse_game_params(items)
    game = make_game(spec, game_items)
    space = enumerate_game(game)
    if resume is not None:  # a saved run of this game (formats.game_runs), played on
        learner = _resumed_game_learner(resume, game, name, param, seed, games)
    else:
        learner = cls(game, 1 if seed is None else seed, **params)
    words = [f" --game {spec}", *(f" --game-param {item}" for item in items or ())]
    run = play_saving_on_interrupt(
        GameSession(learner), games, out, resume,
        lambda path, done: save_game_run(path, done, spec, game_items),
        resume_args="".join(words))
    tables = run.final
    if fmt == "csv":
        write_output(_game_tables_csv(space, tables), None)
        return
    sol = solver.solve(space)
    metrics = compare_metrics.learned_metrics(sol, tables.best, tables.value)
    if fmt == "json":
        write_output(_game_learned_json(game, run, sol, metrics), None)
        return
    write_output(_game_learned_text(game, run, sol, metrics), None)
