#!/usr/bin/python3
"""The layering check (docs/LAYERING.md): which folder may include which.

Reads the table scripts/checks/layers.txt and scans every C++ file under the
source folders. It fails, with file:line and the rule broken, when
  may-include   a file includes "conflux/..." (or a relative "../" path) from a
                folder that is not on its folder's list;
  unknown-header an include "conflux/..." matches no folder's include/ tree;
  unlisted-folder a C++ file lives in a folder the table does not name;
  sans-io       a file in a folder marked sans-io includes an I/O header
                (sockets, files, threads, Asio/Beast, the logger) or reads a clock;
  upward        the table itself lets a folder include one in a higher layer;
  cycle         the table's lists form a cycle between folders;
  stale-exception an exception that matches nothing any more (delete it).
Exceptions are named, commented lines of the table that allow one file one
include; everything else is by folder.

  layering.py              check the repository (exit status 1 on a failure)
  layering.py --self-test  run the fixtures in scripts/checks/fixtures/layering
  layering.py --graph      print each folder's list as the code uses it today
Python 3 standard library only.
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SOURCE_SUFFIXES = {".cpp", ".cc", ".hpp", ".h", ".hh", ".ipp"}
SKIP_DIRS = {"build", ".git", "seeds", "catch_shim"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# What a sans-I/O folder may not include: sockets, descriptors, files, threads,
# the event loop and the logger. <arpa/inet.h> (inet_pton, pure conversions)
# and <filesystem> (the path type) are allowed.
SANS_IO_FORBIDDEN = re.compile(
    r"^(fstream|iostream|fcntl\.h|unistd\.h|poll\.h|netdb\.h|thread|future|"
    r"sys/.*|netinet/.*|boost/asio.*|boost/beast.*|spdlog/.*|conflux/net/.*|conflux/log/.*)$")
CLOCK_RE = re.compile(r"\b(steady_clock|system_clock|high_resolution_clock|utc_clock)::now\b|"
                      r"\bstd::random_device\b|\b(?:std::|::)?time\(\s*(?:nullptr|NULL|0)\s*\)")


@dataclass
class Folder:
    path: str
    layer: str
    sans_io: bool
    may: list[str]
    line: int


@dataclass
class Exception_:
    name: str
    file: str
    target: str
    line: int
    used: bool = False


@dataclass
class Table:
    layers: dict[str, int] = field(default_factory=dict)
    folders: dict[str, Folder] = field(default_factory=dict)
    exceptions: list[Exception_] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)


def parse_table(text: str, where: str) -> tuple[Table, list[str]]:
    t = Table()
    errors: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        kind = words[0]
        if kind == "roots":
            t.roots.extend(words[1:])
        elif kind == "layer" and len(words) == 3 and words[2].isdigit():
            t.layers[words[1]] = int(words[2])
        elif kind == "folder" and len(words) >= 4 and words[3] in ("sans-io", "io"):
            may = [w for w in words[4:] if w != "-"]
            t.folders[words[1]] = Folder(words[1], words[2], words[3] == "sans-io", may, n)
        elif kind == "exception" and len(words) == 4:
            t.exceptions.append(Exception_(words[1], words[2], words[3], n))
        else:
            errors.append(f"{where}:{n}: cannot parse: {raw.strip()}")
    for f in t.folders.values():
        if f.layer not in t.layers:
            errors.append(f"{where}:{f.line}: folder {f.path}: unknown layer {f.layer}")
        for m in f.may:
            if m != "*" and m not in t.folders:
                errors.append(f"{where}:{f.line}: folder {f.path} lists {m}, which is not a folder of the table")
    return t, errors


def folder_of(rel: str, table: Table) -> str | None:
    """The longest table folder that contains the path rel (repository-relative)."""
    best = None
    for f in table.folders:
        if rel == f or rel.startswith(f + "/"):
            if best is None or len(f) > len(best):
                best = f
    return best


def header_owners(root: Path, table: Table) -> dict[str, str]:
    """conflux/x/y.hpp -> the folder whose include/ holds it."""
    owners: dict[str, str] = {}
    for f in table.folders:
        inc = root / f / "include"
        if not inc.is_dir():
            continue
        for p in inc.rglob("*"):
            if p.is_file():
                owners.setdefault(p.relative_to(inc).as_posix(), f)
    return owners


def source_files(root: Path, table: Table):
    for r in table.roots:
        base = root / r
        if not base.exists():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
            for name in sorted(filenames):
                if Path(name).suffix in SOURCE_SUFFIXES:
                    yield Path(dirpath) / name


def strip_comments(line: str, in_block: bool) -> tuple[str, bool]:
    """The code of one line without // and /* */ comments (string literals kept as they are)."""
    out = []
    i = 0
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block = True
            i += 2
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_block


def check_table_order(table: Table, where: str) -> list[str]:
    errors = []
    for f in table.folders.values():
        rank = table.layers.get(f.layer, 0)
        for m in f.may:
            if m == "*":
                continue
            other = table.folders[m]
            if table.layers.get(other.layer, 0) > rank:
                errors.append(f"{where}:{f.line}: [upward] {f.path} ({f.layer}) may not list {m} "
                              f"({other.layer}, a higher layer); move the code down, or add a named exception")
    # Cycles between folders (same-layer lists could form one).
    graph = {f.path: [m for m in f.may if m != "*"] for f in table.folders.values()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in graph[n]:
            if state.get(m) == 1:
                cyc = stack[stack.index(m):] + [m]
                errors.append(f"{where}:{table.folders[n].line}: [cycle] {' -> '.join(cyc)}")
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)
    return errors


