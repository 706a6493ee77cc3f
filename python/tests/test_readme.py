"""The two examples of the "From Python" section of docs/guide/python.md run as written."""

import re

import pytest

GUIDE = ("docs", "guide", "python.md")


def examples(root):
    text = root.joinpath(*GUIDE).read_text(encoding="utf-8")
    section = text.split("## From Python", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_readme_has_the_two_short_examples(root):
    found = examples(root)
    assert len(found) == 2
    assert all(len(block.strip().splitlines()) <= 10 for block in found)


@pytest.mark.parametrize("index", [0, 1])
def test_readme_example_runs(root, index, capsys):
    exec(compile(examples(root)[index], f"docs/guide/python.md example {index + 1}", "exec"), {})
    assert capsys.readouterr().out.strip()
