"""The curated mutation suite: every guard the guarantee rests on has a mutant that must die.

    python mutation/harness.py                 # every mutant of mutation/mutants.toml (CI)
    python mutation/harness.py --only margin   # the mutants whose name contains "margin"
    python mutation/harness.py --list          # names, guards and the tests that must kill each
    python mutation/harness.py --full certify/policy.py --tests T1 T2 --md benchmarks/results/mutation.md
                                               # generated mutants of a file (mutation/generate.py)

A mutant is one file, one snippet of it that occurs exactly once, its replacement, and the
tests that must kill it: pytest node ids, or `node:web/tests/x.test.mjs` for a Node test file.
The project is copied once into a temporary directory (the working tree, without .git and the
virtual environment); each mutant is applied to the copy, its tests run there, and the file is
put back.  A mutant is killed when one of its tests fails (the report names which); it survives
when they all pass.  A test that cannot run (unknown node id, a collection error) is an error,
never a kill.  Before any mutant, the same tests run on the unmutated copy and must pass: a
test that fails anyway kills nothing.  Exit status 1 on any survivor or error.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from generate import mutants as generated

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = Path(__file__).with_name("mutants.toml")
# Not copied: history, the environment, caches.  Linked instead of copied: installed files the
# tests read but no mutant changes.
SKIP = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "node_modules", "mutants"}
LINKED = ("node_modules", "web/vendor", "lean/.lake")
TIMEOUT = 900  # seconds per mutant: a mutant that makes its tests hang is killed by the timeout


@dataclass
class Mutant:
    name: str
    guard: str
    file: str
    original: str
    replacement: str
    tests: list

    def check(self, root: Path) -> str | None:
        """Why the mutant cannot be applied to `root` (None: it can)."""
        path = root / self.file
        if not path.is_file():
            return f"{self.file} does not exist"
        n = path.read_text().count(self.original)
        if n != 1:
            return f"its original snippet occurs {n} times in {self.file} (must be exactly once)"
        if self.original == self.replacement:
            return "its replacement is its original"
        if not self.tests:
            return "names no test that must kill it"
        return None


def load(path: Path = MUTANTS) -> list[Mutant]:
    data = tomllib.loads(path.read_text())
    out = [Mutant(**m) for m in data["mutant"]]
    names = [m.name for m in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SystemExit(f"{path}: mutant names used twice: {sorted(dup)}")
    return out


def copy_project(dest: Path) -> Path:
    def ignore(d, names):
        return [n for n in names if n in SKIP or n.endswith(".pyc")]

    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    # The editable install maps sketchpad.certify to certify/ (and so on) in the original tree;
    # in the copy the same folders are linked into the package, so the copy's files are imported.
    dirs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in dirs.items():
        if package != "sketchpad":
            link = dest / package.replace(".", "/")
            link.symlink_to(Path("..") / folder, target_is_directory=True)
    for rel in LINKED:
        if (ROOT / rel).exists():
            (dest / rel).unlink(missing_ok=True) if (dest / rel).is_symlink() else shutil.rmtree(dest / rel, True)
            (dest / rel).symlink_to(ROOT / rel)
    return dest


def _env(copy: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
    env.setdefault("SKETCHPAD_CACHE_DIR", tempfile.mkdtemp(prefix="sketchpad-mutation-cache-"))
    return env


def run_tests(copy: Path, tests: list, log: Path) -> tuple[str, list, list]:
    """(outcome, tests that failed, what ran): outcome 'pass', 'fail', 'timeout' or 'error: ...'."""
    py = [t for t in tests if not t.startswith("node:")]
    js = [t[len("node:") :] for t in tests if t.startswith("node:")]
    failed, ran = [], []
    env = _env(copy)
    deadline = time.monotonic() + TIMEOUT
    if js:
        cmd = ["node", "--test", *js]
        ran.append(" ".join(cmd))
        try:
            r = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return "timeout", [" ".join(cmd)], ran
        log.write_text(r.stdout + r.stderr)
        if r.returncode != 0:
            names = re.findall(r"^not ok \d+ - (.+)$", r.stdout, re.M)
            if not re.search(r"^# pass [1-9]", r.stdout, re.M) and not names:
                return f"error: node ran no test ({r.stderr.strip()[-300:]})", [], ran
            return "fail", [f"{' '.join(js)}: {n}" for n in names] or [" ".join(js)], ran
    if py:
        xml = log.with_suffix(".xml")
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", f"--junitxml={xml}", *py]
        ran += py
        try:
            r = subprocess.run(
                cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=max(1, deadline - time.monotonic())
            )
        except subprocess.TimeoutExpired:
            return "timeout", py, ran
        log.write_text(r.stdout + r.stderr)
        if r.returncode == 1:
            return "fail", _failures(xml), ran
        if r.returncode != 0:
            return f"error: pytest exit status {r.returncode} ({r.stdout.strip()[-400:]})", [], ran
    return "pass", failed, ran


def _failures(xml: Path) -> list:
    """The node ids of the failing tests in a JUnit XML report."""
    out = []
    for case in ET.parse(xml).iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            path = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
            out.append(f"{path}::{case.get('name')}")
    return out


def apply(copy: Path, m: Mutant) -> str:
    path = copy / m.file
    text = path.read_text()
    path.write_text(text.replace(m.original, m.replacement, 1))
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="run the mutants whose name contains this text")
    ap.add_argument("--list", action="store_true", help="list the mutants and their tests, run nothing")
    ap.add_argument("--mutants", type=Path, default=MUTANTS, help="the mutant list (TOML)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the run of the tests on the unmutated copy")
    ap.add_argument("--full", nargs="+", type=Path, help="generate mutants of these files instead of the curated list")
    ap.add_argument("--tests", nargs="+", default=[], help="with --full: the tests every generated mutant runs")
    ap.add_argument("--md", type=Path, help="with --full: write the score and the survivors here")
    ap.add_argument("--sample", type=int, help="with --full: run only this many, evenly spaced over the list")
    args = ap.parse_args(argv)
    if args.full:
        if not args.tests:
            ap.error("--full needs --tests")
        mutants = [Mutant(**m) for f in args.full for m in generated(f.resolve(), ROOT, args.tests)]
        generated_count = len(mutants)
        if args.sample and args.sample < len(mutants):
            mutants = [mutants[i * len(mutants) // args.sample] for i in range(args.sample)]
    else:
        mutants = load(args.mutants)
    mutants = [m for m in mutants if not args.only or args.only.lower() in m.name.lower()]
    if args.list:
        for m in mutants:
            print(f"{m.name}\n  guard: {m.guard}\n  file:  {m.file}\n  tests: {', '.join(m.tests)}")
        return 0
    bad = [(m, why) for m in mutants if (why := m.check(ROOT))]
    for m, why in bad:
        print(f"ERROR  {m.name}: {why}")
    if bad or not mutants:
        print("no mutant to run" if not mutants else f"{len(bad)} mutants cannot be applied")
        return 1
    with tempfile.TemporaryDirectory(prefix="sketchpad-mutants-") as tmp:
        copy = copy_project(Path(tmp) / "project")
        logs = Path(tmp) / "logs"
        logs.mkdir()
        code, survivors, took = _run(copy, logs, mutants, baseline=not args.no_baseline)
    if args.md and args.full:
        _markdown(args.md, args, mutants, survivors, took, generated_count)
    return code


def _markdown(path: Path, args, mutants: list, survivors: list, took: float, generated_count: int) -> None:

    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"# Mutation score: {', '.join(str(f) for f in args.full)}",
        "",
        f"{len(mutants) - len(survivors)} / {len(mutants)} generated mutants killed"
        + (f" (an even sample of the {generated_count} generated) " if generated_count > len(mutants) else " ")
        + f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load average {load} at the end, {took:.0f} s).",
        "",
        "Command: `python mutation/harness.py --full "
        + " ".join(str(f) for f in args.full)
        + " --tests "
        + " ".join(args.tests)
        + (f" --sample {args.sample}" if args.sample else "")
        + (" --no-baseline" if args.no_baseline else "")
        + f" --md {args.md}`",
        "",
        "## Survivors (and mutants whose tests could not run)",
        "",
    ]
    lines += [f"- `{m.name}`: `{m.replacement.strip()}`" for m in survivors] or ["none"]
    path.write_text("\n".join(lines) + "\n")


def _imports_the_copy(copy: Path) -> str | None:
    """Why Python in the copy would not import the copy's files (None: it does)."""
    code = "import sketchpad, sketchpad.certify.policy as p; print(sketchpad.__file__); print(p.__file__)"
    r = subprocess.run([sys.executable, "-c", code], cwd=copy, env=_env(copy), capture_output=True, text=True)
    paths = r.stdout.split()
    if r.returncode != 0 or len(paths) != 2 or not all(Path(x).is_relative_to(copy) for x in paths):
        return f"python in the copy imports {paths or r.stderr.strip()[-300:]}, not the copy's files"
    return None


