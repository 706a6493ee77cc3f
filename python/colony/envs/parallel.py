"""``ColonyParallelEnv``: one colony environment behind PettingZoo's Parallel API."""

from __future__ import annotations

import json
from typing import Any, Mapping

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from colony import _colony

# The longest action text accepted through a Text space (colony's message bound is 1000).
_MAX_TEXT = 4096


def setting_strings(settings: Mapping[str, Any] | None) -> list[str]:
    """``{"n": 4, "commander": True}`` as ``["n=4", "commander=true"]`` (``--set`` form)."""
    out = []
    for key, value in (settings or {}).items():
        if isinstance(value, bool):
            value = str(value).lower()
        out.append(f"{key}={value}")
    return out


def action_codes(actions: Any, what: str) -> np.ndarray:
    """``actions`` as contiguous little-endian int64 codes.

    Decision: integers are codes, and so are floats with an integral value (a policy network
    may return ``2.0``); a fractional or non-finite float, a complex number, a bool, a string
    or any other object is a ``ColonyError`` naming the value, never truncated or coerced.
    """
    a = np.asarray(actions)
    kind = a.dtype.kind
    limit = 2.0**63
    if kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise _colony.ColonyError(f"{what}: action {int(a.max())} is past the int64 codes")
    if kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(a) | (a != np.trunc(a)) | (np.abs(a) >= limit)
        if bad.any():
            value = a[bad].flat[0]
            raise _colony.ColonyError(f"{what}: action {value!r} is not an integer code")
    elif kind not in "iu":
        shown = repr(a.flat[0]) if a.size else "[]"
        raise _colony.ColonyError(
            f"{what}: actions of type {a.dtype} ({shown[:80]}) are not integer codes"
        )
    return np.ascontiguousarray(a, dtype="<i8")


def choices(space: spaces.Space) -> Any:
    """The choices per action component: a ``Discrete``'s ``n`` or a ``MultiDiscrete``'s
    ``nvec``."""
    return space.nvec if isinstance(space, spaces.MultiDiscrete) else space.n


def numeric_spaces(core: Any, agent: str) -> tuple[spaces.Space, spaces.Space] | None:
    """The Gymnasium (action, observation) spaces of ``agent``, or None if text only."""
    got = core.spaces(agent)
    if got is None:
        return None
    nvec, shape, low, high = got
    action = spaces.Discrete(nvec[0]) if len(nvec) == 1 else spaces.MultiDiscrete(nvec)
    obs = spaces.Box(low=low, high=high, shape=tuple(shape), dtype=np.float32)
    return action, obs


