#!/usr/bin/python3
"""The function-size check (docs/LAYERING.md): no function grows past 100 lines.

Measures every function of the product folders (common, client, exit, tools: their .cpp files and
headers) the way clang-tidy's readability-function-size does (LineThreshold): the line of its body's
'}' minus the line of its '{', blank lines and comments included. The measurement is function_lines.py,
which reads the tokens of each file and compiles nothing (a couple of CPU seconds for the tree);
--clang-tidy runs clang-tidy itself instead (minutes of CPU: it parses every file with its includes),
and --compare runs both with a lower threshold and fails unless they report the same functions and
sizes. Functions already longer are listed with their size in scripts/checks/function_size_exceptions.txt,
like tor's practracker exceptions. The check fails when
  new    a function not listed is longer than the threshold;
  grown  a listed function is longer than its recorded size;
  stale  a listed function is gone or no longer over the threshold (delete its line).
A listed function that shrank but is still over the limit is reported, not failed:
lower its recorded size.

  function_size.py                    check (exit status 1 on a failure)
  function_size.py --update           rewrite the exceptions file from the measurement
  function_size.py --self-test        a fixture breaking each rule must fail; a fixture of C++'s corners
                                      must measure as clang-tidy measures it
  function_size.py --clang-tidy [-j N] [--update | --self-test]   the same with clang-tidy measuring
  function_size.py --compare [--threshold N] [-j N]   both measurers over the tree (default N 1): every
                                      (file, line, function, size) must agree; a developer command, not CI's
With --clang-tidy: the compile database is the 'tidy' configure preset's (configured here; of the project
only the precompiled header is built); FUNCTION_SIZE_TIMINGS=1 prints the clang-tidy time and the
slowest files. Python 3 standard library only; --clang-tidy and --compare need cmake, ninja, clang++ and
clang-tidy (Debian 12's 14).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import function_lines

THRESHOLD = 100
CHECKED_ROOTS = ("common", "client", "exit", "tools")
WARNING_RE = re.compile(r"^(?P<file>/[^:]+):(?P<line>\d+):\d+: warning: function '(?P<name>[^']+)' exceeds "
                        r"recommended size/complexity thresholds \[readability-function-size\]")
LINES_RE = re.compile(r"^(?P<file>/[^:]+):(?P<line>\d+):\d+: note: (?P<n>\d+) lines including whitespace and "
                      r"comments \(threshold (?P<t>\d+)\)")


def clang_tidy_binary() -> str:
    for name in ("clang-tidy", "clang-tidy-14"):
        if shutil.which(name):
            return name
    sys.exit("function_size: clang-tidy not found (./scripts/install-deps.sh installs Debian's clang-tidy)")


def tidy_config(threshold: int) -> str:
    # Only the line count decides; the other limits of the check stay off (-1) or out of reach.
    return json.dumps({"CheckOptions": [
        {"key": "readability-function-size.LineThreshold", "value": str(threshold)},
        {"key": "readability-function-size.StatementThreshold", "value": "1000000"},
    ]})


def run_tidy(tidy: str, build_dir: Path, header_filter: str, threshold: int, src: Path) -> tuple[Path, str, int, float]:
    cmd = [tidy, "--quiet", f"-p={build_dir}", "--checks=-*,readability-function-size",
           f"--config={tidy_config(threshold)}", f"--header-filter={header_filter}",
           # Compiler warnings are the build's business, not this check's.
           "--extra-arg=-Wno-everything", str(src)]
    start = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return src, p.stdout, p.returncode, time.monotonic() - start


def tidy_found(root: Path, build_dir: Path, files: list[Path], jobs: int, threshold: int,
               roots: tuple[str, ...], timings: bool = True) -> tuple[dict, list[str]]:
    """clang-tidy's {(relative file, line, function name): size} of every function over threshold, and errors."""
    tidy = clang_tidy_binary()
    header_filter = "^" + re.escape(str(root)) + "/(" + "|".join(roots) + ")/"
    found: dict[tuple[str, int, str], int] = {}
    errors: list[str] = []
    took: list[tuple[float, str]] = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for src, out, rc, secs in pool.map(lambda f: run_tidy(tidy, build_dir, header_filter, threshold, f), files):
            took.append((secs, os.path.relpath(src, root)))
            pending = None
            for line in out.splitlines():
                m = WARNING_RE.match(line)
                if m:
                    pending = (m.group("file"), int(m.group("line")), m.group("name"))
                    continue
                m = LINES_RE.match(line)
                if m and pending and (m.group("file"), int(m.group("line"))) == pending[:2]:
                    rel = os.path.relpath(pending[0], root)
                    found[(rel, pending[1], pending[2])] = int(m.group("n"))
                    pending = None
            if rc != 0 and "error:" in out:
                first = next(l for l in out.splitlines() if "error:" in l)
                errors.append(f"{os.path.relpath(src, root)}: clang-tidy could not parse it: {first}")
    if timings and os.environ.get("FUNCTION_SIZE_TIMINGS"):
        took.sort(reverse=True)
        print(f"function_size: {sum(t for t, _ in took):.0f} s of clang-tidy in {len(took)} files; slowest:")
        for secs, rel in took[:10]:
            print(f"  {secs:5.1f} s  {rel}")
    return found, errors


