"""colony's runs from Python: ``eval``, ``compare`` and ``run_suite`` call the command line's
code in this process (``colony._colony.run_cli``), so files, resume and record/replay are
exactly those of ``colony eval``, ``colony compare`` and ``colony run``.

Keyword options map to the command's flags: ``max_tokens_total=5000`` is
``--max-tokens-total 5000``, ``True`` is a bare flag, ``False`` and ``None`` are left out, and
a list repeats the flag. Ctrl-C stops a run at once (finished results are on disk) and raises
``KeyboardInterrupt``; calling again with the same arguments resumes it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, Union

from colony import _colony
from colony.envs.parallel import setting_strings

PathLike = Union[str, "os.PathLike[str]"]


def _flags(options: Mapping[str, Any]) -> list[str]:
    """The command-line flags of keyword options (see the module docs)."""
    args: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            # `--flag=value`: a value starting with `-` (`max_steps=-1`) stays a value, so
            # the command line names the flag that refused it.
            args += [f"{flag}={v}" for v in value]
        else:
            text = os.fspath(value) if isinstance(value, os.PathLike) else str(value)
            args.append(f"{flag}={text}")
    return args


def _settings(settings: Mapping[str, Any] | None) -> list[str]:
    """``{"n": 4}`` as ``["--set", "n=4"]``."""
    return [arg for s in setting_strings(settings) for arg in ("--set", s)]


def _summary(out: PathLike) -> dict[str, Any]:
    path = Path(out) / "summary.json"
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def run(*args: str) -> None:
    """Runs ``colony ARGS…`` in this process (any subcommand), printing what the command
    line prints. Raises ``ColonyError`` with its one-line message on failure."""
    _colony.run_cli([str(a) for a in args])


def eval(
    dataset: str,
    *,
    out: PathLike,
    data: PathLike | None = None,
    policies: Sequence[Any] = ("single",),
    model: str | None = None,
    base_url: str | None = None,
    quiet: bool = True,
    **options: Any,
) -> dict[str, Any]:
    """Runs reasoning policies over a dataset, as ``colony eval`` does, and returns
    ``summary.json``.

    ``policies`` are specs as ``--policy`` takes them (``"self_consistency:k=5"``; each is
    its own row) or your own objects with ``solve(question, ask) -> final text``:
    ``ask(prompt, agent=0)`` asks agent ``agent`` of a team of ``agents`` (the object's
    attribute, default 1) through colony (in the transcript, counted, seeded, recorded and
    replayed; a failed call raises ``ColonyError`` and fails the item). The answer is
    extracted from the final text as for the built-ins; the row is ``python:<name>``. Without ``model`` and ``base_url`` the offline simulated model answers.
    Other keyword options are ``colony eval`` flags (``limit=20``, ``seed=1``,
    ``record="rec"``, ``replay="rec"``, ``concurrency=8``, ``max_tokens_total=10000``).
    """
    args = ["eval", "--dataset", dataset, "--out", os.fspath(out)]
    # Always `;`-separated (a trailing `;` included): a spec's own commas stay its options.
    _check_unique_names(policies)
    args += ["--policy", ";".join(_solver_spec(p) for p in policies) + ";"]
    args += _flags(
        {"data": data, "model": model, "base_url": base_url, "quiet": quiet, **options}
    )
    _colony.run_cli(args)
    return _summary(out)


def compare(
    env: str,
    *,
    out: PathLike,
    policies: Sequence[Any],
    seeds: str | Iterable[int] = "0..3",
    settings: Mapping[str, Any] | None = None,
    model: str | None = None,
    base_url: str | None = None,
    quiet: bool = True,
    **options: Any,
) -> dict[str, Any]:
    """Compares coordination policies on one embodied task, same seeds, as ``colony compare``
    does, and returns ``summary.json``.

    ``policies`` are specs (``"independent"``, ``"scripted:heuristic"``) or your own objects
    with ``decide(views, ask) -> {agent: reply}``: ``views`` is a list of dicts (``id``,
    ``observation``, ``instructions``, ``feedback``, ``neighbours``, ``step``, ``seed``,
    ``env``) for the agents deciding now, and ``ask(agent, prompt, purpose="act")`` calls that
    agent's model through colony (logged, counted, recorded and replayed; a failed call raises
    ``ColonyError`` and fails the step). Replies are the environment's action text. An object
    runs as the row ``python:<name>``, ``name`` being its ``name`` attribute or its class
    name.

    ``seeds`` is a range (``"0..20"``) or integers; ``settings`` are the environment's
    ``--set`` keys (``{"n": 4}``). Other keyword options are ``colony compare`` flags
    (``grid=["level=13,14"]``, ``max_steps=30``, ``baseline="scripted:noop"``).
    """
    if not isinstance(seeds, str):
        seeds = _seed_list(seeds)
    _check_unique_names(policies)
    policies = [_policy_spec(p) for p in policies]
    args = ["compare", "--env", env, "--out", os.fspath(out), "--seeds", seeds]
    args += ["--policies", ";".join(policies) + ";"]
    args += _settings(settings)
    args += _flags({"model": model, "base_url": base_url, "quiet": quiet, **options})
    _colony.run_cli(args)
    return _summary(out)


# The most seeds a comparison takes (as `colony compare --seeds`).
MAX_SEEDS = 1_000_000


def _seed_list(seeds: Iterable[int]) -> str:
    """``seeds`` as ``--seeds`` text: a step-1 ``range`` as ``a..b`` (never expanded), any
    other iterable read up to ``MAX_SEEDS`` + 1 items, so ``range(10**9)`` or an endless
    generator is a clear error, not exhausted memory."""
    if isinstance(seeds, range) and seeds.step == 1:
        if len(seeds) > MAX_SEEDS:
            raise _colony.ColonyError(
                f"seeds: {len(seeds)} seeds (at most {MAX_SEEDS})"
            )
        if len(seeds) == 0:
            raise _colony.ColonyError("seeds: the range is empty")
        return f"{seeds.start}..{seeds.stop}"
    out = []
    for s in seeds:
        if len(out) == MAX_SEEDS:
            raise _colony.ColonyError(f"seeds: more than {MAX_SEEDS} seeds")
        if isinstance(s, bool) or not isinstance(s, int) or s < 0 or s >= 2**64:
            raise _colony.ColonyError(
                f"seeds: {str(s)[:80]!s} is not an integer in 0..2^64"
            )
        out.append(str(s))
    return ",".join(out)


def _object_name(policy: Any) -> str:
    return str(getattr(policy, "name", None) or type(policy).__name__)


def _check_unique_names(policies: Sequence[Any]) -> None:
    """Refuses two policies that would be one row (and write one directory): two Python
    objects with the same ``name``, or a spec given twice, naming both."""
    seen: dict[str, str] = {}
    for p in policies:
        if isinstance(p, str):
            label, shown = p.strip().rstrip(":").strip(), repr(p)
        else:
            label = f"python:{_object_name(p)}"
            shown = f"a {type(p).__name__} object named {_object_name(p)!r}"
        if label in seen:
            raise _colony.ColonyError(
                f"policies: {seen[label]} and {shown} are both the row {label}; "
                "give each policy a distinct name"
            )
        seen[label] = shown


def _solver_spec(policy: Any) -> str:
    """A reasoning policy spec, registering a Python object as ``python:<name>``."""
    if isinstance(policy, str):
        return policy
    name = _object_name(policy)
    _colony.register_solver(name, policy)
    return f"python:name={name},label=python:{name}"


def _policy_spec(policy: Any) -> str:
    """A policy spec, registering a Python policy object as ``python:<name>``."""
    if isinstance(policy, str):
        return policy
    name = _object_name(policy)
    _colony.register_policy(name, policy)
    return f"python:{name}"


def run_suite(
    path: PathLike, *, out: PathLike | None = None, quiet: bool = True, **options: Any
) -> dict[str, Any]:
    """Runs (or resumes) a suite file, as ``colony run`` does, and returns its
    ``summary.json``. Other keyword options are ``colony run`` flags (``model="sim"``,
    ``dry_run=True``, ``shard="0/4"``). With ``dry_run=True`` nothing runs and ``{}`` is
    returned."""
    args = ["run", os.fspath(path)]
    args += _flags({"out": out, "quiet": quiet, **options})
    _colony.run_cli(args)
    if options.get("dry_run"):
        return {}
    if out is None:
        raise ValueError("run_suite needs out= to read the summary back")
    return _summary(out)


def load_results(run_dir: PathLike, *, as_dataframe: bool = False) -> Any:
    """The records of a run directory: one dict per item of a ``colony eval`` run (from
    ``<label>.jsonl``, with a ``policy`` key added) or per episode of a ``colony compare``
    run (from ``episodes.jsonl``). With ``as_dataframe=True`` returns a pandas DataFrame
    (pandas is needed then, and only then)."""
    root = Path(run_dir)
    if not root.is_dir():
        raise _colony.ColonyError(f"{root}: not a run directory (it does not exist or is a file)")
    records: list[dict[str, Any]] = []
    episodes = root / "episodes.jsonl"
    if episodes.exists() and not episodes.is_file():
        raise _colony.ColonyError(f"{episodes}: not a regular file")
    if episodes.is_file():
        records = _read_jsonl(episodes)
    else:
        for path in sorted(root.glob("*.jsonl")):
            for row in _read_jsonl(path):
                row.setdefault("policy", path.stem)
                records.append(row)
    if as_dataframe:
        import pandas  # noqa: PLC0415 - optional dependency

        return pandas.DataFrame.from_records(records)
    return records


# The largest results file `load_results` reads, and its longest line.
MAX_RESULTS_BYTES = 1 << 30
MAX_LINE_BYTES = 64 << 20


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path``, bounded: only a regular file (a link to a device such as
    ``/dev/zero`` is refused), at most ``MAX_RESULTS_BYTES`` in all and ``MAX_LINE_BYTES`` per
    line, each a ``ColonyError`` naming the file."""
    if not path.is_file():
        raise _colony.ColonyError(f"{path}: not a regular file")
    size = path.stat().st_size
    if size > MAX_RESULTS_BYTES:
        raise _colony.ColonyError(
            f"{path}: {size} bytes, more than load_results reads ({MAX_RESULTS_BYTES})"
        )
    rows = []
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            line = f.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            if len(line) > MAX_LINE_BYTES:
                raise _colony.ColonyError(
                    f"{path}: a line longer than {MAX_LINE_BYTES} bytes"
                )
            line = line.strip()
            if line:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    # A line torn by a killed run: the command line skips it too on resume.
                    continue
    return rows
