"""What `dicejack learn` prints of a finished run, of any game: the handout's game's tables as
text, JSON or CSV (:func:`dicejack.formats.tables.run_text` and its twins), and another protocol
game's learned policy measured against the game's exact solution (text, JSON) or its learned
tables, one row per state (CSV)."""

from __future__ import annotations

import sys
from typing import Any

from dicejack.cli.common import formatted, write_output

__all__ = ["print_run", "print_game_run", "print_hidden_run"]


def print_run(fmt: str, run: Any) -> None:
    """Print the handout's game's learned tables as `fmt` asks (text, json, csv: the handout's
    learner in its own layout); JSON streamed a row at a time (a large game's JSON never needs
    many times its size in memory)."""
    from dicejack.formats.json_output import write_json
    from dicejack.formats.tables import run_csv, run_dict, run_text

    if fmt == "json":
        write_json(run_dict(run), sys.stdout)
        sys.stdout.flush()
        return
    write_output(formatted(fmt, run, run_text, run_dict, run_csv), None)


def print_game_run(fmt: str, game: Any, space: Any, run: Any) -> None:
    """Print a protocol game's run: the learned tables as CSV (one row per state), or the
    learned policy against the exact solution (dicejack.compare.metrics) as text or JSON."""
    from dicejack import solver
    from dicejack.compare import metrics as compare_metrics

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


def print_hidden_run(fmt: str, game: Any, run: Any) -> None:
    """A game with hidden information (Kuhn poker): the learned average policy's exact
    exploitability (OpenSpiel's convention) beside the game's value by the sequence form, as
    text or JSON; CSV is its policy, one row per decision key and action."""
    from dicejack import solver
    from dicejack.formats.json_output import json_text
    from dicejack.games.protocol import game_label
    from dicejack.solver.information_policies import exploitability

    policy = run.final.policy()
    if fmt == "csv":
        rows = ["key,action,probability"] + [f"{key},{action},{p!r}"
                                              for key, acts in policy.items()
                                              for action, p in acts.items()]
        write_output("\n".join(rows) + "\n", None)
        return
    sol = solver.solve(game)
    gap = exploitability(game, policy)
    if fmt == "json":
        write_output(json_text({"game": str(game.name), "learner": run.name,
                                "learner_params": dict(run.params), "seed": run.seed,
                                "games": run.games, "game_value": sol.value,
                                "exploitability": gap, "policy": policy}, compact=True), None)
        return
    value = f"{sol.value:.12g}" + ("" if sol.exact_value is None else f" ({sol.exact_value})")
    write_output(f"# learned by self-play with {run.label}: {game_label(game)}\n"
                 f"iterations {run.games:,}; decision keys {len(policy):,}\n"
                 f"game value (sequence form): {value}\n"
                 f"exploitability of the average policy: {gap:.6g}\n", None)
