#!/usr/bin/env python3
"""Steps per second from Python (the Python benchmark of docs/reference/benchmarks.md).

colony's SwarmBench 10×10 with 10 agents through ``parallel_env.step`` and through
``VectorEnv`` with B = 64 copies, beside the official SwarmBench Python environment
(``RUC-GSAI/YuLan-SwarmIntell``, a checkout given with ``--reference``) stepping the same
settings with random actions, all in this one process; then CUBE n = 32 and Wildfire level
13 through colony's two paths. Prints one JSON line per measurement and the ratios.

One reference step is what its environment loop does per round without the LLM: the
observation of every agent (its ``obs``), every agent's ``act`` with a random move, then
``update`` (physics, task, render). Its logger is replaced by one that does nothing and its
per-round ``print`` goes to /dev/null, both in the reference's favour.

Usage: bench_python.py [--reference DIR] [--seconds S]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import sys
import time
import types

import numpy as np


def timed(step, seconds: float) -> float:
    """Calls ``step`` until ``seconds`` have passed; returns calls per second."""
    step()  # warm up
    n, start = 0, time.perf_counter()
    while True:
        step()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def colony_parallel(name: str, seconds: float, **settings) -> float:
    from colony.envs import parallel_env
    from colony.envs.parallel import choices

    env = parallel_env(name, **settings)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    nvec = {a: choices(env.action_space(a)) for a in env.possible_agents}

    def step():
        if not env.agents:
            env.reset()
        env.step({a: rng.integers(0, nvec[a]) for a in env.agents})

    return timed(step, seconds)


def colony_vector(name: str, count: int, seconds: float, **settings) -> float:
    from colony.envs import VectorEnv

    vec = VectorEnv(name, count, **settings)
    vec.reset(seed=0)
    rng = np.random.default_rng(0)
    return timed(lambda: vec.step(vec.sample_actions(rng)), seconds) * count


def reference_swarmbench(checkout: str, seconds: float, agents: int, size: int, view: int) -> float:
    sys.path.insert(0, checkout)
    from swarmbench.environment import SwarmEnvironment  # type: ignore

    class QuietLogger:
        def __getattr__(self, _name):
            return lambda *a, **k: None

    names = [f"Agent_{i}" for i in range(agents)]
    team = {
        n: types.SimpleNamespace(name=n, escaped=False, brain=types.SimpleNamespace(usage={}))
        for n in names
    }
    moves = ["UP", "DOWN", "LEFT", "RIGHT", "STAY"]
    rng = np.random.default_rng(0)
    with contextlib.redirect_stdout(io.StringIO()):
        env = SwarmEnvironment("bench", team, QuietLogger(), task="Pursuit", max_round=10**9,
                               width=size, height=size, seed=0, view_size=view)
    loop = asyncio.new_event_loop()

    async def acts(actions):
        for n, a in actions.items():
            await env.act(team[n], a)

    def step():
        with contextlib.redirect_stdout(io.StringIO()):
            for agent in team.values():
                env.obs(agent)
            loop.run_until_complete(acts({n: {"move": moves[rng.integers(5)]} for n in names}))
            env.update()

    return timed(step, seconds)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reference", help="checkout of RUC-GSAI/YuLan-SwarmIntell")
    p.add_argument("--seconds", type=float, default=3.0)
    args = p.parse_args()
    s = args.seconds
    rows = {}
    sb = dict(agents=10, size=10, view=5, max_round=1000)
    if args.reference:
        rows["swarmbench_reference"] = reference_swarmbench(args.reference, s, 10, 10, 5)
    rows["swarmbench_parallel"] = colony_parallel("swarmbench", s, **sb)
    rows["swarmbench_vector64"] = colony_vector("swarmbench", 64, s, **sb)
    rows["cube32_parallel"] = colony_parallel("cube", s, n=32)
    rows["cube32_vector64"] = colony_vector("cube", 64, s, n=32)
    rows["wildfire13_parallel"] = colony_parallel("wildfire", s, level=13)
    rows["wildfire13_vector64"] = colony_vector("wildfire", 64, s, level=13)
    for name, sps in rows.items():
        print(json.dumps({"bench": name, "env_steps_per_s": round(sps, 1)}))
    ref = rows.get("swarmbench_reference")
    if ref:
        print(json.dumps({
            "parallel_vs_reference": round(rows["swarmbench_parallel"] / ref, 1),
            "vector64_vs_reference": round(rows["swarmbench_vector64"] / ref, 1),
        }))


if __name__ == "__main__":
    main()
