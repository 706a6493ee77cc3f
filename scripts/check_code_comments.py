#!/usr/bin/env python3
"""Check that no code comment refers to a tracker issue by number.

Usage: python3 scripts/check_code_comments.py [FILE ...]   (from anywhere in the repository)

Readers of the code cannot look issues up, so a comment says why instead, or cites the design
note section that covers it (`docs/design/<note>.md §N`, which scripts/check_design_refs.py
checks). Without FILE arguments it reads every `.rs`, `.py`, `.pyi`, `.sh`, `.sbatch`,
`.toml`, `.yaml`, `.yml` and `.cfg` file of the repository and the scripts of .ci/, skipping
target/, node_modules/ and hidden folders other than .ci/. The comments read are:

* Rust: lines starting with `//` (`///` and `//!` included), and the trailing `// …` of a line
  with no `"` before its `//` (so a `//` inside a string literal is not a comment);
* Python: `#` comments and docstrings (found with the tokenizer);
* shell, TOML, YAML: lines starting with `#`, and the trailing ` # …` of a line with no quote
  before it.

A reference is the word `issue` or `issues` (any case) followed by a number, `#` optional,
also when a comment line ends with the word and the next comment line starts with the number.
Prints one line per reference, `path:line: text`, and exits 1 when there is any; a summary goes
to stderr. Strings outside comments (error messages, test data) are never read.
"""
import io
import pathlib
import re
import sys
import tokenize

ROOT = pathlib.Path(__file__).resolve().parent.parent
SKIP_DIRS = {"target", "node_modules"}
HASH_SUFFIXES = {".sh", ".sbatch", ".toml", ".yaml", ".yml", ".cfg"}
PY_SUFFIXES = {".py", ".pyi"}
REFERENCE = re.compile(r"\bissues?\s*#?\s*\d+", re.IGNORECASE)
ENDS_WITH_WORD = re.compile(r"\bissues?\s*#?\s*$", re.IGNORECASE)
STARTS_WITH_NUMBER = re.compile(r"^\s*#?\d")


def rust_comments(text):
    """(line number, comment text) of a Rust file."""
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("//"):
            yield n, stripped.lstrip("/!")
        elif "//" in line:
            code, _, comment = line.partition("//")
            if '"' not in code:
                yield n, comment.lstrip("/!")


def hash_comments(text):
    """(line number, comment text) of a shell, TOML or YAML file."""
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            yield n, stripped.lstrip("#!")
        elif " #" in line:
            code, _, comment = line.partition(" #")
            if '"' not in code and "'" not in code:
                yield n, comment.lstrip("#")


def python_comments(text):
    """(line number, comment text) of a Python file: comments, and docstrings line by line."""
    previous = tokenize.NEWLINE
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                yield tok.start[0], tok.string.lstrip("#")
            elif tok.type == tokenize.STRING and previous in (
                    tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                for k, line in enumerate(tok.string.splitlines()):
                    yield tok.start[0] + k, line
            if tok.type not in (tokenize.COMMENT, tokenize.NL):
                previous = tok.type
    except (tokenize.TokenError, SyntaxError) as e:
        print(f"warning: cannot tokenize ({e}); reading # comments only", file=sys.stderr)
        yield from hash_comments(text)


def reader_for(path):
    if path.suffix == ".rs":
        return rust_comments
    if path.suffix in PY_SUFFIXES:
        return python_comments
    if path.suffix in HASH_SUFFIXES:
        return hash_comments
    if path.parent.name == ".ci" and not path.suffix:
        return hash_comments
    return None


def source_files():
    for f in sorted(ROOT.rglob("*")):
        rel = f.relative_to(ROOT)
        if any(p in SKIP_DIRS or (p.startswith(".") and p != ".ci") for p in rel.parts[:-1]):
            continue
        if f.is_file() and reader_for(f):
            yield f


def check(path):
    """(line number, text) of each issue reference in the comments of `path`."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    comments = list(reader_for(path)(text))
    hits = []
    for k, (n, comment) in enumerate(comments):
        if REFERENCE.search(comment):
            hits.append((n, lines[n - 1].strip()))
        elif ENDS_WITH_WORD.search(comment) and k + 1 < len(comments):
            n2, following = comments[k + 1]
            if n2 == n + 1 and STARTS_WITH_NUMBER.match(following):
                hits.append((n, lines[n - 1].strip()))
    return hits


def main(argv):
    files = [pathlib.Path(a).resolve() for a in argv] or list(source_files())
    problems = 0
    for f in files:
        if not reader_for(f):
            continue
        rel = f.relative_to(ROOT) if f.is_relative_to(ROOT) else f
        for n, text in check(f):
            print(f"{rel}:{n}: {text}")
            problems += 1
    print(f"checked the comments of {len(files)} files: {problems} issue reference(s)",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
