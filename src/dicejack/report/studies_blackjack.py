"""The Peeking Blackjack study (CS221's "blackjack" assignment) redone against exact truth: its
numbers, computed (:func:`blackjack_study`) and written as a report (:func:`blackjack_report`).

What the assignment asks, with the starter code's MDPs (:data:`ASSIGNMENT_MDPS`): Q-learning
(exploration 0.2, step 1/sqrt(numIters), discount 1; the identity and the blackjack features)
for 30,000 trials on the small and the large MDP, and the states where its greedy policy
differs from value iteration's; the threshold-10 optimal policy played on the threshold-15 game
against Q-learning there; a deck (threshold 20, peek cost 1) on which the optimal policy peeks
in at least 10% of states. Here each learned policy is also valued exactly (policy evaluation
on the enumerated game), over several seeds, and "differs" is counted two ways: the learned
action is not optimal (ties counted as agreement), and it is not value iteration's own choice
(the assignment's ``max((Q, action))``: on a tie, the largest action name).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np

from dicejack.games import PeekingBlackjack
from dicejack.games.peeking_blackjack import ASSIGNMENT_MDPS, PEEK
from dicejack.learners.feature_q import FeatureQLearning
from dicejack.learners.harness import Session as GameSession
from dicejack.solver import GameSolution, solve
from dicejack.solver.generic import evaluate_policy, expected_visits, policy_from_actions

__all__ = ["BlackjackStudy", "blackjack_study", "blackjack_report", "vi_choice",
           "peek_share", "find_peeking_deck"]


@dataclass(frozen=True)
class BlackjackStudy:
    """The study's settings: seeds, trials per run, the curve's checkpoints."""

    seeds: tuple[int, ...] = tuple(range(1, 11))
    trials: int = 30_000
    exploration: float = 0.2
    checkpoints: tuple[int, ...] = (500, 1000, 2000, 5000, 10_000, 20_000, 30_000)


def vi_choice(sol: GameSolution, s: int) -> int:
    """The row value iteration's policy plays at state s: the optimal action with the largest
    name, as the assignment's ``max((Q, action))`` breaks ties."""
    space = sol.space
    rows = [r for r in space.rows(s) if sol.optimal[r]]
    return max(rows, key=lambda r: space.actions[r])


def _policy(space: Any, best: np.ndarray) -> np.ndarray:
    w = np.zeros(space.n_rows)
    live = np.flatnonzero(~space.terminal)
    w[best[live]] = 1.0
    return w


def peek_share(sol: GameSolution) -> tuple[int, int, int]:
    """(states where peeking is the only optimal action, non-terminal states, all states)."""
    space = sol.space
    only = 0
    for s in np.flatnonzero(~space.terminal).tolist():
        rows = [r for r in space.rows(s) if sol.optimal[r]]
        only += len(rows) == 1 and space.actions[rows[0]] == PEEK
    return only, int((~space.terminal).sum()), space.n_states


def find_peeking_deck(threshold: int = 20, peek_cost: int = 1, share: float = 0.1,
                      ) -> tuple[PeekingBlackjack, int]:
    """The first deck, in order of multiplicity (1, 2, 3), then number of face values (2, 3),
    then face values (ascending tuples from 1..threshold), on which peeking is the only optimal
    action in at least `share` of all states (the assignment's denominator counts the terminal
    states too); and how many decks were tried."""
    tried = 0
    for multiplicity in (1, 2, 3):
        for size in (2, 3):
            for values in combinations(range(1, threshold + 1), size):
                tried += 1
                game = PeekingBlackjack(values, multiplicity, threshold, peek_cost)
                only, _, total = peek_share(solve(game))
                if only >= share * total:
                    return game, tried
    raise ValueError("no deck found")  # pragma: no cover - the search finds one


