"""colony.eval, compare and run_suite: the command line's runs from Python (same files,
resume, record/replay, errors, Ctrl-C)."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import colony


def test_eval_runs_each_variant_as_its_own_row_and_resumes(tmp_path, gsm8k_sample):
    out = tmp_path / "eval"
    policies = ["single", "self_consistency:k=3"]
    summary = colony.eval("gsm8k", data=gsm8k_sample, out=out, policies=policies, limit=5)
    assert set(summary["policies"]) == set(policies)
    assert summary["policies"]["single"]["n"] == 5
    assert summary["policies"]["self_consistency:k=3"]["calls"] == 15
    records = colony.load_results(out)
    assert len(records) == 10 and {r["policy"] for r in records} == set(policies)
    again = colony.eval("gsm8k", data=gsm8k_sample, out=out, policies=policies, limit=5)
    assert again["policies"] == summary["policies"]
    assert len(colony.load_results(out)) == 10  # finished items are not run again


def test_eval_records_and_replays(tmp_path, gsm8k_sample):
    rec = tmp_path / "rec"
    first = colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "a", limit=3, record=rec)
    replayed = colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "b", limit=3, replay=rec)
    assert replayed["policies"]["single"]["correct"] == first["policies"]["single"]["correct"]
    with pytest.raises(colony.ColonyError):
        colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "c", limit=4, replay=rec)


def test_compare_matches_the_command_line_files(tmp_path, capfd, timeless):
    out = tmp_path / "cmp"
    summary = colony.compare(
        "cube",
        out=out,
        policies=["scripted:heuristic", "independent"],
        seeds=[0, 1, 2],
        settings={"n": 2},
        max_steps=8,
    )
    assert summary == json.loads((out / "summary.json").read_text())
    episodes = colony.load_results(out)
    assert len(episodes) == 6
    capfd.readouterr()
    colony.run(
        "compare", "--env", "cube", "--set", "n=2", "--policies",
        "scripted:heuristic,independent", "--seeds", "0,1,2", "--max-steps", "8",
        "--out", str(tmp_path / "cli"), "--quiet",
    )
    cli = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert timeless(cli["policies"]) == timeless(summary["policies"])


def test_run_suite_dry_run_and_run(tmp_path, root):
    suite = root / "evals" / "smoke.toml"
    assert colony.run_suite(suite, dry_run=True) == {}
    summary = colony.run_suite(suite, out=tmp_path / "smoke")
    assert summary["suite"] == "smoke"
    assert [u["kind"] for u in summary["units"]] == ["datasets", "environment"]
    for unit in summary["units"]:
        assert (tmp_path / "smoke" / unit["dir"] / "summary.json").is_file(), unit


def test_errors_are_colony_errors_with_the_cli_message(tmp_path, gsm8k_sample):
    with pytest.raises(colony.ColonyError, match='unknown policy "nope"'):
        colony.compare("cube", out=tmp_path / "x", policies=["nope"], seeds="0..1")
    with pytest.raises(colony.ColonyError, match="no-such-file"):
        colony.eval("gsm8k", data=tmp_path / "no-such-file.jsonl", out=tmp_path / "y")
    with pytest.raises(colony.ColonyError) as bad_flag:
        colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "z", colour="red")
    assert "--colour" in str(bad_flag.value)


def test_dataframe_needs_pandas_only_when_asked(tmp_path, gsm8k_sample):
    colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "e", limit=2)
    assert len(colony.load_results(tmp_path / "e")) == 2
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            colony.load_results(tmp_path / "e", as_dataframe=True)
    else:
        assert len(colony.load_results(tmp_path / "e", as_dataframe=True)) == 2


CTRL_C_RUN = """
import colony, sys
try:
    colony.compare("swarmbench", out=sys.argv[1], policies=["independent"], seeds="0..300",
                   max_steps=30, concurrency=1, episodes_in_flight=1)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("finished", flush=True)
"""


def test_ctrl_c_stops_a_run_cleanly_and_it_resumes(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_RUN, str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    episodes = out / "episodes.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if episodes.is_file() and episodes.read_text().count("\n") >= 1:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in stdout, stderr
    done = episodes.read_text().count("\n")
    assert 1 <= done < 300
    summary = colony.compare(
        "swarmbench", out=out, policies=["independent"], seeds="0..300", max_steps=30
    )
    rows = colony.load_results(out)
    assert len(rows) == 300 and len({r["seed"] for r in rows}) == 300
    assert summary["policies"]["independent"]["episodes"] == 300


class _Stay:
    def __init__(self, name):
        self.name = name

    def decide(self, views, ask):
        return {v["id"]: "ACTION: STAY" for v in views}


class _Other(_Stay):
    pass


def test_two_policies_with_one_name_are_refused_naming_both(tmp_path):
    # Two objects named alike would be one row writing one directory at once.
    with pytest.raises(colony.ColonyError) as e:
        colony.compare(
            "swarmbench",
            out=tmp_path / "a",
            policies=[_Stay("same"), _Other("same")],
            seeds="0..1",
        )
    message = str(e.value)
    assert "_Stay" in message and "_Other" in message and "python:same" in message, message
    with pytest.raises(colony.ColonyError, match="'camon' and 'camon:'"):
        colony.compare("wildfire", out=tmp_path / "b", policies=["camon", "camon:"])
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_seeds_are_bounded_before_they_are_expanded(tmp_path):
    with pytest.raises(colony.ColonyError, match="at most 1000000"):
        colony.compare(
            "swarmbench", out=tmp_path / "a", policies=["scripted:noop"], seeds=range(10**9)
        )

    def endless():
        n = 0
        while True:
            yield n
            n += 1

    with pytest.raises(colony.ColonyError, match="more than 1000000"):
        colony.compare("swarmbench", out=tmp_path / "b", policies=["scripted:noop"], seeds=endless())
    for bad in ([2**64], [-1], [1.5], ["3"]):
        with pytest.raises(colony.ColonyError, match="not an integer"):
            colony.compare("swarmbench", out=tmp_path / "c", policies=["scripted:noop"], seeds=bad)
    summary = colony.compare(
        "swarmbench", out=tmp_path / "d", policies=["scripted:noop"], seeds=range(2, 4), max_steps=2
    )
    assert summary["policies"]["scripted:noop"]["seeds"] == [2, 3]


def test_load_results_is_bounded_and_refuses_what_is_not_a_run(tmp_path):
    with pytest.raises(colony.ColonyError, match="not a run directory"):
        colony.load_results(tmp_path / "missing")
    run = tmp_path / "run"
    run.mkdir()
    os.symlink("/dev/zero", run / "episodes.jsonl")
    with pytest.raises(colony.ColonyError, match="not a regular file"):
        colony.load_results(run)
    os.remove(run / "episodes.jsonl")
    (run / "episodes.jsonl").write_text('{"seed": 1}\n' + "x" * (64 << 20) + "y\n")
    with pytest.raises(colony.ColonyError, match="a line longer than"):
        colony.load_results(run)


def test_a_negative_option_is_named_by_its_flag(tmp_path):
    with pytest.raises(colony.ColonyError) as e:
        colony.compare("swarmbench", out=tmp_path / "a", policies=["scripted:noop"], max_steps=-1)
    message = str(e.value)
    assert "--max-steps" in message and "unexpected argument" not in message, message
    assert "\n" not in message, message
