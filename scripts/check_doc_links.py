#!/usr/bin/env python3
"""Check that the documentation refers only to things a reader can find.

Usage: python3 scripts/check_doc_links.py [--verbose] [FILE.md ...]   (from anywhere in the repository)

Without FILE arguments it checks README.md, every Markdown file under docs/, and the other
Markdown files of the repository (crate READMEs, evals/, roles/, prompts/, python/), skipping
target/, node_modules/ and hidden folders. For each file:

* every relative Markdown link or image, `[text](path)`, `![alt](path)` and `[ref]: path`
  (outside code), must name a file or folder that exists, relative to the linking file; a
  `#fragment` into a Markdown file (or `#fragment` alone, into the same file) must be the
  GitHub anchor of one of its headings (or an explicit `<a name=…>`/`id="…"`);
* every repository path written in code, inline (`crates/colony-llm/src/config.rs`) or in a fenced block,
  whose first component is one of src, docs, environments, examples, tests, scripts, evals,
  roles, prompts, python, assets or .ci, must exist, from the repository root or from the
  file's own folder (a crate README may say `src/lib.rs`). Globs (`roles/*.toml`) must match
  something; a placeholder (`prompts/<framework>/`, `docs/design/<note>.md`) checks the folder
  before it; a trailing `:LINE` is ignored. Paths of other first components (`runs/x/…`, a
  user's output) are never checked;
* no text, code included, may refer to a tracker issue by number (the word `issue` or
  `issues`, any case, then a number, `#` optional): readers cannot look issues up; describe
  the change, or cite the design note section (`docs/design/<note>.md §N`) that covers it.

Prints one line per problem, `path:line: message`, and exits 1 when there is any; a summary
goes to stderr.
"""
import glob
import pathlib
import re
import sys
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
PREFIXES = ("src", "crates", "docs", "environments", "examples", "tests", "scripts", "evals", "roles",
            "prompts", "python", "assets", ".ci")
SKIP_DIRS = {"target", "node_modules"}

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
REPO_PATH = re.compile(
    r"(?<![\w./~$%@+-])((?:" + "|".join(re.escape(p) for p in PREFIXES) + r")/[^\s`'\"(),;\]\[|=]*)")
ISSUE = re.compile(r"\bissues?\s+#?\d+\b", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"<a\s+[^>]*?(?:name|id)\s*=\s*[\"']([^\"']+)[\"']|\bid\s*=\s*\"([^\"]+)\"")
PLACEHOLDER = re.compile(r"[<{\[…]|\.\.\.")


def markdown_files():
    out = []
    for f in sorted(ROOT.rglob("*.md")):
        rel = f.relative_to(ROOT)
        if any(p in SKIP_DIRS or p.startswith(".") for p in rel.parts[:-1]):
            continue
        out.append(f)
    return out


def split_code(lines):
    """Yields (line number, text, in_fence) with fence marker lines reported as in a fence."""
    fence = None
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
                yield n, line, True
                continue
            if mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):].strip():
                fence = None
                yield n, line, True
                continue
        yield n, line, fence is not None


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)   # links: their text
    text = re.sub(r"<[^>]+>", "", text)                       # inline HTML
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        found, seen = set(), {}
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        for _, line, in_fence in split_code(lines):
            if in_fence:
                continue
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                k = seen.get(base, 0)
                seen[base] = k + 1
                found.add(base if k == 0 else f"{base}-{k}")
            for a in HTML_ANCHOR.finditer(line):
                found.add(a.group(1) or a.group(2))
        _anchors[path] = found
    return _anchors[path]


def check_link(f, n, target, problems):
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
        return  # http:, https:, mailto:, …
    path_part, _, frag = target.partition("#")
    path_part = urllib.parse.unquote(path_part)
    if path_part:
        dest = (f.parent / path_part).resolve()
        try:
            dest.relative_to(ROOT)
        except ValueError:
            problems.append(f"{rel(f)}:{n}: link leaves the repository: {target}")
            return
        if not dest.exists():
            problems.append(f"{rel(f)}:{n}: link to a missing file: {target}")
            return
    else:
        dest = f
    if frag and dest.is_file() and dest.suffix == ".md":
        frag = urllib.parse.unquote(frag)
        if frag not in anchors(dest):
            problems.append(f"{rel(f)}:{n}: no heading #{frag} in {rel(dest)}: {target}")


def exists(f, path):
    bases = [ROOT, f.parent]
    cut = PLACEHOLDER.search(path)
    if cut:
        path = path[: cut.start()]
        path = path[: path.rfind("/") + 1] if "/" in path else ""
        if not path:
            return True
    for base in bases:
        full = base / path
        if any(c in path for c in "*?"):
            if glob.glob(str(full), recursive=True):
                return True
        elif full.exists():
            return True
    return False


def check_code(f, n, code, problems, seen):
    for m in REPO_PATH.finditer(code):
        path = m.group(1)
        path = path.rstrip(".:,;!?")
        path = re.sub(r":\d+(?:[-–]\d+)?$", "", path)   # file:line
        path = path.rstrip(".:,;!?")
        if not path:
            continue
        if path not in seen:
            seen[path] = exists(f, path)
        if not seen[path]:
            problems.append(f"{rel(f)}:{n}: no such path in the repository: {path}")


def rel(p):
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def check_file(f, problems, stats):
    lines = f.read_text(encoding="utf-8").splitlines()
    seen_paths = {}
    for n, line, in_fence in split_code(lines):
        for m in ISSUE.finditer(line):
            problems.append(f"{rel(f)}:{n}: refers to a tracker issue by number: "
                            f"\"{m.group(0)}\" (describe the change, or cite a design note)")
        if in_fence:
            check_code(f, n, line, problems, seen_paths)
            continue
        spans = list(CODE_SPAN.finditer(line))
        for s in spans:
            check_code(f, n, s.group(2), problems, seen_paths)
        prose = CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)
        for m in LINK.finditer(prose):
            stats["links"] += 1
            check_link(f, n, m.group(1), problems)
        m = REF_DEF.match(prose)
        if m:
            stats["links"] += 1
            check_link(f, n, m.group(1), problems)
    stats["paths"] += len(seen_paths)


def main(argv):
    verbose = "--verbose" in argv
    args = [a for a in argv if a != "--verbose"]
    files = [pathlib.Path(a).resolve() for a in args] if args else markdown_files()
    problems, stats = [], {"links": 0, "paths": 0}
    for f in files:
        before = len(problems)
        check_file(f, problems, stats)
        if verbose:
            print(f"{rel(f)}: {len(problems) - before} problem(s)", file=sys.stderr)
    for p in problems:
        print(p)
    print(f"checked {len(files)} Markdown files: {stats['links']} links and {stats['paths']} "
          f"repository paths, {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