def _learn(game: PeekingBlackjack, features: str, seed: int, config: BlackjackStudy
           ) -> tuple[FeatureQLearning, dict[int, Any]]:
    learner = FeatureQLearning(game, seed, features=features, exploration=config.exploration)
    session = GameSession(learner)
    snaps: dict[int, Any] = {}
    for mark in sorted(set(config.checkpoints) | {config.trials}):
        if mark > config.trials:
            break
        session.play(mark - session.played)
        snaps[mark] = learner.greedy_rows()
    return learner, snaps


def blackjack_study(config: BlackjackStudy = BlackjackStudy()) -> dict[str, Any]:
    """Every number of the study (module docstring), as plain values."""
    out: dict[str, Any] = {"config": config, "mdps": {}, "runs": [], "curves": {}}
    sols = {}
    for name, params in ASSIGNMENT_MDPS.items():
        sol = solve(PeekingBlackjack(*params), exact=True)
        sols[name] = sol
        space = sol.space
        start = space.states[0]
        out["mdps"][name] = {
            "params": params, "states": space.n_states,
            "decision_states": int((~space.terminal).sum()), "pairs": space.n_rows,
            "value": sol.value_exact, "start": space.actions[vi_choice(sol, 0)],
            "start_state": start,
        }
    for name in ("smallMDP", "largeMDP", "newThresholdMDP"):
        sol = sols[name]
        space = sol.space
        live = np.flatnonzero(~space.terminal)
        vi = np.array([vi_choice(sol, int(s)) for s in live])
        onpath = expected_visits(space, sol.policy())[live] > 0
        for features in ("identity", "blackjack"):
            curve = []
            for seed in config.seeds:
                learner, snaps = _learn(PeekingBlackjack(*ASSIGNMENT_MDPS[name]), features,
                                        seed, config)
                best = snaps[config.trials]
                learned = best[live]
                value = float(evaluate_policy(space, _policy(space, best))[0])
                out["runs"].append({
                    "mdp": name, "features": features, "seed": seed,
                    "differ": int(np.sum(~sol.optimal[learned])),
                    "differ_vi": int(np.sum(learned != vi)),
                    "differ_onpath": int(np.sum(~sol.optimal[learned][onpath])),
                    "onpath": int(onpath.sum()),
                    "value": value, "optimum": sol.value,
                    "mean_reward": learner.total_reward / learner.played,
                })
                curve.append([float(evaluate_policy(space, _policy(space, b))[0])
                              for _, b in sorted(snaps.items())])
            out["curves"][(name, features)] = (sorted(snaps), np.array(curve))
    # transfer: the threshold-10 optimal policy (value iteration's choices) on threshold 15
    old, new = sols["originalMDP"], sols["newThresholdMDP"]
    choice = {old.space.states[s]: old.space.actions[vi_choice(old, int(s))]
              for s in np.flatnonzero(~old.space.terminal)}
    space = new.space
    w = policy_from_actions(space, choice)  # a state the old game lacks: uniform (unreached)
    missing = [s for s in np.flatnonzero(~space.terminal) if space.states[s] not in choice]
    visits = expected_visits(space, w)
    out["transfer"] = {
        "value": float(evaluate_policy(space, w)[0]),
        "value_exact": _exact_value(space, choice),
        "optimum_new": new.value_exact, "optimum_old": old.value_exact,
        "missing": [space.states[s] for s in missing],
        "missing_reach": float(sum(visits[s] for s in missing)),
    }
    deck, tried = find_peeking_deck()
    deck_sol = solve(deck, exact=True)
    only, decisions, total = peek_share(deck_sol)
    peeks = [deck_sol.space.states[s] for s in np.flatnonzero(~deck_sol.space.terminal)
             if deck_sol.space.actions[vi_choice(deck_sol, int(s))] == PEEK]
    out["deck"] = {"game": deck, "tried": tried, "only": only, "decisions": decisions,
                   "states": total, "value": deck_sol.value_exact, "peek_states": peeks}
    return out