def token_found(root: Path, files: list[Path], threshold: int) -> dict:
    """function_lines.py's {(relative file, line, function name): size} of every function over threshold."""
    found: dict[tuple[str, int, str], int] = {}
    for path in files:
        rel = os.path.relpath(path, root)
        for f in function_lines.functions(path.read_text(encoding="utf-8", errors="replace")):
            if f.size > threshold:
                found[(rel, f.line, f.name)] = f.size
    return found


def source_files(root: Path, roots: tuple[str, ...]) -> list[Path]:
    """The .cpp files and headers of roots: what clang-tidy measures (a header counts when a .cpp of
    roots includes it; every header of these folders is, or is dead code the build would not notice)."""
    return [p for r in roots for p in sorted((root / r).rglob("*"))
            if p.suffix in (".cpp", ".hpp", ".h") and "build" not in p.relative_to(root).parts and p.is_file()]


def by_function(found: dict) -> dict:
    """{(file, function name): [sizes]}: the key of the exceptions file (a name may be defined twice)."""
    sizes: dict[tuple[str, str], list[int]] = collections.defaultdict(list)
    for (rel, _line, name), n in sorted(found.items()):
        sizes[(rel, name)].append(n)
    return sizes


def read_exceptions(path: Path) -> tuple[dict, dict]:
    """{(file, name): [sizes]} and {(file, name): line number} from 'SIZE FILE NAME' lines."""
    allowed: dict[tuple[str, str], list[int]] = collections.defaultdict(list)
    where: dict[tuple[str, str], int] = {}
    if not path.exists():
        return allowed, where
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        size, file, name = line.split(None, 2)
        allowed[(file, name)].append(int(size))
        where.setdefault((file, name), n)
    return allowed, where


def compare(sizes: dict, allowed: dict, where: dict, exceptions_name: str, threshold: int) -> tuple[list, list]:
    errors, notes = [], []
    for key in sorted(set(sizes) | set(allowed)):
        file, name = key
        got = sorted(sizes.get(key, []), reverse=True)
        ok = sorted(allowed.get(key, []), reverse=True)
        for i, n in enumerate(got):
            if i >= len(ok):
                errors.append(f"{file}: [new] function '{name}' is {n} lines (limit {threshold}): split it into "
                              f"named steps (house style: functions under ~100 lines)")
            elif n > ok[i]:
                errors.append(f"{file}: [grown] function '{name}' is {n} lines, {n - ok[i]} more than the "
                              f"{ok[i]} recorded in {exceptions_name}:{where[key]}: make it shorter, not longer")
            elif n < ok[i]:
                notes.append(f"{file}: function '{name}' shrank to {n} lines (recorded {ok[i]}): lower its "
                             f"size in {exceptions_name}:{where[key]}")
        for n in ok[len(got):]:
            errors.append(f"{exceptions_name}:{where[key]}: [stale] '{name}' in {file} (recorded {n} lines) is "
                          f"gone or within {threshold} lines: delete its line")
    return errors, notes


