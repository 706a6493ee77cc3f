"""Embodied policies written in Python, run by colony.compare like built-ins."""

import json
import socket

import pytest

import colony


class PyIndependent:
    """The built-in `independent` policy in Python: each deciding agent asks its model with
    its observation and takes the reply."""

    name = "py_independent"

    def decide(self, views, ask):
        return {v["id"]: ask(v["id"], v["observation"]) for v in views}


class Stay:
    """A heuristic: everybody stays, no model calls."""

    def decide(self, views, ask):
        return {v["id"]: "ACTION: STAY" for v in views}


class Broken:
    name = "broken"

    def decide(self, views, ask):
        raise RuntimeError("no plan")


def test_a_python_policy_equals_the_builtin_it_reimplements(tmp_path):
    summary = colony.compare(
        "swarmbench", out=tmp_path / "run", seeds="0..3", max_steps=6,
        policies=["independent", PyIndependent(), Stay()],
    )
    rows = summary["policies"]
    assert set(rows) == {"independent", "python:py_independent", "python:Stay"}
    ours, builtin = rows["python:py_independent"], rows["independent"]
    assert ours["episodes"] == builtin["episodes"] == 3
    assert ours["score_mean"] == builtin["score_mean"]
    assert ours["calls"] == builtin["calls"] > 0
    assert rows["python:Stay"]["calls"] == 0
    # Its calls are in the episode call logs like a built-in's.
    episodes = [e for e in colony.load_results(tmp_path / "run") if e["policy"] == "python:py_independent"]
    assert len(episodes) == 3 and all(e["calls"] > 0 for e in episodes)


def test_python_policy_calls_are_recorded_and_replayed(tmp_path, timeless):
    rec = tmp_path / "rec"
    first = colony.compare("cube", out=tmp_path / "a", seeds="0..2", max_steps=5,
                           settings={"n": 2}, policies=[PyIndependent()], record=rec)
    again = colony.compare("cube", out=tmp_path / "b", seeds="0..2", max_steps=5,
                           settings={"n": 2}, policies=[PyIndependent()], replay=rec)
    assert timeless(first["policies"]) == timeless(again["policies"])


def test_an_exception_in_decide_is_an_errored_episode_not_a_score(tmp_path):
    with pytest.raises(colony.ColonyError):
        colony.compare("cube", out=tmp_path / "run", seeds="0..2", max_steps=5,
                       settings={"n": 2}, policies=[Broken(), "scripted:noop"])
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["policies"]["python:broken"]["errors"] == 2
    episodes = [e for e in colony.load_results(tmp_path / "run") if e["policy"] == "python:broken"]
    assert all("no plan" in (e.get("error") or "") for e in episodes)


def test_a_dead_endpoint_fails_the_step_even_if_decide_swallows_the_error(tmp_path):
    class Swallow:
        name = "swallow"

        def decide(self, views, ask):
            try:
                ask(views[0]["id"], "hello")
            except colony.ColonyError:
                pass
            return {v["id"]: "ACTION: STAY" for v in views}

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    with pytest.raises(colony.ColonyError):
        colony.compare("swarmbench", out=tmp_path / "run", seeds="0..1", max_steps=3,
                       policies=[Swallow()], model="m", base_url=f"http://127.0.0.1:{port}/v1",
                       max_retries=0, timeout=5)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    row = summary["policies"]["python:swallow"]
    assert row["errors"] == 1 and row["failed_calls"] >= 1


def test_bad_policy_objects_are_refused_by_name(tmp_path):
    with pytest.raises(colony.ColonyError, match="decide"):
        colony.compare("cube", out=tmp_path / "x", policies=[object()], seeds="0..1")
    with pytest.raises(colony.ColonyError, match="policy name"):
        class Named:
            name = "has space"

            def decide(self, views, ask):
                return {}

        colony.compare("cube", out=tmp_path / "y", policies=[Named()], seeds="0..1")


class PySingle:
    """The built-in `single` policy in Python: one agent answers the question."""

    name = "py_single"

    def solve(self, question, ask):
        return ask(question)


class AnswerThenCheck:
    agents = 2

    def solve(self, question, ask):
        first = ask(question, agent=0)
        return ask(f"{question}\n\nAnother agent answered:\n{first}\nGive your final answer.", agent=1)


def test_a_python_reasoning_policy_runs_in_eval_like_a_builtin(tmp_path, gsm8k_sample):
    summary = colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "run", limit=6,
                          policies=["single", PySingle(), AnswerThenCheck()])
    rows = summary["policies"]
    assert set(rows) == {"single", "python:py_single", "python:AnswerThenCheck"}
    assert rows["python:py_single"]["n"] == 6 and rows["python:py_single"]["calls"] == 6
    assert rows["python:AnswerThenCheck"]["calls"] == 12
    assert rows["python:py_single"]["errors"] == 0
    records = [r for r in colony.load_results(tmp_path / "run") if r["policy"] == "python:AnswerThenCheck"]
    assert len(records) == 6 and all(r.get("answer") is not None for r in records)
    # Same seeds and calls: a rerun into another directory gives the same answers.
    again = colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "again", limit=6,
                        policies=[PySingle()])
    timeless = lambda row: {k: v for k, v in row.items() if k != "wall_s"}  # noqa: E731
    assert timeless(again["policies"]["python:py_single"]) == timeless(rows["python:py_single"])


def test_a_failing_solve_is_an_errored_item_not_a_wrong_answer(tmp_path, gsm8k_sample):
    class Raises:
        def solve(self, question, ask):
            raise ValueError("cannot")

    with pytest.raises(colony.ColonyError, match="every item of python:Raises"):
        colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "run", limit=3,
                    policies=[Raises()])
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    row = summary["policies"]["python:Raises"]
    assert row["errors"] == 3 and row["correct"] == 0
    records = colony.load_results(tmp_path / "run")
    assert all("cannot" in (r.get("error") or "") for r in records)


def test_python_policies_show_in_the_viewer_and_logs(tmp_path, capfd):
    out = tmp_path / "run"
    colony.compare("cube", out=out, seeds="0..2", max_steps=4, settings={"n": 2},
                   policies=[PyIndependent(), "scripted:noop"])
    colony.run("view", str(out))
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "python:py_independent" in page
    capfd.readouterr()
    episode = next(e for e in colony.load_results(out) if e["policy"] == "python:py_independent")
    colony.run("logs", "cat", str(out))
    printed = capfd.readouterr().out
    calls = [json.loads(line) for line in printed.splitlines() if line.startswith("{")]
    assert any(c.get("purpose") == "act" for c in calls) and episode["calls"] > 0
