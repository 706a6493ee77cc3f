"""Bounds of the Python front, under an address-space limit where memory is the point: settings
whose observations or copies would not fit are a ``ColonyError`` naming the figures (never a
``PanicException`` or an aborted interpreter), and a solver that asks without end fails its
item with a clear error."""

import subprocess
import sys
import textwrap

import pytest

import colony

LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
import colony
from colony.envs import VectorEnv, swarmbench
try:
    {call}
except colony.ColonyError as e:
    print("ColonyError:", e)
    sys.exit(0)
print("no error")
sys.exit(1)
"""


@pytest.mark.parametrize(
    "call, figures",
    [
        (
            "swarmbench.parallel_env(size=2000, view=1999, agents=8, memory=1).reset(seed=0)",
            ["8 agents", "MB"],
        ),
        ('VectorEnv("swarmbench", 1000, size=2000)', ["1000 copies", "GB"]),
        ('VectorEnv("cube", 65536, n=8).reset(0)', ["65536 copies", "GB"]),
    ],
)
def test_oversized_observations_and_batches_are_colony_errors(call, figures):
    script = LIMITED.format(call=call)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr[-2000:])
    line = done.stdout.strip()
    assert line.startswith("ColonyError:"), line
    for f in figures:
        assert f in line, line


class Looping:
    name = "looping"

    def solve(self, question, ask):
        for _ in range(2000):
            ask("again")
        return "42"


class Chatty:
    name = "chatty"
    max_conversation_bytes = 1000

    def solve(self, question, ask):
        for _ in range(50):
            ask("x" * 200)
        return "42"


def test_a_solver_asking_without_end_fails_its_item(tmp_path, gsm8k_sample):
    for solver, out, bound in [
        (Looping(), tmp_path / "a", "max_asks"),
        (Chatty(), tmp_path / "b", "max_conversation_bytes"),
    ]:
        # Every item errored, so nothing was scored: the run says so (never 0% correct).
        with pytest.raises(colony.ColonyError, match="ended with an error"):
            colony.eval("gsm8k", data=gsm8k_sample, out=out, policies=[solver], limit=1)
        rows = colony.load_results(out)
        assert len(rows) == 1 and bound in rows[0]["error"], rows


@pytest.mark.parametrize("agents", [-5, "3", 2.5, True, 1000])
def test_a_bad_team_size_is_refused_not_read_as_one(tmp_path, gsm8k_sample, agents):
    class Team:
        name = "team"

        def solve(self, question, ask):
            return ask(question)

    Team.agents = agents
    with pytest.raises(colony.ColonyError, match="agents"):
        colony.eval("gsm8k", data=gsm8k_sample, out=tmp_path / "o", policies=[Team()], limit=1)
