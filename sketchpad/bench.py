"""Run a pre-registered problem set on a backend, check every answer against Python's
integers, and summarise: solved/total, forward passes, batches, time per problem."""

from __future__ import annotations

import json
import platform
import statistics
import time
from pathlib import Path

from .digits import to_digits
from .errors import InputError, SketchpadError
from .expr import evaluate_python, parse
from .model.environment import machine
from .problems import ROOT as PROBLEM_DIR  # benchmarks/problems/, installed as sketchpad.problems


def load_problems(name_or_path: str) -> list[dict]:
    p = Path(name_or_path)
    if not p.exists():
        p = PROBLEM_DIR / f"{name_or_path}.jsonl"
    if not p.exists():
        raise InputError(
            f"no problem set {name_or_path!r} (known: {', '.join(sorted(x.stem for x in PROBLEM_DIR.glob('*.jsonl')))})"
        )
    try:
        return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
    except json.JSONDecodeError as e:
        raise InputError(f"{p}: not a JSONL problem set ({e.msg} on line {e.lineno})") from None


def _signed(v: int) -> str:
    return ("-" if v < 0 else "") + to_digits(v)


def run_set(problems: list[dict], solve_fn, progress: bool = True) -> list[dict]:
    """`solve_fn(expr) -> dict(result, forward_passes, views_presented, batches, distinct_views, seconds)`."""
    rows = []
    items = problems
    if progress:
        from tqdm import tqdm

        items = tqdm(problems, desc="solving", unit="problem")
    for p in items:
        want = _signed(evaluate_python(parse(p["expr"])))
        t = time.perf_counter()
        try:
            out = solve_fn(p["expr"])
            err = None
        except SketchpadError as e:
            out, err = {}, f"{type(e).__name__}: {e}"
        wall = time.perf_counter() - t
        rows.append(
            {
                "id": p["id"],
                "kind": p.get("kind"),
                "ok": out.get("result") == want,
                "error": err,
                "forward_passes": out.get("forward_passes", 0),
                "views_presented": out.get("views_presented", 0),
                "batches": out.get("batches", 0),
                "distinct_views": out.get("distinct_views", 0),
                "seconds": out.get("seconds", wall),
                "answer_digits": len(want.lstrip("-")),
            }
        )
    return rows


def summarise(rows: list[dict]) -> dict:
    secs = sorted(r["seconds"] for r in rows)
    p95 = secs[min(len(secs) - 1, int(round(0.95 * (len(secs) - 1))))]
    return {
        "solved": sum(r["ok"] for r in rows),
        "total": len(rows),
        "forward_passes": sum(r["forward_passes"] for r in rows),
        "views_presented": sum(r.get("views_presented", 0) for r in rows),
        "batches": sum(r["batches"] for r in rows),
        "median_seconds": statistics.median(secs),
        "p95_seconds": p95,
        "total_seconds": sum(secs),
    }


def markdown(set_name: str, backend: str, s: dict, env: dict) -> str:
    return (
        f"| set | backend | solved | forward passes | views presented | batches | median (s) | p95 (s) | total (s) |\n"
        f"|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
        f"| {set_name} | {backend} | {s['solved']}/{s['total']} | {s['forward_passes']:,} | "
        f"{s.get('views_presented', 0):,} | {s['batches']:,} | {s['median_seconds']:.4f} | {s['p95_seconds']:.4f} | "
        f"{s['total_seconds']:.1f} |\n\n"
        f"{env['date']}, {env['machine']}, Python {env['python']}, {env['versions']}"
        + (f", load average {env['load']}" if env.get("load") else "")
        + "\n"
    )


def environment() -> dict:
    import importlib.metadata as md

    versions = []
    for pkg in ("torch", "transformers", "peft", "onnxruntime"):
        try:
            versions.append(f"{pkg} {md.version(pkg)}")
        except md.PackageNotFoundError:
            pass
    import os

    load = " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else ""
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "python": platform.python_version(),
        "versions": ", ".join(versions),
        "load": load,
    }