def _run(copy: Path, logs: Path, mutants: list, baseline: bool) -> int:
    t0 = time.monotonic()
    wrong = _imports_the_copy(copy)
    if wrong:
        print(f"ERROR  {wrong}")
        return 1, list(mutants), 0.0
    if baseline:
        tests = list(dict.fromkeys(t for m in mutants for t in m.tests))
        outcome, failed, _ = run_tests(copy, tests, logs / "baseline.log")
        print(f"baseline: {len(tests)} tests on the unmutated copy: {outcome} ({time.monotonic() - t0:.0f} s)")
        if outcome != "pass":
            print("  failing without any mutant: " + ", ".join(failed))
            print((logs / "baseline.log").read_text()[-3000:])
            return 1, list(mutants), time.monotonic() - t0
    survivors, errors, killed = [], [], 0
    for i, m in enumerate(mutants, 1):
        t = time.monotonic()
        original = apply(copy, m)
        try:
            outcome, failed, ran = run_tests(copy, m.tests, logs / f"{i}.log")
        finally:
            (copy / m.file).write_text(original)
        took = f"{time.monotonic() - t:.0f} s"
        if outcome in ("fail", "timeout"):
            killed += 1
            how = "the timeout" if outcome == "timeout" else failed[0] if failed else "a failing test"
            print(f"KILLED    [{i}/{len(mutants)}] {m.name} ({m.guard}): by {how} ({took})", flush=True)
            continue
        (survivors if outcome == "pass" else errors).append(m)
        label = "SURVIVED" if outcome == "pass" else "ERROR   "
        print(f"{label}  [{i}/{len(mutants)}] {m.name} ({m.guard}) ({took})")
        print(f"    {m.file}\n    - {m.original!r}\n    + {m.replacement!r}")
        print("    tests that ran: " + ", ".join(ran))
        if outcome != "pass":
            print(f"    {outcome}")
            print((logs / f"{i}.log").read_text()[-2000:] if (logs / f"{i}.log").exists() else "")
    total = len(mutants)
    print(
        f"{killed}/{total} mutants killed, {len(survivors)} survived, {len(errors)} errors "
        f"({time.monotonic() - t0:.0f} s)"
    )
    return (1 if survivors or errors else 0), survivors + errors, time.monotonic() - t0


if __name__ == "__main__":
    sys.exit(main())
