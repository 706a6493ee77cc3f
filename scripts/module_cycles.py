#!/usr/bin/env python3
"""Report import cycles between the top-level modules of a Rust crate.

Usage: python3 scripts/module_cycles.py [--edges] [--no-tests] CRATE_DIR...
       python3 scripts/module_cycles.py --all        (every crate under environments/)

A top-level module is a file or folder directly under `CRATE_DIR/src` (`sim.rs`,
`sim_agent/`); the crate root (`lib.rs`, `main.rs`) is not a node, because it re-exports
everything and would put every module into one cycle. The graph has an edge A -> B when code
of module A names module B through

* `use crate::B…` / `crate::B::…` paths (use trees such as `use crate::{a, b::c}` expanded),
* `super::B` where `super` is the crate root (in `a.rs` or `a/mod.rs`; `super::super::B` in
  `a/x.rs`; inline `mod tests { … }` blocks count one level deeper), or
* an item the crate root re-exports (`pub use b::Item;` in lib.rs, also `pub use b::*`):
  `use crate::Item` is an edge to `b`, the module that defines it, or
* a method call into an inherent impl kept elsewhere: when module A holds `impl T { fn m… }`
  for a type `T` that module B defines, and B's code calls `.m(` or `::m(` (and B has no `fn
  m` of its own), B uses A even though it imports nothing from it. Such split impls are how a
  cycle hides from the `use` lines, so they count (marked `[impl]` in the listing).

The script prints, per crate, the strongly connected components with more than one module
(each is an import cycle) and, for each, the edges inside it with the file and line that
creates them. `--edges` also prints the whole graph; `--no-tests` drops `#[cfg(test)]` code,
`tests.rs` / `tests/` files and the files of `#[cfg(test)] mod x;` declarations. The exit status is 1 when any crate has a cycle, so CI can
run it as a check.

The parser is lexical (comments and string literals are stripped, braces counted); it does
not expand macros or `#[path]` attributes, which the environment crates do not use.
"""
import pathlib
import re
import sys
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parent.parent

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_code(text):
    """Text with comments, string and char literals blanked (newlines kept, so lines hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 8]) and not re.match(r"\w", text[i - 1:i] or " "):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F}') or a lifetime ('a): blank only the literal.
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def expand_use_tree(tree):
    """Paths of a use tree: `crate::{a, b::{c, d}}` -> [crate::a, crate::b::c, crate::b::d]."""
    # An alias `x as y` becomes `x@y` so the whitespace can go.
    tree = re.sub(r"\s+as\s+", "@", tree)
    tree = re.sub(r"\s+", "", tree)

    def split_top(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            parts.append(cur)
        return parts

    def expand(s):
        brace = s.find("{")
        if brace < 0:
            return [s]
        prefix, inner = s[:brace], s[brace + 1:s.rfind("}")]
        paths = []
        for part in split_top(inner):
            for sub in expand(part):
                paths.append(prefix + sub)
        return paths

    return expand(tree)


class Crate:
    """The top-level modules of one crate and the references between them."""

    def __init__(self, crate_dir, include_tests=True):
        self.dir = pathlib.Path(crate_dir)
        self.src = self.dir / "src"
        self.include_tests = include_tests
        root = self.src / "lib.rs"
        if not root.exists():
            root = self.src / "main.rs"
        self.root = root
        root_code = strip_code(root.read_text())
        self.modules = set(re.findall(rf"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+({IDENT})\s*;", root_code))
        self.reexports = self._root_reexports(root_code)
        self.edges = defaultdict(list)  # (a, b) -> [(file, line), ...]

    def module_of(self, path):
        """The top-level module a file belongs to, and its depth below the crate root."""
        rel = path.relative_to(self.src)
        if len(rel.parts) == 1:
            return rel.stem, 1
        depth = len(rel.parts) - (1 if rel.name == "mod.rs" else 0)
        return rel.parts[0], depth

    def _public_items(self, module):
        """Names a module declares `pub` at its top level (for `pub use module::*`)."""
        names = set()
        files = [self.src / f"{module}.rs", self.src / module / "mod.rs"]
        for f in files:
            if f.exists():
                code = strip_code(f.read_text())
                names |= set(re.findall(
                    rf"(?m)^pub\s+(?:const\s+fn|unsafe\s+fn|fn|struct|enum|trait|type|const|static|mod|use\s+[\w:]*::)\s*({IDENT})",
                    code))
        return names

    def _root_reexports(self, root_code):
        mapping = {}
        for m in re.finditer(r"(?s)\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", root_code):
            for path in expand_use_tree(m.group(1)):
                path, _, alias = path.partition("@")
                parts = [p for p in path.split("::") if p]
                if parts and parts[0] in ("crate", "self"):
                    parts = parts[1:]
                if len(parts) < 2 or parts[0] not in self.modules:
                    continue
                name = alias or parts[-1]
                if name == "*":
                    for item in self._public_items(parts[0]):
                        mapping.setdefault(item, parts[0])
                else:
                    mapping[name] = parts[0]
        return mapping

    def test_only_files(self):
        """Files of modules declared `#[cfg(test)] mod name;` (test helpers such as
        `test_support.rs`), which are test code like `tests.rs`."""
        out = set()
        decl = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;")
        for f in self.src.rglob("*.rs"):
            here = f.parent if f.name in ("mod.rs", "lib.rs", "main.rs") else f.with_suffix("")
            for m in decl.finditer(f.read_text()):
                out.add(here / f"{m.group(1)}.rs")
                out.add(here / m.group(1) / "mod.rs")
        return out

    def files(self):
        test_only = set() if self.include_tests else self.test_only_files()
        for f in sorted(self.src.rglob("*.rs")):
            if f == self.root:
                continue
            rel = f.relative_to(self.src)
            if not self.include_tests and (f.name == "tests.rs" or "tests" in rel.parts[:-1]):
                continue
            if f in test_only:
                continue
            yield f

    def scan(self):
        codes = {}
        for f in self.files():
            module, depth = self.module_of(f)
            code = strip_code(f.read_text())
            if not self.include_tests:
                code = blank_test_code(code)
            codes[f] = (module, code)
            self._scan_file(f, module, depth, code)
        self._scan_split_impls(codes)
        return self

    def _scan_split_impls(self, codes):
        owner = {}
        for f, (module, code) in codes.items():
            for name in re.findall(rf"\b(?:struct|enum|trait|union)\s+({IDENT})", code):
                owner.setdefault(name, set()).add(module)
        owned = {n: next(iter(ms)) for n, ms in owner.items() if len(ms) == 1}
        # methods[(owner_module, impl_module)] = {method names}
        methods = defaultdict(set)
        for f, (module, code) in codes.items():
            for m in re.finditer(rf"\bimpl\b\s*(?:<[^{{>]*>)?\s*({IDENT})\s*(?:<[^{{]*>)?\s*\{{", code):
                name = m.group(1)
                if name not in owned or owned[name] == module:
                    continue
                body = code[m.end():block_end(code, m.end() - 1)]
                names = set(re.findall(rf"\bfn\s+({IDENT})", body))
                methods[(owned[name], module)] |= names
        own_fns = defaultdict(set)
        for f, (module, code) in codes.items():
            own_fns[module] |= set(re.findall(rf"\bfn\s+({IDENT})", code))
        for (b, a), names in methods.items():
            for f, (module, code) in codes.items():
                if module != b:
                    continue
                for name in sorted(names - own_fns[b]):
                    for m in re.finditer(rf"(?:\.|::){name}\s*(?:::<[^>]*>)?\(", code):
                        site = (f.relative_to(self.dir), code.count("\n", 0, m.start()) + 1, "impl")
                        if site not in self.edges.get((b, a), []):
                            self.edges[(b, a)].append(site)

    def _target(self, path_parts, depth_at):
        """The top-level module a path names, or None (same module, extern crate, root item)."""
        parts = list(path_parts)
        if not parts:
            return None
        if parts[0] == "crate":
            rest = parts[1:]
        elif parts[0] == "super":
            ups = 0
            while parts and parts[0] == "super":
                ups += 1
                parts = parts[1:]
            if ups != depth_at:
                return None  # Still inside this top-level module.
            rest = parts
        else:
            return None
        if not rest:
            return None
        head = rest[0]
        if head in self.modules:
            return head
        return self.reexports.get(head)

    def _scan_file(self, f, module, depth, code):
        # Inline modules (`mod tests { … }`) sit one level deeper for `super`.
        opens = []  # brace depths at which an inline module body starts
        brace = 0
        line_starts = [0]
        for m in re.finditer("\n", code):
            line_starts.append(m.end())

        def line_of(pos):
            lo, hi = 0, len(line_starts)
            while lo + 1 < hi:
                mid = (lo + hi) // 2
                if line_starts[mid] <= pos:
                    lo = mid
                else:
                    hi = mid
            return lo + 1

        # Depth of inline-module nesting at each position, computed by a single pass.
        events = []
        for m in re.finditer(rf"\bmod\s+{IDENT}\s*\{{|[{{}}]", code):
            events.append((m.start(), m.group(0)))
        inline_at = []  # (position, inline depth from this point on)
        for pos, tok in events:
            if tok.startswith("mod"):
                brace += 1
                opens.append(brace)
                inline_at.append((pos, len(opens)))
            elif tok == "{":
                brace += 1
            else:
                if opens and opens[-1] == brace:
                    opens.pop()
                    inline_at.append((pos, len(opens)))
                brace -= 1

        def inline_depth(pos):
            d = 0
            for p, k in inline_at:
                if p > pos:
                    break
                d = k
            return d

        def add(target, pos):
            site = (f.relative_to(self.dir), line_of(pos))
            if target and target != module and site not in self.edges.get((module, target), []):
                self.edges[(module, target)].append(site)

        use_spans = []
        for m in re.finditer(r"(?s)\buse\s+([^;]+);", code):
            use_spans.append((m.start(), m.end()))
            d = depth + inline_depth(m.start())
            for path in expand_use_tree(m.group(1)):
                parts = [p for p in path.partition("@")[0].split("::") if p]
                add(self._target(parts, d), m.start())
        for m in re.finditer(rf"\b((?:crate|super)(?:::super)*(?:::{IDENT})+)", code):
            if any(a <= m.start() < b for a, b in use_spans):
                continue
            # A path ending in the item name: only the head matters.
            parts = m.group(1).split("::")
            d = depth + inline_depth(m.start())
            add(self._target(parts, d), m.start())

    def graph(self):
        g = defaultdict(set)
        for (a, b) in self.edges:
            g[a].add(b)
        return g


def block_end(code, open_brace):
    """Position just after the brace matching the one at `open_brace`."""
    depth = 0
    for j in range(open_brace, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(code)


def blank_test_code(code):
    """Code with `#[cfg(test)]` items (a `mod x { … }` block or one item) blanked."""
    out = list(code)
    for m in re.finditer(r"#\[cfg\(test\)\]", code):
        i = m.end()
        # The item ends at its matching close brace, or at `;` if no brace comes first.
        semi = code.find(";", i)
        brace = code.find("{", i)
        if brace < 0 or (0 <= semi < brace):
            end = semi + 1
        else:
            depth, j = 0, brace
            while j < len(code):
                if code[j] == "{":
                    depth += 1
                elif code[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            end = j + 1
        for k in range(m.start(), min(end, len(code))):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)


def sccs(nodes, g):
    """Tarjan's strongly connected components, each sorted, in a stable order."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out)