def _exact_value(space: Any, choice: dict[Any, str]) -> Fraction:
    """The exact expected total reward of the deterministic policy `choice` from the start (a
    forward pass in Fractions over the states it reaches)."""
    game = space.game
    memo: dict[Any, Fraction] = {}

    def value(state: Any) -> Fraction:
        if state in memo:
            return memo[state]
        if game.is_terminal(state):
            v = Fraction(game.payoff(state))
        else:
            a = choice[state]
            v = Fraction(game.reward(state, a)) + sum(
                (Fraction(p) * value(n) for n, p in game.outcomes(state, a)), Fraction(0))
        memo[state] = v
        return v

    return value(space.states[0])


# ------------------------------------------------------------------------------- the report
def _band(values: list[float], digits: int) -> str:
    a = np.asarray(values, dtype=np.float64)
    f = f"{{:.{digits}f}}"
    return f"{f.format(np.median(a))} [{f.format(a.min())}, {f.format(a.max())}]"


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else str(x.numerator)


def _bj_mdp_lines(result: dict[str, Any], command: str) -> list[str]:
    """The README's title and its table of the starter code's MDPs, solved exactly."""
    lines = [
        "# Peeking Blackjack (CS221's \"blackjack\" assignment) against exact truth",
        "",
        f"Regenerate: `{command}` (byte for byte). docs/studies.md explains the study.",
        "",
        "## The starter code's MDPs, solved exactly",
        "",
        "| MDP | card values | multiplicity | threshold | peek cost | states (decisions) | "
        "optimal expected reward | at the start |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, m in result["mdps"].items():
        v, mult, thr, cost = m["params"]
        lines.append(f"| {name} | {list(v)} | {mult} | {thr} | {cost} | {m['states']:,} "
                     f"({m['decision_states']:,}) | {_frac(m['value'])} = "
                     f"{float(m['value']):.6f} | {m['start']} |")
    return lines


def _bj_qlearning_lines(result: dict[str, Any], cfg: BlackjackStudy) -> list[str]:
    """The README's section on Q-learning: one row per MDP and features, bands over the seeds."""
    seeds = cfg.seeds
    lines = [
        "",
        "States as the assignment counts them (its `computeStates`: every state reachable under "
        "any actions, end states included); decisions: the states that are not an end.",
        "",
        f"## Q-learning, {cfg.trials:,} trials, {len(seeds)} seeds ({seeds[0]}..{seeds[-1]})",
        "",
        f"Exploration {cfg.exploration}, step 1/sqrt(numIters), discount 1. Each cell: median "
        "[smallest, largest] over the seeds. *Differs (not optimal)*: decision states where the "
        "learned greedy action is not an optimal one; *differs from VI's choice*: where it is "
        "not the action value iteration's policy plays (its tie rule: the largest name), the "
        "assignment's count; *on the optimal path*: the first count over the states optimal play "
        "reaches. *Exact value*: the learned greedy policy's expected reward, computed exactly; "
        "*mean reward while learning*: the average of the trials' rewards, exploration "
        "included (what the assignment's `simulate` returns).",
        "",
        "| MDP | features | differs (not optimal) | differs from VI's choice | on the optimal "
        "path | exact value of the learned policy | optimum | mean reward while learning |",
        "|---|---|---|---|---|---|---|---|",
    ]
    runs = result["runs"]
    for name in ("smallMDP", "largeMDP", "newThresholdMDP"):
        m = result["mdps"][name]
        for features in ("identity", "blackjack"):
            rs = [r for r in runs if r["mdp"] == name and r["features"] == features]
            lines.append(
                f"| {name} | {features} | {_band([r['differ'] for r in rs], 0)} of "
                f"{m['decision_states']:,} | {_band([r['differ_vi'] for r in rs], 0)} | "
                f"{_band([r['differ_onpath'] for r in rs], 0)} of {rs[0]['onpath']} | "
                f"{_band([r['value'] for r in rs], 4)} | {float(m['value']):.4f} | "
                f"{_band([r['mean_reward'] for r in rs], 4)} |")
    return lines


def _bj_transfer_lines(result: dict[str, Any]) -> list[str]:
    """The README's figure link and its section on the threshold-10 policy played at 15."""
    t = result["transfer"]
    return [
        "",
        "![exact value of the greedy policy while learning](learning-large.png)",
        "",
        "## Transfer: the threshold-10 optimal policy on the threshold-15 game",
        "",
        f"- value iteration's policy for originalMDP (threshold 10), played on newThresholdMDP "
        f"(threshold 15): exact expected reward {_frac(t['value_exact'])} = "
        f"{float(t['value_exact']):.6f} (its own game's optimum: {_frac(t['optimum_old'])})",
        f"- the threshold-15 game's optimum: {_frac(t['optimum_new'])} = "
        f"{float(t['optimum_new']):.6f}",
        f"- states of the new game the old policy has no action for: "
        f"{', '.join(map(str, t['missing'])) or 'none'}; probability of reaching them under "
        f"the old policy: {t['missing_reach']:g}",
        "- Q-learning on the threshold-15 game: the newThresholdMDP rows above",
        "",
    ]


def _bj_deck_lines(result: dict[str, Any]) -> list[str]:
    """The README's section on the deck on which the optimal policy peeks."""
    d = result["deck"]
    g = d["game"]
    return [
        "## A deck on which the optimal policy peeks (threshold 20, peek cost 1)",
        "",
        f"The first deck of a small search (multiplicity 1..3, then 2 or 3 face values, then "
        f"the values in order; {d['tried']} decks tried) on which peeking is the only optimal "
        f"action in at least 10% of all states: card values {list(g.card_values)}, "
        f"multiplicity {g.multiplicity}. Peeking is the only optimal action in {d['only']} of "
        f"{d['states']} states ({d['only'] / d['states']:.1%}; {d['only'] / d['decisions']:.1%}"
        f" of the {d['decisions']} decision states); optimal expected reward "
        f"{_frac(d['value'])} = {float(d['value']):.6f}. The states where the optimal policy "
        "peeks:",
        "",
        *[f"- {s}" for s in d["peek_states"]],
        "",
    ]


def _bj_runs_csv(runs: list[dict[str, Any]]) -> str:
    """runs.csv: one row per MDP, features and seed."""
    csv = ["mdp,features,seed,differ,differ_vi,differ_onpath,onpath,value,optimum,mean_reward"]
    for r in runs:
        csv.append(f"{r['mdp']},{r['features']},{r['seed']},{r['differ']},{r['differ_vi']},"
                   f"{r['differ_onpath']},{r['onpath']},{r['value']:.12f},{r['optimum']:.12f},"
                   f"{r['mean_reward']:.12f}")
    return "\n".join(csv) + "\n"


def _bj_figure(result: dict[str, Any]) -> dict[str, Any]:
    """The figure of the exact value of the learned greedy policy on largeMDP while learning."""
    from dicejack.figures.study_figures import Curve

    xs, ident = result["curves"][("largeMDP", "identity")]
    _, feats = result["curves"][("largeMDP", "blackjack")]
    opt = float(result["mdps"]["largeMDP"]["value"])
    figure = {"file": "learning-large.png", "curves": [
        Curve("identity features", xs, ident), Curve("blackjack features", xs, feats),
        Curve("optimum", xs, [[opt] * len(xs)], dashed=True)],
        "title": "largeMDP: exact value of the learned greedy policy (band: all seeds)",
        "xlabel": "trials", "ylabel": "expected reward"}
    return figure


def blackjack_report(result: dict[str, Any], command: str) -> tuple[str, str, list[tuple]]:
    """(README.md text, runs.csv text, figures: dicts of :func:`~dicejack.figures.study_figures.
    curves_figure`'s arguments and "file") of a study."""
    cfg: BlackjackStudy = result["config"]
    lines = [*_bj_mdp_lines(result, command), *_bj_qlearning_lines(result, cfg),
             *_bj_transfer_lines(result), *_bj_deck_lines(result)]
    return "\n".join(lines) + "\n", _bj_runs_csv(result["runs"]), [_bj_figure(result)]

