"""The deck divide-the-dollar study's report (:func:`deck_report`): README.md, runs.csv and the
figures' arguments from :func:`dicejack.report.studies_deck.deck_study`'s numbers. Nothing in
them varies between runs (the CPU time quoted is :data:`DEFAULT_CPU_SECONDS`, measured once for
the default settings)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from dicejack.games.deck_dollar import TRUE_STATE_INDEX
from dicejack.report.studies_deck import SERIES, DeckStudy
from dicejack.solver.deck_fsm_evaluation import FsmPlayer

__all__ = ["deck_report", "DEFAULT_CPU_SECONDS", "observation_label", "interval"]

#: CPU-seconds of the default run (``/usr/bin/time``, user + system; 2 shared cores), quoted in
#: the README of the default settings only.
DEFAULT_CPU_SECONDS: int | None = 1_190

_CARD = ("¼", "½", "¾", "lead")
_ACTION = "SML"


def observation_label(obs: int) -> str:
    """An observation as the study writes it: card showing (or "lead"); smallest, median,
    largest."""
    flat = TRUE_STATE_INDEX.index(obs)
    showing, rest = divmod(flat, 27)
    small, rest = divmod(rest, 9)
    med, large = divmod(rest, 3)
    return f"{_CARD[showing]}: {_CARD[small]} {_CARD[med]} {_CARD[large]}"


def interval(values: Any) -> tuple[float, float, float]:
    """(mean, low, high): the mean over seeds and its 95% Student-t interval (one seed: the
    value thrice)."""
    a = np.asarray(values, dtype=np.float64)
    mean = float(a.mean())
    if a.size < 2:
        return mean, mean, mean
    half = float(stats.t.ppf(0.975, a.size - 1) * a.std(ddof=1) / np.sqrt(a.size))
    return mean, mean - half, mean + half


def _ci(values: Any, digits: int = 4) -> str:
    mean, low, high = interval(values)
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _grid(setting: dict[str, Any], series: str, key: str, cfg: DeckStudy) -> np.ndarray:
    """One series' `key` per seed (rows) and checkpoint (columns)."""
    rows = {(r["seed"], r["games"]): r[key] for r in setting["runs"] if r["series"] == series}
    return np.array([[rows[(s, n)] for n in cfg.marks] for s in cfg.seeds], dtype=np.float64)


def _head(result: dict[str, Any], command: str) -> list[str]:
    cfg: DeckStudy = result["config"]
    cpu = (f" The default run takes about {DEFAULT_CPU_SECONDS:,} CPU-seconds (one core)."
           if DEFAULT_CPU_SECONDS is not None and cfg == DeckStudy() else "")
    return [
        "# The deck divide-the-dollar study against exact truth",
        "",
        f"Regenerate: `{command}` (byte for byte).{cpu} docs/studies.md explains the study.",
        "",
        "E. Wild's study (`ecterceocgan/deck-divide-dollar`): a Monte Carlo agent with exploring "
        "starts learns, against a uniformly random opponent, which of three cards (smallest, "
        "median, largest) to play from 40 observations [card showing, smallest, median, "
        "largest]. Here its greedy policy is valued exactly at checkpoints (a forward "
        "computation over the whole game, not simulation), with 95% Student-t intervals over "
        f"{len(cfg.seeds)} seeds, beside the exact values of simple baselines, of the best "
        "policy local search finds with the exact evaluator, and of a player who sees "
        "everything (an upper bound on every policy). Rewards: +1 win, 0 draw, -1 loss; "
        "'value' is the expected reward."
        + (" The study's other method, evolved finite-state-machine players, is a second "
           "learner here: its best machine at each checkpoint valued exactly the same way "
           "(a reconstruction; its section below says what its games are)."
           if "fsm" in cfg.series else ""),
        "",
    ]