def report(crate_dir, show_edges, include_tests):
    crate = Crate(crate_dir, include_tests).scan()
    g = crate.graph()
    nodes = set(crate.modules) | set(g) | {b for vs in g.values() for b in vs}
    cycles = [c for c in sccs(nodes, g) if len(c) > 1]
    name = pathlib.Path(crate_dir).resolve()
    try:
        name = name.relative_to(ROOT)
    except ValueError:
        pass
    print(f"== {name}: {len(crate.modules)} modules, {len(crate.edges)} edges, "
          f"{len(cycles)} cycle(s)")
    if show_edges:
        for a in sorted(g):
            print(f"  {a} -> {', '.join(sorted(g[a]))}")
    for comp in cycles:
        print(f"  cycle: {' '.join(comp)}")
        members = set(comp)
        for (a, b), sites in sorted(crate.edges.items()):
            if a in members and b in members:
                where = ", ".join(f"{s[0]}:{s[1]}" + (" [impl]" if len(s) > 2 else "")
                                  for s in sites[:3])
                more = f" (+{len(sites) - 3})" if len(sites) > 3 else ""
                print(f"    {a} -> {b}   {where}{more}")
    return bool(cycles)


def main(argv):
    show_edges = "--edges" in argv
    include_tests = "--no-tests" not in argv
    dirs = [a for a in argv if not a.startswith("--")]
    if "--all" in argv:
        dirs += sorted(str(p.parent) for p in (ROOT / "environments").glob("*/Cargo.toml"))
    if not dirs:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    found = False
    for d in dirs:
        found |= report(d, show_edges, include_tests)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
