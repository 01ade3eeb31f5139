"""Games with hidden information through the one bridge (`envs/bridge.py`'s InformationBridge,
issue 47): OpenSpiel's own exploitability and CFR on `load(Kuhn())` give OpenSpiel's `kuhn_poker`
numbers (the uniform policy's 11/24; CFR's average policy after 50 iterations, per information
state, keys renamed J Q K -> 0 1 2), dicejack's exact exploitability of a policy read back from
OpenSpiel equals OpenSpiel's, OpenSpiel's simulation tests pass; in PettingZoo each agent sees
its own information state only, rewards come at the end, PettingZoo's api_test passes, and seeded
random plays average to the uniform policy's exact expected payoff."""

from __future__ import annotations

import contextlib
import io
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

from dicejack.envs.bridge import InformationBridge, bridge_of
from dicejack.games.kuhn import CARDS, Kuhn
from dicejack.runtime.messages import DicejackError
from dicejack.solver import information_policies as ip

#: The 99.9% two-sided normal quantile.
Z_999 = 3.2905267314919255


def openspiel_key(key: str) -> str:
    """Our Kuhn key ("Qpb") as OpenSpiel's kuhn_poker spells it ("1pb")."""
    return str(CARDS.index(key[0])) + key[1:]


def test_the_bridge_reads_the_tree_deal_folded_into_chance():
    bridge = bridge_of(Kuhn())
    assert isinstance(bridge, InformationBridge) and bridge.hidden and bridge.space is None
    assert bridge.action_labels == ["pass", "bet"]  # OpenSpiel's ids: pass 0, bet 1
    assert bridge.opening == InformationBridge.FORCED and bridge.initial == 0
    deals = bridge.outcomes(0, bridge.opening)
    assert [p for _, p in deals] == [Fraction(1, 6)] * 6
    assert sorted(bridge.tree.states[n][0] for n, _ in deals) == [
        (a, b) for a in range(3) for b in range(3) if a != b]
    assert (bridge.bounds.low, bridge.bounds.high, bridge.bounds.longest) == (-2.0, 2.0, 3)
    n = next(n for n, _ in deals if bridge.tree.states[n][0] == (1, 2))  # Q against K
    assert bridge.player(n) == 0 and sorted(bridge.legal(n)) == [0, 1]
    assert bridge.observation_string(n, None, 0, 0, 0) == "Q"
    assert bridge.observation_string(n, None, 0, 0, 1) == "K"
    bet = bridge.after(n, 1, 0)
    assert bridge.sure(n, 1) and bridge.tree.states[bet] == ((1, 2), "b")
    call = bridge.after(bet, 1, 0)
    assert bridge.terminal(call) and bridge.end(call) == -2 and bridge.step_reward(bet, 1,
                                                                                   call) == -2.0


def test_keys_that_read_alike_are_refused():
    class Clash(Kuhn):
        def information_state(self, state, player):
            key = super().information_state(state, player)
            return key if player == 0 or key == "" else 7 if key.startswith("J") else "7"

    with pytest.raises(DicejackError, match="read '7'"):
        bridge_of(Clash())


# ----------------------------------------------------------------------------------- OpenSpiel
@pytest.fixture(scope="module")
def spiel():
    pyspiel = pytest.importorskip("pyspiel")
    import dicejack.envs.openspiel as dos

    return pyspiel, dos


