"""The `cube` environment as a PettingZoo ``ParallelEnv`` (see ``colony.envs`` for its spaces)."""

from __future__ import annotations

from typing import Any

from colony.envs.parallel import ColonyParallelEnv


def parallel_env(
    *, text_observations: bool = False, render_mode: str | None = None, **settings: Any
) -> ColonyParallelEnv:
    """A `cube` environment configured with ``colony compare --set`` keys as keyword
    arguments; ``text_observations=True`` adds each agent's text to ``infos``."""
    return ColonyParallelEnv(
        "cube", settings, text_observations=text_observations, render_mode=render_mode
    )
