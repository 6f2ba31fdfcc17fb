"""`sketchpad bench SET --backend B`: run a pre-registered problem set and check every answer."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from ..solve import solve
from ..steppers import get


def register(sub):
    p = sub.add_parser("bench", help="run a pre-registered problem set and check every answer")
    p.add_argument("set", help="mixed-200, sums-products-220, or a path to a JSONL problem file")
    p.add_argument(
        "--backend",
        choices=("onnx", "torch", "browser", "reference"),
        default="onnx",
        help="who solves: the model on ONNX Runtime (default), PyTorch, or in the web page in "
        "headless Chromium; or the reference stepper.  A model is certified on this device "
        "(in the browser: by the page) before the first problem",
    )
    p.add_argument("--model", metavar="DIR", help="model directory (default: the shipped model)")
    p.add_argument("--sequential", action="store_true", help="one view per forward pass")
    p.add_argument("--limit", type=int, help="only the first N problems")
    p.add_argument("--out", metavar="RESULTS.json", help="write per-problem results and the summary")
    p.add_argument("--md", metavar="TABLE.md", help="write the summary as a Markdown table")
    p.add_argument("--allow-uncertified", action="store_true")
    p.set_defaults(func=run)


def _solver(args):
    if args.backend == "browser":
        # lazy: cold path, the browser solver (asyncio, the page server) loads only for --backend browser
        from ..browser_bench import BrowserSolver

        return BrowserSolver(model=args.model, parallel=not args.sequential, allow_uncertified=args.allow_uncertified)

    stepper = (
        get("reference")
        if args.backend == "reference"
        else get("model", model=args.model, backend=args.backend, allow_uncertified=args.allow_uncertified)
    )

    def fn(expr):
        return solve(expr, stepper, parallel=not args.sequential).as_dict()

    return fn


def run(args) -> int:
    from .. import bench  # lazy: cold path, the benchmark runner loads only for `sketchpad bench`

    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit must be at least 1, got {args.limit}")
    problems = bench.load_problems(args.set)[: args.limit]  # a bad set name fails before any model loads
    solver = _solver(args)
    try:
        rows = bench.run_set(problems, solver)
    finally:
        getattr(solver, "close", lambda: None)()
    s = bench.summarise(rows)
    env = bench.environment()
    name = Path(args.set).stem
    md = bench.markdown(name, args.backend + (" sequential" if args.sequential else ""), s, env)
    print(md)
    if args.out:
        Path(args.out).write_text(
            json.dumps(
                {"set": name, "backend": args.backend, "summary": s, "environment": env, "problems": rows}, indent=1
            )
        )
    if args.md:
        Path(args.md).write_text(md)
    failed = [r["id"] for r in rows if not r["ok"]]
    if failed:
        print(f"FAILED: {', '.join(failed[:20])}{' ...' if len(failed) > 20 else ''}")
    return 1 if failed else 0
