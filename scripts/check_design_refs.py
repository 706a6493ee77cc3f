#!/usr/bin/env python3
"""Check that the code's references to the design notes resolve.

Usage: python3 scripts/check_design_refs.py [--verbose]   (from anywhere in the repository)

Headings of docs/design/*.md of the form `## §4.2 Title` (any level) define sections. The
check reads:

* comments of every `.rs` file under src/, crates/, environments/, tests/ and examples/ (lines starting
  with `//`, and trailing `// …` comments of lines without string literals), and
* every Markdown file of the repository (explicit references only; the notes themselves are
  also checked for their bare references).

A reference is either explicit, `docs/design/<note>.md §N` or `<note>.md §N` (ranges
`§2.4–§2.5`, `§4.4–4.7`, `§14.4/§14.5` and lists `§1.7, §1.9` right after the path check
every end), or bare, `§N`
(also `design §N`). A bare reference resolves against the notes the same file names
explicitly, by the numbering rules of docs/design/README.md: the reasoning notes share one
numbering (§0, §6 reasoning.md; §1 selforg.md; §2 swarmsys.md; §3 baselines.md; §4, §5,
§7 grading.md), and so do wildfire.md and frameworks.md (§14). References to the papers' own
sections ("the paper's §2.4", "SelfOrg §2.6", "§3.3 of the paper") are skipped.

Exit status 1 when a reference is dangling (no such note or heading), a bare reference has no
note to resolve against, or a file still cites the old specs ("spec §", "spec `x.md`").
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DESIGN = ROOT / "docs" / "design"

FAMILY = {"reasoning": "reasoning", "selforg": "reasoning", "swarmsys": "reasoning",
          "baselines": "reasoning", "grading": "reasoning", "wildfire": "wildfire",
          "frameworks": "wildfire", "cube": "cube", "swarmbench": "swarmbench",
          "architecture": "architecture", "sandbox": "sandbox", "tools": "tools"}
REASONING = {"0": "reasoning", "6": "reasoning", "1": "selforg", "2": "swarmsys",
             "3": "baselines", "4": "grading", "5": "grading", "7": "grading"}

NUM = r"\d+(?:\.\d+)*"
ONE = rf"§({NUM})(?:\s*[–/-]\s*§?({NUM}))?"
NOTE = (r"(?:docs/design/|\b)"
        r"(reasoning|selforg|swarmsys|baselines|grading|wildfire|frameworks|cube|swarmbench|architecture|sandbox|tools)\.md")
EXPLICIT = re.compile(rf"{NOTE}((?:,?\s*§{NUM}(?:\s*[–/-]\s*§?{NUM})?)+)")
BARE = re.compile(ONE)
PAPER_BEFORE = re.compile(
    r"(paper's|paper|SelfOrg|SwarmSys|MASLab|[Aa]ppendix|Table|Algorithm|Fig\.)\s*$")
PAPER_AFTER = re.compile(r"^\s+of the (paper|SelfOrg paper)")
OLD_SPEC = re.compile(r"\b[Ss]pec:? (§|`\w+\.md`)")


def headings():
    notes = {}
    for f in sorted(DESIGN.glob("*.md")):
        secs = set()
        for line in f.read_text(encoding="utf-8").splitlines():
            m = re.match(rf"^#{{1,6}} §({NUM})\b", line)
            if m:
                secs.add(m.group(1))
        notes[f.stem] = secs
    return notes


def note_for(family, num):
    top = num.split(".")[0]
    if family == "reasoning":
        return REASONING.get(top)
    if family == "wildfire":
        return "frameworks" if top == "14" else "wildfire"
    return family


def end_of(start, end):
    """`§4.4.2–3` ends at 4.4.3; `§4.4–4.7` at 4.7; `§1–2` at 2."""
    if end is None:
        return None
    s, e = start.split("."), end.split(".")
    if len(e) < len(s):
        return ".".join(s[: len(s) - len(e)] + e)
    return end


def comment_parts(path):
    """(line number, text) of the comments of a Rust file."""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if re.match(r"^\s*//", line):
            yield n, line
        elif "//" in line:
            code, _, comment = line.partition("//")
            if '"' not in code and "'" not in code:
                yield n, "//" + comment


def md_parts(path):
    yield from enumerate(path.read_text(encoding="utf-8").splitlines(), 1)


def check_file(path, parts, notes, errors, stats, check_bare, own_family=None):
    rel = path.relative_to(ROOT)
    parts = list(parts)
    text = "\n".join(t for _, t in parts)
    named = {m.group(1) for m in EXPLICIT.finditer(text)}
    named |= set(re.findall(r"docs/design/(\w+)\.md", text))
    families = {FAMILY[n] for n in named if n in FAMILY}
    if own_family:
        families.add(own_family)
    for n, line in parts:
        if OLD_SPEC.search(line):
            errors.append(f"{rel}:{n}: still cites the old specs: {line.strip()}")
        covered = []
        for m in EXPLICIT.finditer(line):
            note = m.group(1)
            covered.append((m.start(2), m.end(2)))
            if note not in notes:
                errors.append(f"{rel}:{n}: no note docs/design/{note}.md")
                continue
            for r in BARE.finditer(m.group(2)):
                for num in (r.group(1), end_of(r.group(1), r.group(2))):
                    if num is None:
                        continue
                    stats["explicit"] += 1
                    if num not in notes[note]:
                        errors.append(f"{rel}:{n}: docs/design/{note}.md has no §{num}")
        for m in re.finditer(r"docs/design/(\w+)\.md", line):
            if m.group(1) not in notes:
                errors.append(f"{rel}:{n}: no note docs/design/{m.group(1)}.md")
        if not check_bare:
            continue
        for r in BARE.finditer(line):
            if any(a <= r.start() < b for a, b in covered):
                continue
            if PAPER_BEFORE.search(line[: r.start()]) or PAPER_AFTER.match(line[r.end():]):
                stats["paper"] += 1
                continue
            if not families:
                errors.append(f"{rel}:{n}: bare §{r.group(1)} but the file names no note")
                continue
            for num in (r.group(1), end_of(r.group(1), r.group(2))):
                if num is None:
                    continue
                stats["bare"] += 1
                targets = [note_for(f, num) for f in sorted(families)]
                if not any(t in notes and num in notes[t] for t in targets):
                    where = ", ".join(f"{t}.md" for t in targets if t) or "any note it names"
                    errors.append(f"{rel}:{n}: §{num} is not a heading of {where}")


def main():
    notes = headings()
    errors, stats = [], {"explicit": 0, "bare": 0, "paper": 0, "files": 0}
    for top in ["src", "crates", "environments", "tests", "examples"]:
        for f in sorted((ROOT / top).rglob("*.rs")):
            if "target" in f.parts:
                continue
            stats["files"] += 1
            check_file(f, comment_parts(f), notes, errors, stats, check_bare=True)
    for f in sorted(ROOT.rglob("*.md")):
        if any(p in ("target", "node_modules") or p.startswith(".") for p in
               f.relative_to(ROOT).parts):
            continue
        stats["files"] += 1
        in_design = f.parent == DESIGN and f.stem in FAMILY
        check_file(f, md_parts(f), notes, errors, stats, check_bare=in_design,
                   own_family=FAMILY.get(f.stem) if in_design else None)
    for e in errors:
        print(e)
    print(f"checked {stats['files']} files: {stats['explicit']} explicit and {stats['bare']} bare "
          f"section references ({stats['paper']} paper references skipped), "
          f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