def _headline(result: dict[str, Any]) -> list[str]:
    """The study's own figures beside the ones computed here."""
    cfg: DeckStudy = result["config"]
    code, study = result["code"], result["settings"][0]
    g = code["game"]
    final_met = [r for r in study["runs"] if r["games"] == cfg.games]
    lines = [
        "## The study's own figures, side by side",
        "",
        "| | the study (its README and code) | here |",
        "|---|---|---|",
        f"| deck, hands, rounds | 60 cards (16, 28, 16), hands of 5, 26 rounds | "
        f"{g.deck_size} cards {g.counts}, hands of {g.hand_size}, {g.rounds} rounds |",
        f"| games learned | 2,000,000 | {cfg.games:,} per seed, {len(cfg.seeds)} seeds |",
        "| observations | 40 (`num_states`) | met by the agent at the study's deck: "
        + ", ".join(f"{r['series']} seed {r['seed']}: {r['met']}" for r in final_met
                    if r["met"] is not None) + " |",
        "| exploring starts \"ensure we observe every state and the outcome of choosing any "
        "of the actions from each state\" | claimed | (observation, action) pairs never "
        "credited at the observations met: " + ", ".join(
            f"{r['series']} seed {r['seed']}: {r['untried']}" for r in final_met
            if r["untried"] is not None) + " |",
        "| action values \"converge quadratically\" | claimed | sample means converge as "
        "1/sqrt(n) (the central limit theorem), not quadratically |",
        "| the trained agent's win rate against the random opponent | not quoted (the README "
        "shows no results) | below: simulated in the code's own rules, exact in the intent's |",
        "",
        f"### The code's own rules at the study's deck (a follower that cannot stay within 1 "
        f"passes): simulated, {cfg.simulated_games:,} games per policy",
        "",
        "Here the policies are simulated, the study's own kind of figure: mean reward and "
        "P(win), 95% interval of the mean (an exact value at this setting takes 15 to 613 "
        "CPU-s per policy, millions of states per round: `evaluate_deck_policy`). The "
        "full-information bound is exact (backward induction over the 86 million states every "
        "action reaches, `full_information_bound`).",
        "",
        "| policy | P(win) | P(draw) | mean reward ± 95% | win rate while learning (all "
        "games, exploring starts included) |",
        "|---|---|---|---|---|",
    ]
    for name, t in code["baselines"].items():
        lines.append(f"| {name} | {t.wins / t.games:.4f} | {t.draws / t.games:.4f} | "
                     f"{t.mean:.4f} ± {t.half_width:.4f} | |")
    for (series, seed), t in code["tallies"].items():
        w = code["windows"][(series, seed)]
        learned = f"{w[0] / sum(w):.4f}" if w is not None else ""
        lines.append(f"| {SERIES[series][0]}, seed {seed}, after {cfg.games:,} games | "
                     f"{t.wins / t.games:.4f} | {t.draws / t.games:.4f} | {t.mean:.4f} ± "
                     f"{t.half_width:.4f} | {learned} |")
    if code.get("bound") is not None:
        lines.append(f"| full information (upper bound), exact | | | {code['bound']:.12f} | |")
    return [*lines, ""]


