"""Typed stubs of ``colony._colony``, the compiled core (PyO3). Arrays cross as
little-endian bytes: f32 observations, f64 rewards, i64 action codes, u8 flags."""

from typing import Optional

__version__: str

class ColonyError(Exception):
    """An error colony reports as one line: a bad setting, file, action or run."""

class Env:
    """One colony environment, built by name from the registry with ``--set`` settings."""

    def __init__(self, name: str, settings: list[str] = ...) -> None: ...
    @property
    def id(self) -> str:
        """The environment id (``cube-v0``)."""
    def agents(self) -> list[str]:
        """Agent ids, in the environment's order."""
    def spaces(self, agent: str) -> Optional[tuple[list[int], list[int], float, float]]:
        """``(action_nvec, observation_shape, low, high)``, or None if text only."""
    def reset(self, seed: int) -> None:
        """Starts the episode of ``seed``."""
    def observe_all(self) -> bytes:
        """Every agent's numeric observation (f32), end to end in agent order."""
    def step_codes(self, codes: bytes) -> tuple[bytes, bool, bool, str]:
        """One step from i64 codes; ``(rewards f64, terminated, truncated, events JSON)``."""
    def step_text(
        self, actions: dict[str, str]
    ) -> tuple[dict[str, float], bool, bool, str]:
        """One step from action texts; agents left out take their no-op."""
    def observe_text(self, agent: str) -> str:
        """The text observation of ``agent`` (what an LLM agent is shown)."""
    def render(self) -> str:
        """The text grid of the current state."""
    def score(self) -> float:
        """The team score so far."""
    def state_json(self) -> str:
        """The whole state as JSON text."""

class VecEnv:
    """``count`` copies of one environment, stepped together on Rust threads."""

    def __init__(self, name: str, settings: list[str] = ..., count: int = 1) -> None: ...
    def sizes(self) -> tuple[int, int, int, int]:
        """``(copies, agents per copy, action components per copy, observation values per copy)``."""
    def reset(self, seeds: list[int]) -> bytes:
        """Resets copy ``i`` to ``seeds[i]``; every copy's observations (f32)."""
    def step(self, codes: bytes) -> tuple[bytes, bytes, bytes, bytes]:
        """``(observations f32, rewards f64, terminated u8, truncated u8)``."""
    def seeds(self) -> list[int]:
        """Each copy's current seed."""

def run_cli(args: list[str]) -> None:
    """Runs ``colony ARGS…`` in this process; raises ``ColonyError`` or ``KeyboardInterrupt``."""

def environments() -> list[tuple[str, str]]:
    """The registered environments as ``(id, one-line description)``."""

class Ask:
    """The handle a Python policy's ``decide`` receives to call an agent's model."""

    def __call__(self, agent: str, prompt: str, purpose: str = "act") -> str:
        """The reply of ``agent``'s model to ``prompt``; raises ``ColonyError`` on failure."""

def register_policy(name: str, policy: object) -> None:
    """Registers an object with ``decide(views, ask)`` as the policy ``python:<name>``."""

class AskAgent:
    """The handle a Python reasoning policy's ``solve`` receives."""

    def __call__(self, prompt: str, agent: int = 0) -> str:
        """The reply of team agent ``agent`` to ``prompt``; raises ``ColonyError`` on failure."""

def register_solver(name: str, solver: object) -> None:
    """Registers an object with ``solve(question, ask)`` as the policy ``python:name=<name>``."""
