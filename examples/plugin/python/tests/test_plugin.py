"""The plugin's own environment and policies from Python, through its wheel."""

from pettingzoo.test import parallel_api_test, parallel_seed_test

import colony
from colony.envs import parallel_env


def test_the_plugin_environment_is_a_pettingzoo_environment():
    assert "spread-v0" in dict(colony.envs.names())
    parallel_api_test(parallel_env("spread-v0", agents=3, size=6), num_cycles=200)
    parallel_seed_test(lambda: parallel_env("spread-v0", agents=3, size=6), num_cycles=50)
    env = parallel_env("spread-v0", agents=3, size=6)
    obs, _ = env.reset(seed=1)
    assert obs["agent_0"].shape == (12,)


def test_the_plugin_policies_run_from_python(tmp_path):
    summary = colony.compare("spread-v0", out=tmp_path / "run", seeds="0..2",
                             policies=["demo_nearest:k=5", "scripted:heuristic"])
    assert set(summary["policies"]) == {"demo_nearest:k=5", "scripted:heuristic"}