def _duel_lines(result: dict[str, Any]) -> list[str]:
    """The two-player game at a small deck: CFR's exact curves beside the exact references."""
    duel = result.get("duel") or []
    if not duel:
        return []
    cfg: DeckStudy = result["config"]
    first = duel[0]
    lines = [
        f"## Two players, each seeing only its own hand: {first.game}",
        "",
        "The same rules as a two-player zero-sum game with hidden hands (`--game deck-duel`), "
        "both players choosing among the agent's three actions. Exact, by the sequence form: "
        f"the equilibrium value {first.equilibrium_value:.12f}; uniform play against the "
        f"uniform opponent {first.uniform_value:.12f}; the most a player in the study's seat can "
        f"win against the uniform opponent (remembering everything it saw) "
        f"{first.best_vs_uniform:.12f}. The tree: {first.histories:,} histories, "
        f"{first.decision_keys:,} decision keys. A CFR learner's average policy after each "
        "number of iterations, valued exactly: its exploitability (0 at an equilibrium) and "
        f"its value against the uniform opponent (mean [95% interval] over {len(cfg.seeds)} "
        "seeds; CFR+ is deterministic).",
        "",
        "| iterations | " + " | ".join(f"{c.variant}: exploitability | value vs uniform"
                                        for c in duel) + " |",
        "|---|" + "---|---|" * len(duel),
    ]
    for i, t in enumerate(first.iterations):
        cells = []
        for c in duel:
            e, v = c.exploitability, c.value_vs_uniform
            cells += [_ci_cell(e, i), _ci_cell(v, i)]
        lines.append(f"| {t:,} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _ci_cell(triple: tuple[Any, Any, Any], i: int) -> str:
    """Mean [low, high] of a curve at checkpoint i (the mean alone for a zero-width one)."""
    mean, low, high = (float(x[i]) for x in triple)
    if not high > low:
        return f"{mean:.6g}"
    return f"{mean:.6g} [{low:.6g}, {high:.6g}]"


def _exact_lines(setting: dict[str, Any], cfg: DeckStudy, figure: str) -> list[str]:
    """One exact setting: the reference values to 12 digits, the learners' curves' table."""
    g = setting["game"]
    rules = "the quoted code's (a follower may pass)" if g.passing else \
        "the evident intent's (a follower that cannot stay within 1 plays its smallest card)"
    lines = [f"## {setting['title'].capitalize()}: {g.deck_size} cards {g.counts}, hands of "
             f"{g.hand_size}, {g.rounds} rounds; rules: {rules}", "",
             "| policy | exact value | P(win) | P(draw) | P(loss) |", "|---|---|---|---|---|"]
    for name, ev in setting["baselines"].items():
        lines.append(f"| {name} | {ev.expected:.12f} | {ev.win:.12f} | {ev.draw:.12f} | "
                     f"{ev.loss:.12f} |")
    search = setting["search"]
    if search is not None:
        ev = search["value"]
        word = "a local optimum" if search["converged"] else "not converged"
        lines.append(f"| local search (exact evaluator; {word}): "
                     f"`{''.join(_ACTION[a] for a in search['actions'])}` | {ev.expected:.12f} | "
                     f"{ev.win:.12f} | {ev.draw:.12f} | {ev.loss:.12f} |")
    lines += [f"| full information (upper bound) | {setting['bound']:.12f} | | | |", ""]
    if search is None:
        lines += ["Local search with the exact evaluator is not in this run at this deck (about "
                  "250 exact evaluations: `DeckStudy(search_study_deck=True)`, or "
                  "`python benchmarks/bench_deck_evaluation.py --search`).", ""]
    head = "| games | " + " | ".join(
        f"{SERIES[s][0]}: value | P(win)" for s in cfg.series) + " |"
    lines += [f"Learners' greedy policies valued exactly (mean [95% interval] over "
              f"{len(cfg.seeds)} seeds):", "", head,
              "|---|" + "---|---|" * len(cfg.series)]
    grids = {s: (_grid(setting, s, "expected", cfg), _grid(setting, s, "win", cfg))
             for s in cfg.series}
    for j, n in enumerate(cfg.marks):
        cells = [f"{_ci(grids[s][0][:, j])} | {_ci(grids[s][1][:, j])}" for s in cfg.series]
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    lines += ["", f"![exact value against games]({figure})", ""]
    return lines


def _policy_lines(result: dict[str, Any]) -> list[str]:
    """What the agents learned at the study's deck, per observation, beside local search; the
    evolved machines after."""
    cfg: DeckStudy = result["config"]
    study = result["settings"][0]
    search = study["search"]
    tables = [s for s in cfg.series if not isinstance(study["finals"][(s, cfg.seeds[0])],
                                                      FsmPlayer)]
    lines = ["## What the agents learned (the study's deck, intent rules)", "",
             "Actions: S smallest (spoil), M median, L largest; one letter per seed. "
             "Observation: card showing (or lead): smallest, median, largest.", "",
             "| observation | " + " | ".join(SERIES[s][0] for s in tables)
             + (" | local search |" if search is not None else " |"),
             "|---|" + "---|" * (len(tables) + (search is not None))]
    for obs in range(40):
        cells = ["".join(_ACTION[study["finals"][(s, seed)][obs]] for seed in cfg.seeds)
                 for s in tables]
        if search is not None:
            cells.append(_ACTION[search["actions"][obs]])
        lines.append(f"| {observation_label(obs)} | " + " | ".join(cells) + " |")
    return [*lines, "", *_machine_lines(result)]


def _machine_lines(result: dict[str, Any]) -> list[str]:
    """The evolved machines at the study's deck (their settings; each seed's final machine,
    its exact value and its states' actions and next states)."""
    cfg: DeckStudy = result["config"]
    study = result["settings"][0]
    if "fsm" not in cfg.series:
        return ["Evolved finite-state-machine players (the study's other method): not in this "
                "run (series `fsm` of `report.studies_deck.SERIES`).", ""]
    p = result["fsm_params"]
    cost = p["population"] * p["machine_games"]
    lines = ["## The evolved FSM players", "",
             f"A reconstruction (the study gives no details; `dicejack.learners.deck_fsm`): "
             f"Mealy machines of {p['n_states']} states over the 40 observations, a population "
             f"of {p['population']} evolved by single tournament selection, fitness the mean "
             f"reward of {p['machine_games']} simulated games per machine against the uniform "
             f"opponent (common random numbers per generation). 'Games' for this learner are "
             f"the games its fitness simulations play, {cost:,} per generation (the initial "
             f"population's scoring counts as one); its player at a checkpoint is the fittest "
             f"machine of the latest scoring (below {cost:,} games, the first random machine). "
             f"The settings are chosen to keep the run short: an exact value at the study's "
             f"deck costs about 2.5 CPU-s per machine state.", "",
             "Each seed's final machine at the study's deck (intent rules); `*` marks the "
             "initial state, then its action per observation (observation order as above, "
             "S M L) and its next state per observation:", ""]
    by = {(r["seed"], r["games"]): r for r in study["runs"] if r["series"] == "fsm"}
    for seed in cfg.seeds:
        fsm = study["finals"][("fsm", seed)]
        text = fsm.describe().translate(str.maketrans("sml", "SML"))
        lines += [f"Seed {seed}: exact value {by[(seed, cfg.games)]['expected']:.12f}", "",
                  "```", text, "```", ""]
    return lines


def _runs_csv(result: dict[str, Any]) -> str:
    csv = ["setting,passing,series,seed,games,expected,win,draw,loss,learning_wins,"
           "learning_draws,learning_losses,observations_met,pairs_untried"]
    for setting in result["settings"]:
        for r in setting["runs"]:
            w = r["window"] if r["window"] is not None else ("", "", "")
            csv.append(f"{r['setting']},{r['passing']},{r['series']},{r['seed']},{r['games']},"
                       f"{r['expected']:.12f},{r['win']:.12f},{r['draw']:.12f},"
                       f"{r['loss']:.12f},{w[0]},{w[1]},{w[2]},"
                       f"{'' if r['met'] is None else r['met']},"
                       f"{'' if r['untried'] is None else r['untried']}")
    return "\n".join(csv) + "\n"


def _curve_figure(setting: dict[str, Any], cfg: DeckStudy, file: str) -> dict[str, Any]:
    from dicejack.figures.study_figures import Curve

    x = list(cfg.marks)
    curves = []
    for s in cfg.series:
        grid = _grid(setting, s, "expected", cfg)
        bands = np.array([interval(grid[:, j]) for j in range(len(x))]).T  # mean, low, high
        curves.append(Curve(f"{SERIES[s][0]} (95% interval)", x, bands[[1, 0, 2]]))
    refs = [(k, v.expected) for k, v in setting["baselines"].items()]
    if setting["search"] is not None:
        refs.append(("local search (exact)", setting["search"]["value"].expected))
    refs.append(("full information (bound)", setting["bound"]))
    curves += [Curve(f"{k} {v:.4f}", x, [[v] * len(x)], dashed=True) for k, v in refs]
    g = setting["game"]
    title = f"{setting['title'].capitalize()}: {g.deck_size} cards, {g.rounds} rounds"
    return {"file": file, "curves": curves, "title": title, "xlabel": "games learned",
            "ylabel": "exact expected reward of the greedy policy"}


def _win_figure(setting: dict[str, Any], cfg: DeckStudy) -> dict[str, Any]:
    """The study's kind of curve (the win rate while learning, per window between
    checkpoints) beside the exact P(win) of the greedy policy, for the quoted code's agent."""
    from dicejack.figures.study_figures import Curve

    x = list(cfg.marks)
    rows = [r for r in setting["runs"] if r["series"] == cfg.series[0]]
    seen = np.array([[next(r["window"][0] / max(sum(r["window"]), 1) for r in rows
                           if r["seed"] == s and r["games"] == n) for n in x]
                     for s in cfg.seeds])
    exact = _grid(setting, cfg.series[0], "win", cfg)
    curves = [Curve("win rate while learning (per window; the study's count)", x, seen),
              Curve("exact P(win) of the greedy policy", x, exact),
              Curve("uniform play, exact P(win)", x,
                    [[setting["baselines"]["uniform"].win] * len(x)], dashed=True)]
    return {"file": "win-rate.png", "curves": curves, "title": f"{SERIES[cfg.series[0]][0]}: "
            "win rate seen and exact P(win)", "xlabel": "games learned",
            "ylabel": "P(win) (median and band over seeds)"}


def deck_report(result: dict[str, Any], command: str) -> tuple[str, str, list[dict[str, Any]]]:
    """(README.md text, runs.csv text, figures: dicts of :func:`~dicejack.figures.study_figures.
    curves_figure`'s arguments and "file")."""
    cfg: DeckStudy = result["config"]
    files = ["learning-study-deck.png", "learning-small-code.png", "learning-small-intent.png"]
    lines = [*_head(result, command), *_headline(result)]
    for setting, file in zip(result["settings"], files, strict=True):
        lines += _exact_lines(setting, cfg, file)
    lines += _policy_lines(result)
    lines += _duel_lines(result)
    figures = [_curve_figure(s, cfg, f) for s, f in zip(result["settings"], files, strict=True)]
    if any(r["window"] is not None for r in result["settings"][0]["runs"]):
        figures.append(_win_figure(result["settings"][0], cfg))
        lines += ["![win rate while learning against exact P(win)](win-rate.png)", ""]
    return "\n".join(lines) + "\n", _runs_csv(result), figures
