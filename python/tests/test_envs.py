"""The PettingZoo environments: PettingZoo's own tests, determinism against the command
line, the spaces, the text interface and bad input."""

import json

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import parallel_api_test, parallel_seed_test

import colony
from colony.envs import cube, parallel_env, swarmbench, wildfire

CASES = [
    (swarmbench.parallel_env, {}),
    (swarmbench.parallel_env, {"task": "synchronization", "max_round": 30}),
    (swarmbench.parallel_env, {"commander": True, "max_round": 30}),
    (cube.parallel_env, {"n": 4, "max_steps": 60}),
    (wildfire.parallel_env, {"level": 13}),
    (wildfire.parallel_env, {"level": 17, "max_steps": 40}),
]


@pytest.mark.parametrize("make,settings", CASES)
def test_pettingzoo_parallel_api_and_seed_tests(make, settings):
    parallel_api_test(make(**settings), num_cycles=300)
    parallel_seed_test(lambda: make(**settings), num_cycles=100)


@pytest.mark.parametrize(
    "name,settings", [("swarmbench", {}), ("cube", {"n": 3}), ("wildfire", {"level": 13})]
)
def test_reset_equals_the_command_line_environment(name, settings, capfd):
    env = parallel_env(name, **settings)
    env.reset(seed=5)
    sets = [a for k, v in settings.items() for a in ("--set", f"{k}={v}")]
    capfd.readouterr()
    colony.run("env", "reset", name, "--seed", "5", "--json", *sets)
    printed = json.loads(capfd.readouterr().out)
    assert env.state_json() == printed
    other = parallel_env(name, **settings)
    other.reset(seed=6)
    assert other.state_json() != printed


def test_spaces_match_the_documented_encodings():
    sb = swarmbench.parallel_env()
    assert sb.action_space("Agent_0") == spaces.Discrete(5)
    assert sb.observation_space("Agent_0").shape == (5, 5, 8)
    sync = swarmbench.parallel_env(task="synchronization")
    assert sync.action_space("Agent_0") == spaces.Discrete(6)
    commander = swarmbench.parallel_env(commander=True)
    assert commander.observation_space("Agent_0").shape == (10, 10, 8)
    assert commander.observation_space("Agent_1").shape == (5, 5, 8)
    cb = cube.parallel_env(n=4)
    assert cb.action_space("0") == spaces.Discrete(5)
    assert cb.observation_space("0").shape == (20, 20, 5)
    wf = wildfire.parallel_env(level=17)
    nvecs = {tuple(wf.action_space(a).nvec) for a in wf.possible_agents}
    size = wf.state_json()["grid"]["size"]
    assert all(n[1:] == (size, size) for n in nvecs) and len(nvecs) > 1
    assert wf.observation_space("1").shape == (3728,)


def test_swarmbench_view_channels_show_the_agent_itself_and_its_neighbours():
    env = swarmbench.parallel_env()
    obs, _ = env.reset(seed=1)
    for agent, view in obs.items():
        # Exactly one own cell, at the centre of the 5×5 view, which also holds an agent.
        assert view[..., 7].sum() == 1 and view[2, 2, 7] == 1 and view[2, 2, 6] == 1
        # Every cell is off the map, a symbol, an agent or empty floor: at most one of 0–6.
        assert (view[..., :7].sum(axis=-1) <= 1).all()


def test_cube_grid_marks_every_agent_with_its_id():
    env = cube.parallel_env(n=4)
    obs, _ = env.reset(seed=2)
    grid = obs["0"]
    assert (obs["1"] == grid).all()  # identical for all agents (paper §8.2)
    assert grid[..., 0].sum() == 4
    assert sorted(grid[..., 3][grid[..., 3] > 0].tolist()) == [1.0, 2.0, 3.0, 4.0]
    assert (grid[:, -1, 2] == 1).all()


def test_numeric_and_text_actions_take_the_same_step():
    a, b = cube.parallel_env(n=2), cube.parallel_env(n=2)
    a.reset(seed=3)
    b.reset(seed=3)
    names = ["STAY", "UP", "DOWN", "LEFT", "RIGHT"]
    for t in range(10):
        codes = {ag: (t + i) % 5 for i, ag in enumerate(a.agents)}
        oa, ra, *_ = a.step(codes)
        ob, rb, *_ = b.step({ag: names[c] for ag, c in codes.items()})
        assert ra == rb
        for ag in oa:
            assert (oa[ag] == ob[ag]).all()


def test_text_interface_carries_messages_and_text_observations():
    env = swarmbench.parallel_env(text_observations=True)
    _, infos = env.reset(seed=0)
    assert all(infos[a]["text"] == env._core.observe_text(a) for a in env.agents)
    assert "rendezvous at the wall" not in infos["Agent_0"]["text"]
    _, _, _, _, infos = env.step({a: "ACTION: STAY\nMSG: rendezvous at the wall" for a in env.agents})
    assert any("rendezvous at the wall" in infos[a]["text"] for a in env.agents)
    assert isinstance(env.render(), str) and env.render()


def test_an_episode_ends_for_every_agent_at_once_and_then_needs_reset():
    env = cube.parallel_env(n=2, max_steps=3)
    env.reset(seed=0)
    for _ in range(3):
        _, _, term, trunc, _ = env.step({a: 0 for a in env.agents})
    assert all(trunc.values()) and not any(term.values()) and env.agents == []
    with pytest.raises(colony.ColonyError, match="reset"):
        env.step({"0": 0, "1": 0})


def test_reset_without_a_seed_continues_from_the_last_one():
    a, b = cube.parallel_env(n=3), cube.parallel_env(n=3)
    a.reset(seed=10)
    a.reset()
    b.reset(seed=11)
    assert a.state_json() == b.state_json()


def test_bad_input_raises_one_line_colony_errors():
    with pytest.raises(colony.ColonyError, match="unknown environment"):
        parallel_env("nowhere")
    with pytest.raises(colony.ColonyError, match="n"):
        cube.parallel_env(n=100000)
    with pytest.raises(colony.ColonyError, match="parameter"):
        cube.parallel_env(colour="red")
    env = cube.parallel_env(n=2)
    env.reset(seed=0)
    with pytest.raises(colony.ColonyError, match="agent 1"):
        env.step({"0": 0, "1": 7})
    with pytest.raises(colony.ColonyError, match="unknown agent"):
        env.step({"0": 0, "9": 0})
    with pytest.raises(colony.ColonyError, match="action of agent 0") as bad_text:
        env.step({"0": "FLY", "1": "UP"})
    assert "\n" not in str(bad_text.value)  # one line, as the command line prints it


def test_every_registered_environment_is_reachable():
    names = dict(colony.envs.names())
    assert {"swarmbench-v0", "cube-v0", "wildfire-v0"} <= set(names)
    for env_id in names:
        env = parallel_env(env_id)
        obs, infos = env.reset(seed=0)
        assert set(obs) == set(env.possible_agents) == set(infos)


def test_help_is_useful():
    assert "PettingZoo" in (colony.envs.__doc__ or "")
    assert "seed" in (colony.envs.ColonyParallelEnv.__doc__ or "")
    assert "--set" in (cube.parallel_env.__doc__ or "")
    assert np.float32 == swarmbench.parallel_env().observation_space("Agent_0").dtype
