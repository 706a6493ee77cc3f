"""colony's environments as PettingZoo Parallel environments.

``colony.envs.swarmbench.parallel_env(**settings)``, ``colony.envs.cube.parallel_env(…)`` and
``colony.envs.wildfire.parallel_env(…)`` build the three benchmarks; ``parallel_env(name,
**settings)`` builds any registered environment by id or short name (``names()`` lists them).
Settings are the keys of ``colony compare --set`` (``parallel_env("cube", n=4)``).
``VectorEnv(name, count, **settings)`` steps many copies in one call on Rust threads.

Spaces (decided by colony, documented in docs/guide/python.md, "From Python"):

- SwarmBench: ``Discrete(5)`` actions UP, DOWN, LEFT, RIGHT, STAY (``Discrete(6)`` with SWITCH
  on Synchronization); observation ``Box(0, 1, (k, k, 8))``, one-hot channels off-map, ``W``,
  ``B``, ``P``, ``F``, ``N``, agent, self (the commander's is the whole map).
- CUBE: ``Discrete(5)`` actions STAY, UP, DOWN, LEFT, RIGHT; observation the ``K × K × 5``
  grid of the paper.
- Wildfire: ``MultiDiscrete([max_type + 2, size, size])`` actions ``[type, x, y]`` (the
  agent kind's primitives, and ``max_type + 1`` for "continue"); observation the original
  flat layout of 3728 values.

The text interface LLM agents use is there too: a ``str`` action is parsed as the
environment's action text (SwarmBench: ``"ACTION: UP\\nMSG: hello"``, the message channel),
and ``text_observations=True`` puts each agent's text observation in ``infos[agent]["text"]``.
"""

from __future__ import annotations

from typing import Any

from colony import _colony
from colony.envs.parallel import ColonyParallelEnv
from colony.envs.vector import VectorEnv

__all__ = ["ColonyParallelEnv", "VectorEnv", "names", "parallel_env"]


def names() -> list[tuple[str, str]]:
    """The registered environments as ``(id, one-line description)``."""
    return list(_colony.environments())


def parallel_env(
    name: str,
    *,
    text_observations: bool = False,
    render_mode: str | None = None,
    **settings: Any,
) -> ColonyParallelEnv:
    """Environment ``name`` (``"swarmbench-v0"`` or ``"swarmbench"``) as a PettingZoo
    ``ParallelEnv``, configured with ``--set`` keys as keyword arguments."""
    return ColonyParallelEnv(
        name, settings, text_observations=text_observations, render_mode=render_mode
    )
