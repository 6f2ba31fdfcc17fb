"""Start-up benchmark: what a user waits for from a cold process.

    python benchmarks/bench_start.py [--runs 5] [--checkout DIR] [--md benchmarks/results/start.md]

Measures, each over --runs fresh processes (min / median / max wall seconds):
  solve        `sketchpad solve "2+2"` on the shipped model, this device already certified
  bad input    `sketchpad solve "1/0"` (rejected before any model loads)
  certify-once the first solve on a new device (empty certificate cache: it certifies itself),
               each run with a fresh cache; and the suite's own time from its one line
  serve ready  `sketchpad serve` from process start until GET /api/health answers ready
  first solve  the first POST /api/solve after ready

--checkout DIR times another checkout of the project (e.g. an older commit, for "before"
figures) with this interpreter: DIR goes first on PYTHONPATH, and `python -m sketchpad` runs.
The machine's load (from /proc/loadavg) is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sketchpad.model.environment import machine  # noqa: E402


def _env(checkout, cache):
    env = dict(os.environ, SKETCHPAD_CACHE_DIR=str(cache))
    if checkout:
        env["PYTHONPATH"] = str(checkout)
    return env


def _cmd(*args):
    return [sys.executable, "-m", "sketchpad", *args]


def timed(cmd, env, cwd) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=900)
    return time.perf_counter() - t, out


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_once(env, cwd, ready_path: str) -> tuple[float, float]:
    port = _port()
    base = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        _cmd("serve", "--port", str(port), "--db", str(Path(cwd) / "c.sqlite")),
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=base, timeout=60) as c:
            while True:
                try:
                    if c.get(ready_path).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if proc.poll() is not None or time.perf_counter() - t0 > 600:
                    raise RuntimeError("the server did not become ready")
                time.sleep(0.01)
            ready = time.perf_counter() - t0
            t1 = time.perf_counter()
            r = c.post("/api/solve", json={"expr": "2+2"})
            first = time.perf_counter() - t1
            assert r.status_code == 200 and r.json()["result"] == "4", r.text
    finally:
        proc.terminate()
        proc.wait(30)
    return ready, first


def stats(xs) -> str:
    return f"{min(xs):.3f} / {statistics.median(xs):.3f} / {max(xs):.3f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--checkout", type=Path, help="time another checkout (before figures)")
    ap.add_argument(
        "--ready-path", default="/api/health", help="what 'ready' means (an older server has no /api/health: use /)"
    )
    ap.add_argument("--md", type=Path, help="also write the table here")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sketchpad-start-") as tmp:
        cache = Path(tmp) / "cache"
        env = _env(args.checkout, cache)
        rows = {}
        onces, suites = [], []
        for k in range(args.runs):  # a new device each time: an empty cache
            once, out = timed(_cmd("solve", "2+2"), _env(args.checkout, Path(tmp) / f"new-{k}"), tmp)
            assert out.stdout.strip() == "4", out.stderr
            onces.append(once)
            said = re.search(r"certified this model on this device .*, ([0-9.]+) s; cached", out.stderr)
            if said:
                suites.append(float(said.group(1)))
        rows["certify-once (first solve, empty cache)"] = onces
        if suites:
            rows["... of which the self-certification (its one line)"] = suites
        timed(_cmd("solve", "2+2"), env, tmp)  # certify the shared cache once
        solves, bads, readies, firsts = [], [], [], []
        for _ in range(args.runs):
            s, out = timed(_cmd("solve", "2+2"), env, tmp)
            assert out.stdout.strip() == "4", out.stderr
            solves.append(s)
            b, out = timed(_cmd("solve", "1/0"), env, tmp)
            assert out.returncode == 2, out.stderr
            bads.append(b)
            r, f = serve_once(env, tmp, args.ready_path)
            readies.append(r)
            firsts.append(f)
        rows['`sketchpad solve "2+2"`'] = solves
        rows['bad input `sketchpad solve "1/0"`'] = bads
        rows["`sketchpad serve` ready"] = readies
        rows["first `/api/solve` after ready"] = firsts
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
    head = (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {machine()}, "
        f"load {' '.join(load)}, {args.runs} runs, checkout {args.checkout or 'this one'}"
    )
    table = "| measure | min / median / max (s) |\n|---|---|\n" + "".join(
        f"| {k} | {stats(v)} |\n" for k, v in rows.items()
    )
    print(head + "\n\n" + table)
    if args.md:
        args.md.write_text(f"# Start-up\n\n{head}\n\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
