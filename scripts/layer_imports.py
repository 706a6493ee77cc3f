#!/usr/bin/env python3
"""Checks the layering rules of issue 25 that are in place: `src/llm` imports nothing from
`policy`, `env`, `registry` or the environment crates (the simulated model is taught by
responders the registry hands it). Prints each offending line; exits 1 when there is one.

Not yet checked (issue 25, part 2 is open): the generic layers `policy`, `eval`, `suite`,
`view` and `runtime` still name the concrete environment crates in places.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
rules = {
    "src/llm": re.compile(r"crate::(policy|env|registry|eval|suite|view|study|cli)\b|colony_(cube|swarmbench|wildfire)\b"),
}
bad = 0
for folder, pattern in rules.items():
    for path in sorted((root / folder).rglob("*.rs")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//", 1)[0]
            if pattern.search(code):
                print(f"{path.relative_to(root)}:{n}: {line.strip()}")
                bad += 1
print(f"layer imports: {bad} problem(s)")
sys.exit(1 if bad else 0)
