"""A stopped or stuck Python policy: Ctrl-C during a busy or blocked `decide`/`solve` raises
`KeyboardInterrupt` without waiting for it and leaves nothing that can abort the interpreter
at exit, and a policy that neither asks nor returns for `timeout_seconds` fails its step or
item with a clear error."""

import socket
import subprocess
import sys
import threading

import pytest

import colony

STOPPED = """
import os, signal, sys, threading, time
import colony

class Busy:
    name = "busy"
    def decide(self, views, ask):
        os.kill(os.getpid(), signal.SIGINT)
        while True:
            pass

class Blocked:
    name = "blocked"
    def decide(self, views, ask):
        os.kill(os.getpid(), signal.SIGINT)
        threading.Event().wait()

class Asking:
    name = "asking"
    def solve(self, question, ask):
        os.kill(os.getpid(), signal.SIGINT)
        while True:
            ask(question)

kind = sys.argv[2]
try:
    if kind == "asking":
        colony.eval("gsm8k", data=sys.argv[3], out=sys.argv[1], policies=[Asking()], limit=1,
                    base_url=sys.argv[4], model="m", timeout=600, max_retries=0)
    else:
        policy = Busy() if kind == "busy" else Blocked()
        colony.compare("cube", out=sys.argv[1], policies=[policy], seeds="0..1", max_steps=3,
                       settings={"n": 2})
except KeyboardInterrupt:
    left = [t for t in threading.enumerate() if t.name == "colony-policy"]
    # The stopped call was not waited for: its thread is Python's own, a daemon.
    print("interrupted", len(left), all(t.daemon for t in left), flush=True)
    sys.exit(0)
print("finished", flush=True)
sys.exit(1)
"""


@pytest.fixture
def slow_server():
    """An endpoint that takes connections and never answers: an ask to it stays in flight."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        yield f"http://127.0.0.1:{s.getsockname()[1]}/v1"


@pytest.mark.parametrize("kind", ["busy", "blocked", "asking"])
def test_ctrl_c_during_decide_or_solve_exits_cleanly(tmp_path, kind, gsm8k_sample, slow_server):
    # Five tries: the abort at exit it guards against came in 5 of 5 before.
    for k in range(5):
        proc = subprocess.run(
            [sys.executable, "-c", STOPPED, str(tmp_path / f"run{k}"), kind,
             str(gsm8k_sample), slow_server],
            capture_output=True, text=True, timeout=120,
        )
        assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr[-2000:])
        assert "interrupted" in proc.stdout, proc.stdout
        if kind == "blocked":
            # Not waited for: the blocked call is still there, on a daemon thread.
            assert proc.stdout.split()[1:] == ["1", "True"], proc.stdout


class Spinning:
    """Runs Python code forever without asking; notes the TimeoutError colony sends it."""

    name = "spinning"
    timeout_seconds = 1

    def __init__(self):
        self.interrupted = threading.Event()

    def _spin(self):
        try:
            while True:
                pass
        except TimeoutError:
            self.interrupted.set()
            raise

    def decide(self, views, ask):
        self._spin()

    def solve(self, question, ask):
        self._spin()


def test_a_decide_that_never_returns_fails_its_episode_after_the_timeout(tmp_path):
    policy = Spinning()
    with pytest.raises(colony.ColonyError):
        colony.compare("cube", out=tmp_path / "run", policies=[policy, "scripted:noop"],
                       seeds="0..1", max_steps=3, settings={"n": 2})
    rows = [e for e in colony.load_results(tmp_path / "run") if e["policy"] == "python:spinning"]
    assert len(rows) == 1 and "timeout_seconds" in rows[0]["error"], rows
    # The thread was told to stop, not left spinning.
    assert policy.interrupted.wait(60)


def test_a_solve_that_never_returns_fails_its_item_after_the_timeout(tmp_path, gsm8k_sample):
    policy = Spinning()
    with pytest.raises(colony.ColonyError, match="ended with an error"):
        colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "e", policies=[policy], limit=1)
    rows = colony.load_results(tmp_path / "e")
    assert len(rows) == 1 and "timeout_seconds" in rows[0]["error"], rows
    assert policy.interrupted.wait(60)


@pytest.mark.parametrize("value", [0, -1, "5", 2.5, True, 10**6])
def test_a_bad_timeout_is_refused(tmp_path, gsm8k_sample, value):
    class Quick:
        name = "quick"
        timeout_seconds = value

        def decide(self, views, ask):
            return {}

        def solve(self, question, ask):
            return "1"

    with pytest.raises(colony.ColonyError, match="timeout_seconds"):
        colony.compare("cube", out=tmp_path / "c", policies=[Quick()], seeds="0..1",
                       settings={"n": 2})
    with pytest.raises(colony.ColonyError, match="timeout_seconds"):
        colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "e", policies=[Quick()], limit=1)