def test_openspiel_game_is_of_imperfect_information_keyed_by_our_keys(spiel):
    pyspiel, dos = spiel
    os_game = dos.load(Kuhn())
    kind = os_game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.provides_information_state_tensor and kind.provides_information_state_string
    assert kind.short_name == "python_dicejack_kuhn_ante_1_bet_1"
    assert dos.load(Kuhn()).get_type().short_name == kind.short_name  # registered once
    assert dos.load(Kuhn(ante=2)).get_type().short_name == "python_dicejack_kuhn_ante_2_bet_1"
    assert pyspiel.load_game(kind.short_name).bridge is os_game.bridge
    assert os_game.max_game_length() == 3 and os_game.max_chance_outcomes() == 6
    assert (os_game.min_utility(), os_game.max_utility()) == (-2.0, 2.0)
    state = os_game.new_initial_state()
    assert state.is_chance_node() and [p for _, p in state.chance_outcomes()] == [1 / 6] * 6
    deal = next(k for k, _ in state.chance_outcomes()
                if os_game.bridge.tree.states[os_game.bridge.after(0, -1, k)][0] == (2, 0))
    state.apply_action(deal)  # K against J
    assert state.current_player() == 0 and state.legal_actions() == [0, 1]
    assert [state.information_state_string(p) for p in (0, 1)] == ["K", "J"]
    state.apply_action(0)
    state.apply_action(1)  # pass, bet
    assert [state.information_state_string(p) for p in (0, 1)] == ["Kpb", "Jpb"]
    tensor = np.array(state.information_state_tensor(0))
    assert tensor.shape == tuple(os_game.information_state_tensor_shape()) and tensor.sum() == 2
    keys = os_game.bridge.keys[0]
    assert tensor[0] == 1 and keys[int(np.flatnonzero(tensor[2:])[0])] == "Kpb"
    state.apply_action(1)  # call: K wins the pot's other half
    assert state.is_terminal() and state.returns() == [2.0, -2.0]


def test_openspiels_simulation_tests_pass_on_kuhn(spiel):
    pyspiel, dos = spiel
    from open_spiel.python.tests import games_sim_test

    os_game = dos.load(Kuhn())
    pyspiel.random_sim_test(os_game, num_sims=20, serialize=True, verbose=False)
    case = games_sim_test.GamesSimTest("test_pig")
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(3):
            case.sim_game(os_game)


def test_openspiels_exploitability_of_uniform_play_is_kuhn_pokers(spiel):
    pyspiel, dos = spiel
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    ours = dos.load(Kuhn())
    theirs = pyspiel.load_game("kuhn_poker")
    value = exploitability.exploitability(ours, policy_lib.UniformRandomPolicy(ours))
    expected = exploitability.exploitability(theirs, policy_lib.UniformRandomPolicy(theirs))
    assert abs(value - 11 / 24) <= 1e-12 and abs(value - expected) <= 1e-12
    assert ip.exploitability(Kuhn(), ip.uniform_policy(Kuhn())) == Fraction(11, 24)


@pytest.fixture(scope="module")
def cfr_runs(spiel):
    """OpenSpiel's CFRSolver, 50 iterations, on our Kuhn and on its own kuhn_poker."""
    pyspiel, dos = spiel
    from open_spiel.python.algorithms import cfr

    runs = []
    for os_game in (dos.load(Kuhn()), pyspiel.load_game("kuhn_poker")):
        solver = cfr.CFRSolver(os_game)
        for _ in range(50):
            solver.evaluate_and_update_policy()
        runs.append((os_game, solver.average_policy()))
    return runs


def test_openspiels_cfr_on_our_kuhn_is_its_cfr_on_kuhn_poker(cfr_runs):
    from open_spiel.python.algorithms import exploitability

    (ours, mine), (theirs, its) = cfr_runs
    renamed = {openspiel_key(k): i for k, i in mine.state_lookup.items()}
    assert sorted(renamed) == sorted(its.state_lookup) and len(renamed) == 12
    for key, i in renamed.items():
        got = mine.action_probability_array[i]
        want = its.action_probability_array[its.state_lookup[key]]
        assert np.max(np.abs(got - want)) <= 1e-12, key
    assert not np.allclose(its.action_probability_array, 0.5)  # CFR moved off uniform
    assert abs(exploitability.exploitability(ours, mine)
               - exploitability.exploitability(theirs, its)) <= 1e-12


def test_our_exploitability_of_a_policy_read_from_openspiel_is_openspiels(cfr_runs, spiel):
    from open_spiel.python.algorithms import exploitability

    _, dos = spiel
    (ours, mine), _ = cfr_runs
    policy = dos.information_policy(ours, mine)
    assert len(policy) == 12 and set(policy["Qpb"]) == {"pass", "bet"}
    i = mine.state_lookup["Qpb"]
    assert policy["Qpb"]["bet"] == mine.action_probability_array[i][1]
    theirs = exploitability.exploitability(ours, mine)
    assert 0 < theirs < 0.05
    assert abs(float(ip.exploitability(Kuhn(), policy)) - theirs) <= 1e-12
    with pytest.raises(DicejackError, match="hidden information"):
        dos.information_policy(dos.load(), mine)


