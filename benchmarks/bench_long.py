"""Long problems on the shipped model (not a test): is the model the cost?  Issue 22's table.

    python benchmarks/bench_long.py [--problems 1000x1000,2000/1000,...] [--huge] [--repeat 1]
                                    [--out benchmarks/results/long.md]

Each problem runs in a fresh process (so that its peak RSS is its own): the certified shipped
model on ONNX Runtime (sketchpad.steppers.get(), this device's cached certificate), the answer
checked against Python's integers.  Columns: total seconds (wall), model seconds (inside the
stepper's calls), runtime seconds (total minus model: the fixed runtime's own work; its modules,
the compiled loops of sketchpad/compiled.py with them (numba's import, ~0.4 s), are imported
before the clock starts, a cost of the process, not of the problem), peak RSS of
the process (Python, numpy, ONNX Runtime and the model included), batches, forward rows, views
presented.  Then the reference stepper's runtime cost per presented view on the same problems
(CPU seconds outside the stepper, best of three).  --huge adds the 10,000 x 10,000
product.  The machine is shared: the load average before and after each row is recorded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import resource
import subprocess
import sys
import time
from math import gcd, isqrt
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sketchpad  # noqa: E402
import sketchpad.compiled  # noqa: E402, F401  (its compiled loops too: numba's import, ~0.4 s once a process)
import sketchpad.procedures  # noqa: E402, F401  (the runtime's modules load before any clock: once a process)
from sketchpad.expr import Limits  # noqa: E402
from sketchpad.model.environment import machine  # noqa: E402

PROBLEMS = {  # name -> (operation, digits of a, digits of b)
    "400x400": ("*", 400, 400),
    "1000x1000": ("*", 1000, 1000),
    "2000x2000": ("*", 2000, 2000),
    "800/400": ("//", 800, 400),
    "2000/1000": ("//", 2000, 1000),
    "gcd 400": ("gcd", 400, 400),
}
HUGE = {"10000x10000": ("*", 10000, 10000)}
LIMITS = {  # the sizes the --max-digits limits were set from (--limits)
    "8000x8000": ("*", 8000, 8000),
    "3000/1500": ("//", 3000, 1500),
    "3000/100": ("//", 3000, 100),
    "sqrt 3000": ("sqrt", 3000, 0),
    "gcd 2000": ("gcd", 2000, 2000),
}
TITLES = {
    "*": "{a}×{b} product",
    "//": "{a}/{b} division",
    "gcd": "gcd of two {a}-digit numbers",
    "sqrt": "square root of a {a}-digit number",
}


def expression(name: str) -> tuple[str, int]:
    """The problem's expression (seeded random operands) and Python's answer."""
    op, la, lb = {**PROBLEMS, **HUGE, **LIMITS}[name]
    rnd = random.Random(f"bench-long {name}")
    a, b = rnd.randrange(10 ** (la - 1), 10**la), rnd.randrange(10 ** max(lb - 1, 0), 10 ** max(lb, 1))
    if op == "sqrt":
        return f"sqrt({a})", isqrt(a)
    if op == "gcd":
        return f"gcd({a}, {b})", gcd(a, b)
    return f"{a} {op} {b}", a * b if op == "*" else a // b


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def one(name: str, stepper_name: str) -> dict:
    """Solve one problem in this process; its figures as a dict."""
    sys.set_int_max_str_digits(0)
    expr, want = expression(name)
    limits = Limits(max_quadratic_digits=20_000, quadratic_digits=())  # measure past the limits too
    if stepper_name == "reference":
        best = None
        for _ in range(3):
            c0 = time.process_time()
            sol = sketchpad.solve(expr, "reference", limits=limits)
            cpu = time.process_time() - c0
            best = cpu - sol.stepper_seconds if best is None else min(best, cpu - sol.stepper_seconds)
        return {"name": name, "ns_per_view": 1e9 * best / sol.views_presented, "ok": sol.value == want}
    stepper = sketchpad.steppers.get()
    t0 = time.perf_counter()
    sol = sketchpad.solve(expr, stepper, limits=limits)
    total = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "name": name,
        "ok": sol.value == want,
        "total_s": total,
        "model_s": sol.stepper_seconds,
        "runtime_s": total - sol.stepper_seconds,
        "peak_rss_mb": peak / 2**20,
        "batches": sol.batches,
        "forward_rows": sol.forward_passes,
        "views_presented": sol.views_presented,
    }


def warm(name: str, solves: int) -> str:
    """One process, a warm-up solve, then `solves` solves of one problem: runtime against model."""
    sys.set_int_max_str_digits(0)
    expr, want = expression(name)
    limits = Limits(max_quadratic_digits=20_000, quadratic_digits=())
    stepper = sketchpad.steppers.get()
    sketchpad.solve("12*34", stepper)
    rows = []
    for _ in range(solves):
        t0 = time.perf_counter()
        sol = sketchpad.solve(expr, stepper, limits=limits)
        total = time.perf_counter() - t0
        if sol.value != want:
            raise SystemExit(f"{name}: WRONG answer")
        rows.append((total - sol.stepper_seconds, sol.stepper_seconds))
    rt, md = sorted(r for r, _ in rows), sorted(m for _, m in rows)
    return (
        f"{title(name)}, warm, {solves} solves in one process (load {load()}): runtime min {rt[0]:.3f} s, "
        f"median {rt[solves // 2]:.3f} s; model min {md[0]:.3f} s, median {md[solves // 2]:.3f} s; "
        f"runtime <= model in {sum(r <= m for r, m in rows)} of {solves}"
    )


def server_memory() -> dict:
    """A server (in this process: its RSS is the server's) solving a 2,000 x 2,000 product:
    RSS before, the peak while it solved, RSS after; and a request over the memory budget."""
    import httpx  # lazy: only --server starts a server (FastAPI and its client load for it alone)

    sys.set_int_max_str_digits(0)
    from sketchpad.server import Settings  # lazy: as above
    from sketchpad.server.live import running  # lazy: as above

    def status(key: str) -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
        return float("nan")

    expr, want = expression("2000x2000")
    db = ROOT / ".bench-long-server.sqlite"
    with running(Settings(db_path=str(db), stepper="model")) as url:
        httpx.post(f"{url}/api/solve", json={"expr": "12 * 34"}, timeout=600)  # the model loaded and certified
        before = status("VmRSS")
        t = time.perf_counter()
        r = httpx.post(f"{url}/api/solve", json={"expr": expr}, timeout=600).json()
        seconds = time.perf_counter() - t
        after = status("VmRSS")
        peak = status("VmHWM")
        big = "7" * 7000
        refused = httpx.post(f"{url}/api/solve", json={"expr": f"{big} * {big}"}, timeout=600)
    db.unlink(missing_ok=True)
    return {
        "ok": r.get("result") == str(want),
        "seconds": seconds,
        "before_mb": before,
        "peak_mb": peak,
        "after_mb": after,
        "refused_status": refused.status_code,
        "refused": refused.json(),
    }


def run_child(name: str, stepper: str) -> dict:
    load0 = load()
    r = subprocess.run(
        [sys.executable, __file__, "--one", name, "--stepper", stepper],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if r.returncode != 0:
        raise SystemExit(f"{name} ({stepper}) failed:\n{r.stderr[-3000:]}")
    d = json.loads(r.stdout.strip().splitlines()[-1])
    d["load"] = f"{load0} -> {load()}"
    return d


def title(name: str) -> str:
    op, la, lb = {**PROBLEMS, **HUGE, **LIMITS}[name]
    return TITLES[op].format(a=f"{la:,}", b=f"{lb:,}")


def table(rows: list, ref: dict) -> str:
    out = [
        "| problem | total s | model s | runtime s | runtime ≤ model | peak RSS | batches | forward rows | "
        "views presented | reference ns/view | load (1/5/15 min) |",
        "|---|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        ok = "" if r["ok"] else " **WRONG**"
        ns = ref.get(r["name"], {}).get("ns_per_view")
        out.append(
            f"| {title(r['name'])}{ok} | {r['total_s']:.2f} | {r['model_s']:.2f} | {r['runtime_s']:.2f} | "
            f"{'yes' if r['runtime_s'] <= r['model_s'] else 'no'} | {r['peak_rss_mb']:,.0f} MB | {r['batches']:,} | "
            f"{r['forward_rows']:,} | {r['views_presented']:,} | {'' if ns is None else f'{ns:.0f}'} | {r['load']} |"
        )
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", default=",".join(PROBLEMS), help="comma-separated names: " + ", ".join(PROBLEMS))
    ap.add_argument("--huge", action="store_true", help="also the 10,000 x 10,000 product")
    ap.add_argument("--limits", action="store_true", help="only the sizes the --max-digits limits were set from")
    ap.add_argument("--out", type=Path, help="write the Markdown table here")
    ap.add_argument("--server", action="store_true", help="only the server's memory around a 2,000 x 2,000 product")
    ap.add_argument("--warm", type=int, metavar="N", help="N solves of each problem in one warm process instead")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--stepper", default="model", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one, args.stepper)))
        return 0
    if args.warm:
        for name in [n for n in args.problems.split(",") if n]:
            print(warm(name, args.warm))
        return 0
    if args.server:
        d = server_memory()
        text = (
            f"Server (`sketchpad serve` defaults, the shipped model on ONNX Runtime), {dt.date.today().isoformat()}, "
            f"load {load()}: a 2,000×2,000 product {'correct' if d['ok'] else '**WRONG**'} in {d['seconds']:.2f} s; "
            f"RSS {d['before_mb']:,.0f} MB before, peak {d['peak_mb']:,.0f} MB, {d['after_mb']:,.0f} MB after. "
            f"A 7,000×7,000 product (over the 1,024 MB budget by the estimate): {d['refused_status']} before it ran, "
            f'"{d["refused"]["error"]}"\n'
        )
        print(text)
        if args.out:
            args.out.write_text(text)
        return 0 if d["ok"] and d["refused_status"] == 422 else 1
    names = [n for n in args.problems.split(",") if n] + (list(HUGE) if args.huge else [])
    if args.limits:
        names = list(LIMITS)
    rows, ref = [], {}
    for name in names:
        rows.append(run_child(name, "model"))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        if name in PROBLEMS:
            ref[name] = run_child(name, "reference")
    head = (
        f"Shipped model on ONNX Runtime (CPUExecutionProvider), {machine()}, "
        f"Python {platform.python_version()}, {dt.date.today().isoformat()}; "
        "each problem in a fresh process; reference ns/view: the fixed runtime's own CPU time per presented view "
        "with the reference stepper (best of three).\n"
    )
    text = head + "\n" + table(rows, ref) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
