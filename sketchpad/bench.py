"""Run a pre-registered problem set on a backend, check every answer against Python's
integers, and summarise: solved/total, forward passes, batches, time per problem.

The answer key is Python's own: each expression is parsed by Python's `ast` and evaluated by
Python (`math.isqrt`, `math.gcd`, `//` and `%`), never through sketchpad's parser, so a parser
bug cannot make a wrong answer look right."""

from __future__ import annotations

import ast
import contextlib
import importlib.metadata as md
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from tqdm import tqdm

from .errors import InputError, SketchpadError
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


# What a problem may contain, as Python's grammar names it: integers, + - * // %, unary minus,
# parentheses and the calls sqrt(x) and gcd(a, b).
_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Load, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
_ALLOWED += (ast.USub, ast.UAdd)
_CALLS = {"sqrt": math.isqrt, "gcd": math.gcd}


@contextlib.contextmanager
def _long_ints():
    """Python limits int <-> str conversion to 4,300 digits by default; problems are longer."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def python_answer(expr: str) -> str:
    """The expected answer of a problem, as Python computes it (decimal, '-' if negative)."""
    with _long_ints():
        try:
            tree = ast.parse(expr.strip(), mode="eval")
        except SyntaxError as e:
            raise InputError(f"not a Python expression ({e.msg}): {expr[:60]!r}") from None
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant):
                ok = type(node.value) is int
            elif isinstance(node, ast.Name):
                ok = node.id in _CALLS
            elif isinstance(node, ast.Call):
                ok = isinstance(node.func, ast.Name) and not node.keywords
            else:
                ok = isinstance(node, _ALLOWED)
            if not ok:
                raise InputError(f"not a problem of the benchmark grammar: {expr[:60]!r}")
        try:
            value = eval(compile(tree, "<problem>", "eval"), {"__builtins__": {}, **_CALLS})  # checked above
        except (ZeroDivisionError, ValueError) as e:
            raise InputError(f"a problem with no answer ({e}): {expr[:60]!r}") from None
        return str(value)


def run_set(problems: list[dict], solve_fn, progress: bool = True) -> list[dict]:
    """`solve_fn(expr) -> dict(result, forward_passes, views_presented, batches, distinct_views, seconds)`."""
    rows = []
    items = problems
    if progress:
        items = tqdm(problems, desc="solving", unit="problem")
    for p in items:
        want = python_answer(p["expr"])
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
    versions = []
    for pkg in ("torch", "transformers", "peft", "onnxruntime"):
        try:
            versions.append(f"{pkg} {md.version(pkg)}")
        except md.PackageNotFoundError:
            pass

    load = " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else ""
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "python": platform.python_version(),
        "versions": ", ".join(versions),
        "load": load,
    }