def check(root: Path, table_path: Path, graph_out: dict | None = None) -> list[str]:
    where = table_path.relative_to(root).as_posix() if table_path.is_relative_to(root) else str(table_path)
    table, errors = parse_table(table_path.read_text(), where)
    if errors:
        return errors
    errors += check_table_order(table, where)
    owners = header_owners(root, table)
    exc = {(e.file, e.target): e for e in table.exceptions}

    def allowed_by_exception(rel: str, target: str) -> bool:
        e = exc.get((rel, target))
        if e:
            e.used = True
            return True
        return False

    for path in source_files(root, table):
        rel = path.relative_to(root).as_posix()
        folder = folder_of(rel, table)
        if folder is None:
            errors.append(f"{rel}:1: [unlisted-folder] no folder of {where} holds this file; add its folder "
                          f"(its layer and what it may include)")
            continue
        spec = table.folders[folder]
        in_block = False
        for n, raw in enumerate(path.read_text(errors="replace").splitlines(), 1):
            code, in_block = strip_comments(raw, in_block)
            m = INCLUDE_RE.match(code)
            if not m:
                if spec.sans_io and CLOCK_RE.search(code) and not allowed_by_exception(rel, "clock"):
                    errors.append(f"{rel}:{n}: [sans-io] {folder} is sans-I/O and may not read a clock or "
                                  f"the OS's randomness: take `now` (or a random source) from the caller")
                continue
            kind, name = m.groups()
            if spec.sans_io and kind == "<" and not name.startswith("conflux/") and SANS_IO_FORBIDDEN.match(name) \
                    and not allowed_by_exception(rel, name):
                errors.append(f"{rel}:{n}: [sans-io] {folder} is sans-I/O and may not include <{name}>: "
                              f"do the I/O in a runtime or module folder and pass bytes in")
                continue
            target = None
            if name.startswith("conflux/"):
                target = owners.get(name)
                if target is None:
                    errors.append(f"{rel}:{n}: [unknown-header] {name} is in no folder's include/ tree")
                    continue
            elif kind == '"' and name.startswith(".."):
                resolved = os.path.normpath(os.path.join(os.path.dirname(rel), name))
                target = folder_of(resolved, table)
            if target is None or target == folder:
                continue
            if graph_out is not None:
                graph_out.setdefault(folder, set()).add(target)
            if "*" in spec.may or target in spec.may:
                if spec.sans_io and SANS_IO_FORBIDDEN.match(name) and not allowed_by_exception(rel, name):
                    errors.append(f"{rel}:{n}: [sans-io] {folder} is sans-I/O and may not include {name}")
                continue
            if allowed_by_exception(rel, name):
                continue
            listed = " ".join(spec.may) or "nothing"
            errors.append(f"{rel}:{n}: [may-include] {folder} ({spec.layer}) may not include {name} "
                          f"(from {target}, {table.folders[target].layer}); {folder} may include: {listed}")
    for e in table.exceptions:
        if not e.used:
            errors.append(f"{where}:{e.line}: [stale-exception] {e.name}: {e.file} no longer includes "
                          f"{e.target}; delete the exception")
    return errors


def self_test(fixtures: Path) -> int:
    """Each fixture directory has a layers.txt, a source tree and expect.txt: the rules that must fire
    (one per line, 'rule file:line'); 'clean' expects no error at all."""
    failed = 0
    for case in sorted(p for p in fixtures.iterdir() if p.is_dir()):
        expected = sorted(l.strip() for l in (case / "expect.txt").read_text().splitlines() if l.strip())
        errs = check(case, case / "layers.txt")
        got = []
        for e in errs:
            m = re.match(r"([^:]+:\d+): \[([a-z-]+)\]", e)
            got.append(f"{m.group(2)} {m.group(1)}" if m else f"unparsed {e}")
        got.sort()
        if got == expected:
            print(f"ok: layering fixture {case.name} ({', '.join(expected) or 'no errors'})")
        else:
            failed += 1
            print(f"FAIL: layering fixture {case.name}: expected {expected}, got {got}")
            for e in errs:
                print("   ", e)
    if not any(p.is_dir() for p in fixtures.iterdir()):
        print("FAIL: no fixtures")
        return 1
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    here = Path(__file__).resolve().parent
    root = here.parent.parent
    if "--self-test" in argv:
        return self_test(here / "fixtures" / "layering")
    graph: dict = {}
    errors = check(root, here / "layers.txt", graph)
    if "--graph" in argv:
        for f in sorted(graph):
            print(f, " ".join(sorted(graph[f])))
        return 0
    for e in errors:
        print(e)
    if errors:
        print(f"layering: {len(errors)} violation(s). Fix the include, or change "
              f"scripts/checks/layers.txt with a reason (docs/LAYERING.md).")
        return 1
    print("ok: layering (scripts/checks/layers.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