class ColonyParallelEnv(ParallelEnv):
    """A colony environment as a PettingZoo ``ParallelEnv``.

    ``reset(seed=s)`` gives the same episode as ``colony env reset`` with seed ``s``;
    ``reset()`` without a seed takes the previous seed plus one (0 first), so a run of
    resets is reproducible. Every agent acts each step; the episode ends for all agents at
    once (``terminated`` when the task is done, ``truncated`` at the step limit), and
    ``agents`` is then empty. Actions are codes of ``action_space(agent)`` or, for the text
    interface, strings; ``render()`` returns the text grid.
    """

    metadata = {"render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(
        self,
        name: str,
        settings: Mapping[str, Any] | None = None,
        *,
        text_observations: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: colony renders 'ansi' (text) only")
        self._core = _colony.Env(name, setting_strings(settings))
        self.metadata = {**type(self).metadata, "name": self._core.id}
        self.render_mode = render_mode
        self.text_observations = text_observations
        self.possible_agents: list[str] = list(self._core.agents())
        self.agents: list[str] = []
        self._seed: int | None = None
        self._action_spaces: dict[str, spaces.Space] = {}
        self._observation_spaces: dict[str, spaces.Space] = {}
        self._sizes: list[int] = []
        self.numeric = True
        for agent in self.possible_agents:
            got = numeric_spaces(self._core, agent)
            if got is None:
                self.numeric = False
                self._action_spaces[agent] = spaces.Text(_MAX_TEXT)
                self._observation_spaces[agent] = spaces.Text(_MAX_TEXT)
                self._sizes.append(0)
            else:
                self._action_spaces[agent], self._observation_spaces[agent] = got
                self._sizes.append(int(np.prod(got[1].shape)))

    def observation_space(self, agent: str) -> spaces.Space:
        """The (fixed) observation space of ``agent``."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The (fixed) action space of ``agent``."""
        return self._action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, Any], dict[str, dict]]:
        """Starts an episode; returns ``(observations, infos)``."""
        if seed is None:
            seed = 0 if self._seed is None else self._seed + 1
        self._seed = int(seed)
        self._core.reset(self._seed)
        self.agents = list(self.possible_agents)
        return self._observe(), self._infos([])

    def step(self, actions: Mapping[str, Any]):
        """Steps every live agent; returns ``(observations, rewards, terminations,
        truncations, infos)``. An agent left out takes its no-op on the text path; the
        numeric path needs every live agent's code."""
        if not self.agents:
            raise _colony.ColonyError("the episode is over: call reset() first")
        unknown = [a for a in actions if a not in self.possible_agents]
        if unknown:
            raise _colony.ColonyError(f"unknown agent {unknown[0]!r}")
        live = list(self.agents)
        if any(isinstance(a, str) for a in actions.values()) or not self.numeric:
            texts = {a: self._text(a, actions[a]) for a in actions}
            by_agent, terminated, truncated, events = self._core.step_text(texts)
            rewards = [by_agent.get(a, 0.0) for a in self.possible_agents]
        else:
            codes = []
            for agent in self.possible_agents:
                if agent not in actions:
                    raise _colony.ColonyError(f"no action for agent {agent!r}")
                codes.append(action_codes(actions[agent], f"agent {agent!r}").reshape(-1))
            raw, terminated, truncated, events = self._core.step_codes(
                np.concatenate(codes).tobytes()
            )
            rewards = np.frombuffer(raw, dtype="<f8").tolist()
        obs = self._observe()
        reward = {a: float(r) for a, r in zip(self.possible_agents, rewards) if a in live}
        term = {a: bool(terminated) for a in live}
        trunc = {a: bool(truncated) for a in live}
        infos = self._infos(json.loads(events))
        if terminated or truncated:
            self.agents = []
        return obs, reward, term, trunc, infos

    def render(self) -> str:
        """The text grid of the current state."""
        return self._core.render()

    def close(self) -> None:
        """Nothing to release (the environment lives in this process)."""

    def score(self) -> float:
        """The team score so far (the benchmark's own score)."""
        return self._core.score()

    def state_json(self) -> dict:
        """The whole state (what ``colony env reset --json`` prints)."""
        return json.loads(self._core.state_json())

    def _text(self, agent: str, action: Any) -> str:
        if isinstance(action, str):
            return action
        raise _colony.ColonyError(
            f"agent {agent!r}: mix of text and numeric actions in one step (use one kind)"
        )

    def _observe(self) -> dict[str, Any]:
        if not self.numeric:
            return {a: self._core.observe_text(a) for a in self.possible_agents}
        flat = np.frombuffer(self._core.observe_all(), dtype="<f4").copy()
        out, start = {}, 0
        for agent, size in zip(self.possible_agents, self._sizes):
            shape = self._observation_spaces[agent].shape
            out[agent] = flat[start : start + size].reshape(shape)
            start += size
        return out

    def _infos(self, events: list) -> dict[str, dict]:
        infos: dict[str, dict] = {a: {} for a in self.possible_agents}
        for event in events:
            agent = event.get("agent")
            if agent in infos:
                infos[agent].setdefault("events", []).append(event)
        if self.text_observations:
            for a in self.possible_agents:
                infos[a]["text"] = self._core.observe_text(a)
        return infos
