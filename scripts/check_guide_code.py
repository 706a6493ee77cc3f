#!/usr/bin/env python3
"""Check that every Rust code block of the guides is compiled code.

Usage: python3 scripts/check_guide_code.py   (from anywhere in the repository)

A ```rust block in README.md or under docs/ must be an excerpt of a Rust file that CI compiles
and tests: its non-blank lines, with leading and trailing spaces dropped, must appear in the
same order and without gaps among the non-blank lines of one `.rs` file under examples/,
tests/, src/ or crates/. The guides then show code from the plugin crate (examples/plugin,
built and tested in CI) or another compiled file, and cannot drift from the API: a guide whose
snippet no longer matches the code fails here. A line `// …` in a block stands for elided
lines (any number, skipped); a block needs at least one other line. Blocks fenced as
```rust,ignore or ```rust,no_run are not allowed; fence text that is not Rust as ```text,
```toml, ```sh and so on.

Exit status 1 with one line per block that matches no file.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ["examples", "tests", "src", "crates"]
ELIDED = "// …"


def blocks(path):
    """(line number, fence info, lines) of every fenced block of a Markdown file."""
    out, cur, start, info = [], None, 0, ""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = re.match(r"^\s*```(.*)$", line)
        if m and cur is None:
            cur, start, info = [], n, m.group(1).strip()
        elif m and cur is not None:
            out.append((start, info, cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def norm(lines):
    return [l.strip() for l in lines if l.strip()]


def source_lines():
    files = {}
    for top in SOURCES:
        for f in sorted((ROOT / top).rglob("*.rs")):
            if "target" in f.parts:
                continue
            files[f] = norm(f.read_text(encoding="utf-8").splitlines())
    return files


def parts_of(block):
    """The block split at `// …` lines into runs that must each match in order."""
    parts, cur = [], []
    for l in norm(block):
        if l == ELIDED:
            if cur:
                parts.append(cur)
            cur = []
        else:
            cur.append(l)
    if cur:
        parts.append(cur)
    return parts


def find_run(hay, run, start):
    for i in range(start, len(hay) - len(run) + 1):
        if hay[i:i + len(run)] == run:
            return i + len(run)
    return None


def matches(hay, parts):
    at = 0
    for run in parts:
        at = find_run(hay, run, at)
        if at is None:
            return False
    return True


def main():
    sources = source_lines()
    docs = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
    bad = checked = 0
    for doc in docs:
        for start, info, lines in blocks(doc):
            lang = info.split(",")[0].strip()
            if lang != "rust":
                continue
            rel = doc.relative_to(ROOT)
            if "ignore" in info or "no_run" in info:
                print(f"{rel}:{start}: a ```{info} block: show compiled code instead")
                bad += 1
                continue
            checked += 1
            parts = parts_of(lines)
            if not parts:
                print(f"{rel}:{start}: an empty Rust block: show an excerpt of compiled code")
                bad += 1
            elif not any(matches(hay, parts) for hay in sources.values()):
                print(f"{rel}:{start}: this Rust block is not an excerpt of any compiled file "
                      f"under {', '.join(SOURCES)}/")
                bad += 1
    print(f"checked {checked} Rust block(s) of the guides: {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
