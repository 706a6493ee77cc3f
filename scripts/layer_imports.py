#!/usr/bin/env python3
"""Checks the layering rules of docs/design/architecture.md §2:
- `crates/colony-llm` imports nothing from `policy`, `env`, `registry` or the environment crates (the
  simulated model is taught by responders the registry hands it);
- the generic layers `policy`, `eval`, `suite`, `view`, `llm` and `runtime` name none of the
  concrete environment crates and never downcast an environment (`as_any`): what they need
  comes from the self-description methods of `colony_env_api`. Only the built-in registration
  (`crates/colony-policy/src/registry/builtin.rs`) and environment-specific CLI verbs may name the crates.
Prints each offending line; exits 1 when there is one.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
concrete = r"colony_(cube|swarmbench|wildfire)\b|\.as_any\(\)"
rules = {
    # The models floor is its own crate (Cargo already forbids it to name the layers above);
    # it must not name a concrete environment crate either.
    "crates/colony-llm/src": re.compile(r"\bcolony::|" + concrete),
}
for folder in [
    "crates/colony-policy/src",
    "crates/colony-eval/src",
    "crates/colony-runtime/src",
    "crates/colony-tools/src",
]:
    rules[folder] = re.compile(concrete)
# The built-in registration is the one place the concrete crates are named.
allowed = {"crates/colony-policy/src/registry/builtin.rs"}
bad = 0
for folder, pattern in rules.items():
    for path in sorted((root / folder).rglob("*.rs")):
        if str(path.relative_to(root)) in allowed:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//", 1)[0]
            if pattern.search(code):
                print(f"{path.relative_to(root)}:{n}: {line.strip()}")
                bad += 1
print(f"layer imports: {bad} problem(s)")
sys.exit(1 if bad else 0)
