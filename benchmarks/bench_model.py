"""Benchmark of the shipped step model (not a test): certification of all of V, and the
issue-15 problems solved end to end, on ONNX Runtime and PyTorch.

    python benchmarks/bench_model.py [--backends onnx,torch] [--repeat 3] [--label after]
                                     [--json benchmarks/results/model-after.json]

For each problem: batches (sequential depth), forward rows (what the model computed: each
distinct view of a batch once), views presented by the runtime, distinct views, wall time and
CPU time of this process (the best of --repeat by wall time), and the paper-scale estimate:
the same batches run by a Qwen3.5-0.8B-shaped model on this CPU, from the per-batch cost
measured once by bench_paper_scale.py (benchmarks/results/paper_scale.json).

The build machines are shared: the load average at the start and end of every measurement is
recorded next to it.  CPU time is this process's own (user + system, all threads); with one
intra-op thread it is close to what an idle machine's wall time would be, but it is not a
measurement of an idle machine.  Works on older checkouts too (for before/after tables): a
runtime without deduplication reports forward rows = views presented.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import sys
import time
from math import gcd, isqrt
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import importlib.metadata as md  # noqa: E402
import subprocess  # noqa: E402

from sketchpad import solve  # noqa: E402
from sketchpad.certify.run import certify  # noqa: E402
from sketchpad.model.environment import cpu_name  # noqa: E402
from sketchpad.model.loading import load_stepper  # noqa: E402
from sketchpad.solve import Solution  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def load_avg() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def problems(seed: int = 2026) -> list[tuple[str, str, int]]:
    """The issue's problems, fixed by seed: (name, expression, Python's answer)."""
    r = random.Random(seed)
    n = lambda d: r.randrange(10 ** (d - 1), 10**d)  # noqa: E731
    x, y = n(200), n(100)
    g1, g2 = n(100), n(100)
    s = n(200)
    p, q = n(200), n(200)
    a, b = n(1000), n(1000)
    u, v = n(20), n(20)
    return [
        ("200/100-digit division", f"{x} // {y}", x // y),
        ("gcd of two 100-digit numbers", f"gcd({g1}, {g2})", gcd(g1, g2)),
        ("square root of a 200-digit number", f"sqrt({s})", isqrt(s)),
        ("200x200-digit product", f"{p} * {q}", p * q),
        ("1,000-digit sum", f"{a} + {b}", a + b),
        ("20x20-digit product", f"{u} * {v}", u * v),
    ]


def paper_cost():
    """t(n): seconds for one batch of n forward rows at Qwen3.5-0.8B's shape on this CPU, from
    the measured points (linear between them, per-row beyond the largest), or None."""
    path = RESULTS / "paper_scale.json"
    if not path.is_file():
        return None, None
    d = json.loads(path.read_text())
    pts = sorted((int(k), float(v)) for k, v in d["seconds_per_batch"].items())

    def t(n: int) -> float:
        if n <= pts[0][0]:
            return pts[0][1] * n / pts[0][0] if pts[0][0] > 1 else pts[0][1]
        for (n0, t0), (n1, t1) in zip(pts, pts[1:]):
            if n <= n1:
                return t0 + (t1 - t0) * (n - n0) / (n1 - n0)
        n1, t1 = pts[-1]
        return t1 * n / n1

    return t, d


def solve_once(solve, expr, stepper, parallel: bool):
    """(solution, wall, cpu, forward rows of each batch).  A runtime without deduplication
    (an older checkout: no views_presented counter) computes every presented view."""

    dedup = "views_presented" in getattr(Solution, "__dataclass_fields__", {})
    rows = []

    def on_batch(probes, steps):
        rows.append(len({p.view for p in probes}) if dedup else len(probes))

    c0, t0 = time.process_time(), time.perf_counter()
    sol = solve(expr, stepper, parallel=parallel, on_batch=on_batch)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return sol, wall, cpu, rows


def bench_backend(backend: str, repeat: int, sequential: bool) -> dict:
    stepper = load_stepper(None, backend)
    out = {"backend": backend, "problems": []}
    # certification: all of V at every batch size (and thread count) the certifier runs
    best = None
    for _ in range(repeat):
        load0 = load_avg()
        c0, t0 = time.process_time(), time.perf_counter()
        cert = certify(stepper)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if best is None or wall < best["seconds"]:
            p = cert["predicate"]
            best = {
                "seconds": wall,
                "cpu_seconds": cpu,
                "load": [load0, load_avg()],
                "runs": p["time"]["seconds_by_run"],
                "passed": p["result"]["passed_views"],
                "views": p["result"]["views"],
                "min_margin": p["result"]["min_margin"],
            }
    out["certify"] = best
    for name, expr, want in problems():
        for parallel in (True, False) if sequential else (True,):
            best = None
            for _k in range(repeat):
                load0 = load_avg()
                sol, wall, cpu, rows = solve_once(solve, expr, stepper, parallel)
                assert sol.value == want, (name, backend)
                rec = {
                    "problem": name,
                    "mode": "parallel" if parallel else "sequential",
                    "batches": sol.batches,
                    "forward_rows": sol.forward_passes,
                    "views_presented": getattr(sol, "views_presented", sol.forward_passes),
                    "distinct_views": sol.distinct_views,
                    "seconds": wall,
                    "cpu_seconds": cpu,
                    "stepper_seconds": sol.stepper_seconds,
                    "load": [load0, load_avg()],
                    "rows_per_batch": rows,
                }
                if best is None or wall < best["seconds"]:
                    best = rec
                if wall > 20:
                    break
            out["problems"].append(best)
            print(
                f"{backend:6} {name:36} {best['mode']:10} batches {best['batches']:6,} rows {best['forward_rows']:8,} "
                f"presented {best['views_presented']:9,} wall {best['seconds']:7.3f}s cpu {best['cpu_seconds']:7.3f}s "
                f"load {best['load'][0]}",
                flush=True,
            )
    return out


def environment() -> dict:
    versions = {}
    for pkg in ("torch", "transformers", "peft", "onnxruntime"):
        try:
            versions[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": f"{cpu_name()}, {os.cpu_count()} CPUs, {platform.platform()}",
        "python": platform.python_version(),
        "versions": versions,
    }


def markdown(result: dict) -> str:
    t, paper = paper_cost()
    env = result["environment"]
    lines = [
        f"# Step model benchmark ({result['label']})",
        "",
        f"- date: {env['date']}; machine: {env['machine']}; Python {env['python']}; "
        + ", ".join(f"{k} {v}" for k, v in env["versions"].items()),
        f"- commit: {result.get('commit', '?')}; times: best of {result['repeat']} by wall time; "
        "load = 1/5/15-minute load average at the start of that run (2 cores, shared)",
        "- forward rows: what the model computed (each distinct view of a batch once); "
        "views presented: what the runtime presented",
        "",
    ]
    if paper:
        lines += [
            f"- paper scale: {paper['model']} ({paper['parameters']:,} parameters, random weights, "
            f"float32, torch {paper['torch']}, {paper['threads']} threads), per batch of n rows: "
            + ", ".join(
                f"n={k}: {v:.2f} s" for k, v in sorted(paper["seconds_per_batch"].items(), key=lambda kv: int(kv[0]))
            )
            + f" (measured {paper['date']}, load {paper['load']}); estimate = the sum over the solve's "
            "batches of t(rows in the batch)",
            "",
        ]
    for b in result["backends"]:
        c = b["certify"]
        lines += [
            f"## {b['backend']}",
            "",
            f"Certify all of V ({c['passed']}/{c['views']} passed, smallest margin {c['min_margin']:.3f}): "
            f"{c['seconds']:.2f} s wall, {c['cpu_seconds']:.2f} s CPU, load {c['load'][0]}; runs "
            + ", ".join(f"{k} {v:.3f} s" for k, v in c["runs"].items()),
            "",
            "| problem | mode | batches | forward rows | views presented | distinct views | wall (s) | CPU (s) | load | paper scale (est.) |",
            "|---|---|---:|---:|---:|---:|---:|---:|---|---:|",
        ]
        for p in b["problems"]:
            est = f"{sum(t(n) for n in p['rows_per_batch']) / 60:,.1f} min" if t else "-"
            lines.append(
                f"| {p['problem']} | {p['mode']} | {p['batches']:,} | {p['forward_rows']:,} | "
                f"{p['views_presented']:,} | {p['distinct_views']:,} | {p['seconds']:.3f} | {p['cpu_seconds']:.3f} | "
                f"{p['load'][0]} | {est} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backends", default="onnx,torch")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--label", default="after")
    ap.add_argument("--sequential", action="store_true", help="also the sequential mode")
    ap.add_argument("--json", help="write the results here (default benchmarks/results/model-LABEL.json)")
    ap.add_argument("--md", help="write the Markdown table here (default benchmarks/results/model-LABEL.md)")
    ap.add_argument("--render", action="store_true", help="only re-render model-LABEL.md from model-LABEL.json")
    args = ap.parse_args()
    if args.render:
        result = json.loads((Path(args.json) if args.json else RESULTS / f"model-{args.label}.json").read_text())
        (Path(args.md) if args.md else RESULTS / f"model-{args.label}.md").write_text(markdown(result) + "\n")
        print(markdown(result))
        return

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=Path.cwd(), capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        commit = "?"
    result = {
        "label": args.label,
        "repeat": args.repeat,
        "commit": commit,
        "environment": environment(),
        "backends": [bench_backend(b, args.repeat, args.sequential) for b in args.backends.split(",")],
    }
    js = Path(args.json) if args.json else RESULTS / f"model-{args.label}.json"
    md = Path(args.md) if args.md else RESULTS / f"model-{args.label}.md"
    js.write_text(json.dumps(result, indent=1) + "\n")
    md.write_text(markdown(result) + "\n")
    print(markdown(result))


if __name__ == "__main__":
    main()
