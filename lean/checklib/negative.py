"""The negative probes: sources that must make the check fail, each where it should (lean/probes.py
writes them; this runs them against the build of a passing check, one probe at a time, each in a
copy of the work directory)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from .common import LEAN_DIR, human_bytes, log
from .report import check_axioms
from .runner import run_module


def _judge(probe: dict, results: dict) -> tuple[bool, str]:
    """Whether the probe failed where it should, and what was seen."""
    expect = probe["expect"]
    r = results.get(expect["module"])
    if r is None:
        return False, f"{expect['module']} was not reached"
    if "axiom" in expect:
        if r.status != "PASS":
            return False, f"{expect['module']} did not compile: {r.note or (r.errors[:1] or ['?'])[0]}"
        ok, report = check_axioms(r.lines, [expect["axiom"]])
        seen = next((line.strip() for line in report if "FORBIDDEN" in line), "")
        return (not ok and bool(seen)), seen or "no forbidden axiom reported"
    text = "\n".join(r.errors)
    first = (r.errors[:1] or [r.note or "passed"])[0].splitlines()[0]
    return (r.status == "FAIL" and expect["error"] in text), first


def run_probes(work: Path, tools: tuple, args, rel_prefix: str) -> bool:
    node, glue, lib = tools
    log("")
    log("negative probes (each must make the check fail, where it should):")
    probe_dir = work / "probes"
    if probe_dir.exists():
        shutil.rmtree(probe_dir)
    proc = subprocess.run([sys.executable, str(LEAN_DIR / "probes.py"), str(probe_dir)], capture_output=True, text=True)
    if proc.returncode != 0:
        log("  could not write the probes (lean/probes.py):")
        for line in (proc.stdout + proc.stderr).strip().splitlines()[-8:]:
            log("    " + line)
        return False
    manifest = json.loads((probe_dir / "manifest.json").read_text())
    extra = [] if args.use_async else ["-DElab.async=false"]
    all_ok = True
    for probe in manifest:
        here = probe_dir / probe["name"]
        src_root, build = here / "src", here / "build"
        shutil.copytree(work / "src", src_root)
        shutil.copytree(work / "build", build, ignore=shutil.ignore_patterns("*.log", "summary.json"))
        for rel, text in probe["files"].items():
            (src_root / rel).parent.mkdir(parents=True, exist_ok=True)
            (src_root / rel).write_text(text)
        results = {}
        for mod in probe["compile"]:
            r = run_module(
                mod, node, glue, lib, src_root, build, args.timeout, int(args.mem_limit_gb * 2**30), rel_prefix, extra
            )
            results[mod] = r
            if r.status != "PASS":
                break
        ok, seen = _judge(probe, results)
        secs = sum(r.seconds for r in results.values())
        peak = max(r.peak for r in results.values())
        status = "fails as it should" if ok else "DID NOT FAIL AS IT SHOULD"
        log(f"  {probe['name']:22s} {status}  ({secs:.0f} s, peak {human_bytes(peak)}): {probe['what']}")
        log(f"      {seen[:200]}")
        all_ok = all_ok and ok
    return all_ok