# ---------------------------------------------------------------------------------- PettingZoo
@pytest.fixture(scope="module")
def v0():
    pytest.importorskip("pettingzoo")
    from dicejack.envs import dicejack_v0

    return dicejack_v0


def test_pettingzoo_api_seed_and_render_tests_pass_on_kuhn(v0):
    from pettingzoo.test import api_test, render_test, seed_test

    with contextlib.redirect_stdout(io.StringIO()):
        api_test(v0.env(game=Kuhn()), num_cycles=200)
        seed_test(lambda: v0.env(game=Kuhn()), num_cycles=100)
        render_test(lambda render_mode=None: v0.env(game=Kuhn(), render_mode=render_mode))
    ansi = v0.raw_env(game=Kuhn(), render_mode="ansi")
    ansi.reset(seed=0)
    assert ansi.render() == "kuhn ante=1 bet=1: ((1, 2), ''), player_0 to move"


def test_each_agent_sees_its_own_information_state_and_is_paid_at_the_end(v0):
    env = v0.env(game=Kuhn())
    bridge = env.unwrapped.bridge
    seen = {}
    for seed in range(40):
        env.reset(seed=seed)
        cards = bridge.tree.states[env.unwrapped.state][0]
        views = [bridge.keys[p][int(env.observe(a)["observation"][0])]
                 for p, a in enumerate(env.possible_agents)]
        assert views == [CARDS[cards[0]], CARDS[cards[1]]]
        seen[cards] = views
        assert env.agent_selection == "player_0"
        assert list(env.observe("player_0")["action_mask"]) == [1, 1]
        assert list(env.observe("player_1")["action_mask"]) == [0, 0]
        env.step(1)  # bet
        assert env.rewards == {"player_0": 0, "player_1": 0}
        assert env.infos["player_1"]["last_move"] == {"agent": "player_0", "action": "bet"}
        assert bridge.keys[1][int(env.observe("player_1")["observation"][0])] == views[1] + "b"
        env.step(1)  # call
        win = 2 if cards[0] > cards[1] else -2
        assert env.rewards == {"player_0": win, "player_1": -win}
        assert all(env.terminations.values())
    assert len(seen) == 6  # every deal came


def exact_moments(game, policy):
    """Player 0's expected return when both play `policy`, and its variance, exactly."""
    tree = ip.information_tree(game)
    rows = ip.behaviour(tree, policy)
    reach = [Fraction(0)] * tree.n_nodes
    reach[0] = Fraction(1)
    for n, kids in enumerate(tree.children):
        for i, outcomes in enumerate(kids):
            for child, p in outcomes:
                reach[child] = reach[n] * Fraction(rows[tree.infoset[n]][i]) * p
    ends = tree.terminals()
    mean = sum(reach[n] * tree.utility[n] for n in ends)
    square = sum(reach[n] * tree.utility[n] ** 2 for n in ends)
    assert sum(reach[n] for n in ends) == 1
    return mean, square - mean**2


@pytest.mark.slow
def test_seeded_random_plays_average_to_the_uniform_policys_exact_payoff(v0):
    game = Kuhn()
    mean, variance = exact_moments(game, ip.uniform_policy(game))
    assert mean == ip.expected_payoff(game, ip.uniform_policy(game)) == Fraction(1, 8)
    env = v0.env(game=game)
    rng = np.random.default_rng(47)
    plays = 20_000
    total = 0.0
    for seed in range(plays):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            _, reward, done, cut, _ = env.last()
            if agent == "player_0":
                total += reward  # its rewards since its last move: its return, summed
            if done or cut:
                env.step(None)
                continue
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(rng.choice(legal)))
    half_width = Z_999 * math.sqrt(float(variance) / plays)
    assert abs(total / plays - float(mean)) <= half_width


