"""The vector form: B copies in one call equal B separate environments, with Gymnasium's
next-step autoreset."""

import numpy as np
import pytest

import colony
from colony.envs import VectorEnv, parallel_env


@pytest.mark.parametrize(
    "name,settings",
    [("swarmbench", {"max_round": 6}), ("cube", {"n": 3, "max_steps": 6}), ("wildfire", {"level": 17, "max_steps": 6})],
)
def test_copies_equal_separate_environments_through_autoreset(name, settings):
    count = 3
    vec = VectorEnv(name, count, **settings)
    singles = [parallel_env(name, **settings) for _ in range(count)]
    obs = vec.reset(seed=100)
    for i, env in enumerate(singles):
        first, _ = env.reset(seed=100 + i)
        assert np.array_equal(obs[i], np.stack([first[a] for a in env.possible_agents]))
    rng = np.random.default_rng(7)
    ended = 0
    for step in range(14):
        actions = vec.sample_actions(rng)
        obs, rewards, term, trunc = vec.step(actions)
        for i, env in enumerate(singles):
            if not env.agents:  # ended on the previous call: the copy reset instead
                first, _ = env.reset(seed=env._seed + count)
                assert not term[i] and not trunc[i] and (rewards[i] == 0).all()
                assert np.array_equal(obs[i], np.stack([first[a] for a in env.possible_agents]))
                continue
            o, r, te, tr, _ = env.step(
                {a: actions[i, k] for k, a in enumerate(env.possible_agents)}
            )
            assert np.array_equal(obs[i], np.stack([o[a] for a in env.possible_agents]))
            assert np.allclose(rewards[i], [r[a] for a in env.possible_agents])
            assert term[i] == any(te.values()) and trunc[i] == any(tr.values())
            ended += int(term[i] or trunc[i])
    assert ended >= count  # every copy went through at least one automatic reset
    assert vec.seeds() == [s._seed for s in singles]


def test_bad_batches_raise_colony_errors():
    vec = VectorEnv("cube", 2, n=2)
    vec.reset(seed=0)
    with pytest.raises(colony.ColonyError, match="expected 2 copies"):
        vec.step(np.zeros((3, 2), dtype=np.int64))
    with pytest.raises(colony.ColonyError, match="copy 1"):
        vec.step(np.array([[0, 0], [0, 9]]))
    with pytest.raises(colony.ColonyError, match="1 to 65536"):
        VectorEnv("cube", 0)
    with pytest.raises(colony.ColonyError, match="different observation shapes"):
        VectorEnv("swarmbench", 2, commander=True)


def test_autoreset_past_the_last_seed_is_an_error_not_a_wrap():
    vec = VectorEnv("cube", 2, n=2, max_steps=1)
    top = 2**64 - 1
    vec.reset(seed=[top - 1, top])
    vec.step(np.zeros((2, 2), dtype=np.int64))  # both episodes end (one step each)
    with pytest.raises(colony.ColonyError, match=r"passes 2\^64 - 1"):
        vec.step(np.zeros((2, 2), dtype=np.int64))


@pytest.mark.parametrize(
    "actions, shown",
    [
        (np.array([[0, 1.9], [0, 0]]), "1.9"),
        (np.array([[0, 1 + 2j], [0, 0]]), "complex"),
        (np.array([[0, np.nan], [0, 0]]), "nan"),
        (np.array([[True, False], [False, False]]), "bool"),
        ([["0", "1"], ["0", "0"]], "<U1"),
    ],
)
def test_actions_that_are_not_integer_codes_are_refused(actions, shown):
    vec = VectorEnv("cube", 2, n=2)
    vec.reset(seed=0)
    with pytest.raises(colony.ColonyError, match="not") as e:
        vec.step(actions)
    assert shown in str(e.value), e.value
    if shown == "<U1":
        return  # a string is a text action to the parallel form
    env = parallel_env("cube", n=2)
    env.reset(seed=0)
    row = np.asarray(actions)[0]
    with pytest.raises(colony.ColonyError, match="not"):
        env.step({a: row[k] for k, a in enumerate(env.possible_agents)})


def test_integral_floats_are_codes():
    vec, again = VectorEnv("cube", 2, n=2), VectorEnv("cube", 2, n=2)
    vec.reset(seed=3)
    again.reset(seed=3)
    a = vec.step(np.array([[1, 2], [3, 0]]))
    b = again.step(np.array([[1.0, 2.0], [3.0, 0.0]]))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
