"""``VectorEnv``: B copies of one colony environment stepped in one call on Rust threads."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from colony import _colony
from colony.envs.parallel import ColonyParallelEnv, action_codes, choices, setting_strings


class VectorEnv:
    """``count`` copies of environment ``name``, stepped together (no Python loop per copy).

    Arrays: observations ``(count, agents, *shape)`` float32, actions ``(count, agents)``
    int64 codes (``(count, agents, components)`` for ``MultiDiscrete`` spaces), rewards
    ``(count, agents)`` float64, terminations and truncations ``(count,)`` bool.

    A copy whose episode ended resets on the next ``step`` instead of stepping (Gymnasium's
    default "next step" autoreset: that call's rewards are 0 and flags False, and its
    observation is the new episode's first). Copy ``i`` starts at ``seeds[i]`` and adds
    ``count`` to its seed at each automatic reset, so the batch is reproducible.
    """

    def __init__(self, name: str, count: int, **settings: Any) -> None:
        self._core = _colony.VecEnv(name, setting_strings(settings), count)
        probe = ColonyParallelEnv(name, settings)
        self.agents: list[str] = list(probe.possible_agents)
        self.single_action_space = probe.action_space(self.agents[0])
        self.single_observation_space = probe.observation_space(self.agents[0])
        shapes = {probe.observation_space(a).shape for a in self.agents}
        if len(shapes) != 1:
            raise _colony.ColonyError(
                f"{name}: agents have different observation shapes {sorted(shapes)}; "
                "the vector form needs one"
            )
        self.num_envs, n_agents, self._width, self._obs_len = self._core.sizes()
        self._obs_shape = (self.num_envs, n_agents) + self.single_observation_space.shape
        self._components = self._width // max(n_agents, 1)
        # Per-agent choices per component (Wildfire's agent kinds have different spaces).
        self._nvec = np.array(
            [np.atleast_1d(choices(probe.action_space(a))) for a in self.agents]
        )

    def reset(self, seed: int | Sequence[int] = 0) -> np.ndarray:
        """Resets copy ``i`` to ``seed + i`` (or to ``seed[i]`` given a sequence); returns
        the observations."""
        if isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = [int(s) for s in seed]
        return self._obs(self._core.reset(seeds))

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Steps every copy; returns ``(observations, rewards, terminations, truncations)``."""
        codes = action_codes(actions, "step")
        if codes.size != self.num_envs * self._width:
            raise _colony.ColonyError(
                f"actions of shape {codes.shape}: expected {self.num_envs} copies × "
                f"{self._width // max(self._components, 1)} agents"
                + (f" × {self._components} components" if self._components > 1 else "")
            )
        obs, rewards, term, trunc = self._core.step(codes.tobytes())
        rewards = np.frombuffer(rewards, dtype="<f8").reshape(self.num_envs, -1).copy()
        term = np.frombuffer(term, dtype=np.uint8).astype(bool)
        trunc = np.frombuffer(trunc, dtype=np.uint8).astype(bool)
        return self._obs(obs), rewards, term, trunc

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """Uniform random codes for every copy and agent (for tests and benchmarks)."""
        draws = rng.integers(0, self._nvec, size=(self.num_envs,) + self._nvec.shape)
        return draws if self._components > 1 else draws[..., 0]

    def seeds(self) -> list[int]:
        """Each copy's current seed."""
        return list(self._core.seeds())

    def _obs(self, raw: bytes) -> np.ndarray:
        return np.frombuffer(raw, dtype="<f4").reshape(self._obs_shape).copy()