@pytest.mark.slow
def test_one_agent_against_a_behaviour_policy_averages_to_its_exact_payoff(v0):
    """The single-agent view: player_1 uniform against player_0 fixed to always bet (a
    behaviour policy, key -> {action: probability}); its returns average to the exact payoff."""
    from dicejack.envs import single_agent

    game = Kuhn()
    policy = ip.uniform_policy(game)
    for key in policy:
        if len(key) % 2 == 1:  # player 0's keys: the card and an even history
            policy[key] = {"bet": 1}
    mean, variance = exact_moments(game, policy)
    assert mean == ip.expected_payoff(game, policy)
    plays = 20_000
    env = single_agent(v0.env(game=game), "player_1", policy)
    rng, total = np.random.default_rng(7), 0.0
    for seed in range(plays):
        env.reset(seed=seed)
        done, reward = False, 0.0
        while not done:
            _, r, done, cut, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            reward += r
            done = done or cut
        total += reward  # player_1's: minus player 0's
    assert abs(-total / plays - float(mean)) <= Z_999 * math.sqrt(float(variance) / plays)
    with pytest.raises(DicejackError, match="bad opponent"):
        single_agent(v0.env(game=game), "player_1", {"Q": {"bet": 1}})


# ----------------------------------------------------- a forced chance move in the middle of play
@dataclass(frozen=True)
class Signal:
    """A tiny hidden-information game with a forced deal at the root and a forced draw after
    player 0's move: a card 0, 1, 2 (1/2, 1/3, 1/6) that player 0 sees; it signals low or high;
    player 1 draws a bonus 0 or 1 (1/4, 3/4) that only it sees, and calls or folds. Keys are
    tuples (their text is their repr)."""

    name = "signal"
    num_players = 2

    def initial_state(self):
        return (None, None, None, None)

    def is_terminal(self, state):
        return state[3] is not None

    def payoff(self, state):
        card, signal, bonus, answer = state
        if answer == "fold":
            return 1
        return (card - 1 + bonus) * (2 if signal == "high" else 1)

    def player(self, state):
        return 0 if state[1] is None else 1

    def actions(self, state):
        card, signal, bonus, _ = state
        if card is None:
            return ("deal",)
        if signal is None:
            return ("low", "high")
        return ("draw",) if bonus is None else ("call", "fold")

    def outcomes(self, state, action):
        card, signal, bonus, _ = state
        if action == "deal":
            return [((c, None, None, None), p) for c, p in
                    ((0, Fraction(1, 2)), (1, Fraction(1, 3)), (2, Fraction(1, 6)))]
        if action == "draw":
            return [((card, signal, 0, None), Fraction(1, 4)),
                    ((card, signal, 1, None), Fraction(3, 4))]
        if signal is None:
            return [((card, action, None, None), 1)]
        return [((card, signal, bonus, action), 1)]

    def information_state(self, state, player):
        card, signal, bonus, _ = state
        return ("p0", card, signal) if player == 0 else ("p1", signal, bonus)


def test_a_forced_draw_after_a_move_is_that_moves_chance_node(spiel):
    pyspiel, dos = spiel
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    game = Signal()
    os_game = dos.load(game)
    bridge = os_game.bridge
    assert bridge.action_labels == ["low", "high", "call", "fold"]
    assert [p for _, p in bridge.outcomes(0, bridge.opening)] == [
        Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
    pyspiel.random_sim_test(os_game, num_sims=20, serialize=True, verbose=False)
    state = os_game.new_initial_state()
    state.apply_action(2)  # the card 2
    assert state.information_state_string(0) == "('p0', 2, None)"
    state.apply_action(1)  # high: the forced draw is its chance node
    assert state.is_chance_node() and state.chance_outcomes() == [(0, 0.25), (1, 0.75)]
    assert state.information_state_string(0) == "('p0', 2, None) after 'high'"
    state.apply_action(1)  # bonus 1
    assert state.current_player() == 1
    assert state.information_state_string(1) == "('p1', 'high', 1)"
    state.apply_action(2)  # call: (2 - 1 + 1) x 2
    assert state.returns() == [4.0, -4.0]
    exact = ip.exploitability(game, ip.uniform_policy(game))
    theirs = exploitability.exploitability(os_game, policy_lib.UniformRandomPolicy(os_game))
    assert exact > 0 and abs(theirs - float(exact)) <= 1e-12
