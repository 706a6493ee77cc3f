"""colony from Python: LLM multi-agent orchestration with pluggable environments.

- ``colony.envs``: every colony environment (SwarmBench, CUBE, CREW-Wildfire, and the others
  in the registry) as a PettingZoo ``ParallelEnv`` with Gymnasium spaces, and
  ``colony.envs.VectorEnv``, which steps many copies in one call on Rust threads.
- ``colony.eval``, ``colony.compare`` and ``colony.run_suite``: the ``colony eval``,
  ``colony compare`` and ``colony run`` commands, run in this process through the same
  library code (same files, resume, record/replay); each returns the run's ``summary.json``.
- ``colony.load_results``: a run directory's per-item or per-episode records.
- ``colony.ColonyError``: every error colony reports, with the command line's one-line
  message.
"""

from colony._colony import ColonyError, __version__
from colony.runs import compare, eval, load_results, run, run_suite
from colony import envs

__all__ = [
    "ColonyError",
    "__version__",
    "compare",
    "envs",
    "eval",
    "load_results",
    "run",
    "run_suite",
]