def write_exceptions(path: Path, sizes: dict, threshold: int) -> None:
    header = path.read_text().split("\n\n", 1)[0] + "\n\n" if path.exists() else ""
    lines = [f"{n} {file} {name}" for (file, name), ns in sorted(sizes.items()) for n in sorted(ns, reverse=True)]
    path.write_text(header + "\n".join(lines) + "\n")


def configure(root: Path, jobs: int) -> Path:
    """Configures the 'tidy' preset and returns the directory of the compile database for clang-tidy.

    Nothing of the project is built except its precompiled headers (today one: common/net's asio.hpp,
    target_precompile_headers), which the runtime's sources rely on without including them. Building
    the .pch costs seconds and saves clang-tidy re-reading Asio in each of those files (a quarter of
    the check's time). If it cannot be built, clang-tidy gets a copy of the database in which the
    precompiled header is read as the header it is made of (same result, slower)."""
    build = root / "build" / "tidy"
    p = subprocess.run(["cmake", "--preset", "tidy"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode != 0:
        sys.exit("function_size: 'cmake --preset tidy' failed:\n" + p.stdout)
    db = json.loads((build / "compile_commands.json").read_text())
    pchs: set[str] = set()
    for entry in db:
        if "command" in entry:
            entry["arguments"] = shlex.split(entry.pop("command"))
        args = entry["arguments"]
        pchs.update(args[i + 3] for i in range(len(args) - 3) if args[i:i + 2] == ["-Xclang", "-include-pch"])
    if not pchs:
        return build
    targets = [os.path.relpath(p, build) for p in sorted(pchs)]
    p = subprocess.run(["cmake", "--build", str(build), "-j", str(jobs), "--target", *targets], cwd=root,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode == 0:
        return build
    print("function_size: note: the precompiled headers did not build; reading them as headers instead:\n"
          + p.stdout[-2000:])
    for entry in db:
        args, out, i = entry["arguments"], [], 0
        while i < len(args):
            if args[i:i + 2] == ["-Xclang", "-include-pch"]:
                i += 4          # -Xclang -include-pch -Xclang FILE.pch
                continue
            if args[i] != "-Winvalid-pch":
                out.append(args[i])
            i += 1
        entry["arguments"] = out
    textual = build / "clang-tidy"
    textual.mkdir(exist_ok=True)
    (textual / "compile_commands.json").write_text(json.dumps(db, indent=1))
    return textual


def product_files(root: Path, build: Path, roots: tuple[str, ...]) -> tuple[list[Path], list[str]]:
    db = json.loads((build / "compile_commands.json").read_text())
    in_db = {str(Path(e["directory"], e["file"]).resolve()) for e in db}
    files, errors = [], []
    for r in roots:
        for p in sorted((root / r).rglob("*.cpp")):
            if "build" in p.relative_to(root).parts:
                continue
            if str(p.resolve()) in in_db:
                files.append(p)
            else:
                errors.append(f"{p.relative_to(root)}: not in build/tidy/compile_commands.json, so not measured: "
                              f"build it in the 'tidy' preset's configuration (or delete it)")
    return files, errors


CORNERS = Path(__file__).resolve().parent / "fixtures" / "function_size" / "corners.cpp"
CORNERS_THRESHOLD = 2
# What clang-tidy 14 reports for CORNERS with LineThreshold 2 (line of the name, name, size): the
# token measurer must agree; --self-test --clang-tidy checks that clang-tidy still says so.
CORNERS_WANT = [(8, "from_a_macro", 3), (12, "Box<T, N>", 4), (17, "read", 5), (23, "~Box<T, N>", 4),
                (33, "Pair<T>", 3), (39, "operator()", 5), (45, "operator bool", 4), (58, "twice", 5),
                (64, "twice<int>", 5), (70, "with_local_class", 10), (72, "step", 5),
                (81, "function_try_block", 5), (93, "with_conditional", 9), (122, "not_hidden", 3)]


def measure_fixture(root: Path, srcs: list[Path], threshold: int, use_tidy: bool) -> tuple[dict, list[str]]:
    """Measures fixture files under root/lib, as the tree is measured."""
    if not use_tidy:
        return token_found(root, srcs, threshold), []
    (root / "compile_commands.json").write_text(json.dumps([
        {"directory": str(root), "file": str(s), "command": f"clang++ -std=c++20 -c {s}"} for s in srcs]))
    return tidy_found(root, root, srcs, 1, threshold, ("lib",), timings=False)


def self_test_rules(root: Path, use_tidy: bool) -> bool:
    """A fixture with one function of each kind; the check must report exactly new, grown and stale."""
    def function(name: str, lines: int) -> str:
        body = "\n".join(f"  x += {i};" for i in range(lines - 2))   # '{' line + body + '}' line
        return f"int {name}(int x) {{\n{body}\n  return x;\n}}\n"
    src = root / "lib" / "f.cpp"
    # clang-tidy counts the line of '}' minus the line of '{': written as above, with lines-2
    # statements and a return between the braces, the function counts `lines`.
    src.write_text(function("fresh", 101) + function("grown", 110) + function("kept", 120) +
                   function("small", 99) + function("shrunk", 105))
    exc = root / "exceptions.txt"
    exc.write_text("105 lib/f.cpp grown\n120 lib/f.cpp kept\n110 lib/f.cpp shrunk\n130 lib/f.cpp gone\n")
    found, perr = measure_fixture(root, [src], THRESHOLD, use_tidy)
    sizes = by_function(found)
    allowed, where = read_exceptions(exc)
    errors, notes = compare(sizes, allowed, where, "exceptions.txt", THRESHOLD)
    kinds = sorted(re.search(r"\[(\w+)\]", e).group(1) for e in errors)
    measured = {k[1]: v for k, v in sizes.items()}
    want_sizes = {"fresh": [101], "grown": [110], "kept": [120], "shrunk": [105]}
    ok = not perr and kinds == ["grown", "new", "stale"] and measured == want_sizes and len(notes) == 1
    if not ok:
        for e in perr + errors + notes:
            print("   ", e)
    print(("ok" if ok else "FAIL") + f": function-size fixture: measured {measured}, failures {kinds}, "
          f"{len(notes)} note(s) (want {want_sizes}, ['grown', 'new', 'stale'], 1)")
    return ok


def self_test_corners(root: Path, use_tidy: bool) -> bool:
    """C++'s corners (lambdas, initialiser braces, operators, raw strings, local classes...) measure as
    clang-tidy measures them."""
    src = root / "lib" / CORNERS.name
    shutil.copyfile(CORNERS, src)
    found, perr = measure_fixture(root, [src], CORNERS_THRESHOLD, use_tidy)
    got = sorted((line, name, n) for (_f, line, name), n in found.items())
    ok = not perr and got == CORNERS_WANT
    if not ok:
        for e in perr:
            print("   ", e)
        print(f"    measured {got}\n    want     {CORNERS_WANT}")
    print(("ok" if ok else "FAIL") + f": function-size corners fixture ({len(got)} functions over "
          f"{CORNERS_THRESHOLD} lines, measured by {'clang-tidy' if use_tidy else 'tokens'})")
    return ok


def self_test_bad_input() -> bool:
    """Broken C++ (the corners fixture cut off anywhere, or with braces, quotes and comment marks thrown
    in) is measured without an exception: a file mid-edit must get an answer, not a traceback."""
    text = CORNERS.read_text()
    rnd = random.Random(7)
    cases = [text[:n] for n in range(0, len(text), 3)]
    for _ in range(200):
        t = list(text)
        for _ in range(8):
            t.insert(rnd.randrange(len(t)), rnd.choice(['{', '}', '(', ')', '<', '>', '"', "'", '/*', '//', '#',
                                                        'R"x(', '\\', ':', ';', '=', 'try', 'operator']))
        cases.append("".join(t))
    failed = []
    for case in cases:
        try:
            function_lines.functions(case)
        except Exception as e:          # noqa: BLE001 -- any exception is the failure reported
            failed.append(f"{type(e).__name__}: {e}")
    print(("ok" if not failed else "FAIL") + f": function-size measurer on {len(cases)} broken inputs "
          f"({len(failed)} exceptions{': ' + failed[0] if failed else ''})")
    return not failed


def self_test(use_tidy: bool) -> int:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "lib").mkdir()
        ok = self_test_rules(root, use_tidy)
        ok = self_test_corners(root, use_tidy) and ok
        ok = self_test_bad_input() and ok
        return 0 if ok else 1


def compare_measurers(root: Path, jobs: int, threshold: int) -> int:
    """Both measurers over the tree at threshold: every (file, line, function, size) must agree."""
    build = configure(root, jobs)
    files, errors = product_files(root, build, CHECKED_ROOTS)
    cpu = os.times()
    tidy, perr = tidy_found(root, build, files, jobs, threshold, CHECKED_ROOTS)
    tidy_cpu = sum(os.times()[2:4]) - sum(cpu[2:4])
    start = time.process_time()
    tokens = token_found(root, source_files(root, CHECKED_ROOTS), threshold)
    tokens_cpu = time.process_time() - start
    for e in errors + perr:
        print(e)
    only_tidy = sorted(set(tidy.items()) - set(tokens.items()))
    only_tokens = sorted(set(tokens.items()) - set(tidy.items()))
    for (file, line, name), n in only_tidy:
        print(f"{file}:{line}: clang-tidy only: '{name}' {n} lines")
    for (file, line, name), n in only_tokens:
        print(f"{file}:{line}: tokens only: '{name}' {n} lines")
    same = not (only_tidy or only_tokens or errors or perr)
    print(("ok" if same else "FAIL") + f": function size, threshold {threshold}: clang-tidy {len(tidy)} functions "
          f"({tidy_cpu:.0f} CPU s in clang-tidy), tokens {len(tokens)} ({tokens_cpu:.1f} CPU s); "
          f"{len(only_tidy)} only in clang-tidy, {len(only_tokens)} only in tokens")
    return 0 if same else 1


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("JOBS", os.cpu_count() or 1)),
                    help="clang-tidy runs at once (--clang-tidy, --compare)")
    ap.add_argument("--update", action="store_true", help="rewrite the exceptions file from the measurement")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--clang-tidy", action="store_true", help="measure with clang-tidy instead of the tokens")
    ap.add_argument("--compare", action="store_true", help="both measurers over the tree must agree")
    ap.add_argument("--threshold", type=int, default=1,
                    help="--compare's line threshold (default 1: every function of more than one line)")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test(args.clang_tidy)
    root = Path(__file__).resolve().parent.parent.parent
    if args.compare:
        return compare_measurers(root, max(1, args.jobs), args.threshold)
    exceptions = root / "scripts" / "checks" / "function_size_exceptions.txt"
    exceptions_name = exceptions.relative_to(root).as_posix()
    start = time.monotonic()
    if args.clang_tidy:
        build = configure(root, max(1, args.jobs))
        files, errors = product_files(root, build, CHECKED_ROOTS)
        found, perr = tidy_found(root, build, files, max(1, args.jobs), THRESHOLD, CHECKED_ROOTS)
        errors += perr
    else:
        files, errors = source_files(root, CHECKED_ROOTS), []
        found = token_found(root, files, THRESHOLD)
    sizes = by_function(found)
    if args.update:
        write_exceptions(exceptions, sizes, THRESHOLD)
        print(f"function_size: wrote {sum(len(v) for v in sizes.values())} functions to {exceptions_name}")
        return 1 if errors else 0
    allowed, where = read_exceptions(exceptions)
    ferr, notes = compare(sizes, allowed, where, exceptions_name, THRESHOLD)
    errors += ferr
    for line in notes + errors:
        print(line)
    secs = time.monotonic() - start
    if errors:
        print(f"function_size: {len(errors)} failure(s) in {len(files)} files ({secs:.0f} s). Split the function; "
              f"only if that must wait, record it with --update and say why in the commit (docs/LAYERING.md).")
        return 1
    print(f"ok: function size (limit {THRESHOLD} lines; {len(files)} files, "
          f"{sum(len(v) for v in allowed.values())} recorded exceptions; {secs:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
