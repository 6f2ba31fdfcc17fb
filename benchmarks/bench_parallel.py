"""Parallel (carry-select) vs sequential runtime on the shipped model (not a test).

For a 1,000-digit sum and a 20 x 20-digit product, per backend (torch, onnx): sequential depth
(batches), forward passes, time, the share of time spent inside forward passes, and the
speed-up of the parallel mode.  Prints a Markdown table.

    python benchmarks/bench_parallel.py [--repeat 3] [--backends torch,onnx]
"""

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sketchpad import solve  # noqa: E402
from sketchpad.digits import to_digits  # noqa: E402
from sketchpad.expr import evaluate_python, parse  # noqa: E402
from sketchpad.model.environment import machine  # noqa: E402
from sketchpad.model.loading import load_stepper  # noqa: E402


def problems():
    rnd = random.Random(7)
    n = lambda d: to_digits(rnd.randrange(10 ** (d - 1), 10**d))  # noqa: E731
    return [("1,000-digit sum", f"{n(1000)} + {n(1000)}"), ("20 x 20 product", f"{n(20)} * {n(20)}")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--backends", default="torch,onnx")
    args = ap.parse_args()
    print(
        f"{time.strftime('%Y-%m-%d')}, {machine()}, "
        f"load average {'/'.join(f'{x:.1f}' for x in os.getloadavg())}; best of {args.repeat}\n"
    )
    print(
        "| backend | problem | mode | batches | forward rows | views presented | time (s) | in forward passes | speed-up |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for backend in args.backends.split(","):
        stepper = load_stepper(None, backend=backend)
        for name, expr in problems():
            want = evaluate_python(parse(expr))
            res = {}
            for parallel in (False, True):
                best = None
                for _ in range(args.repeat):
                    s = solve(expr, stepper, parallel=parallel)
                    assert s.value == want
                    if best is None or s.seconds < best.seconds:
                        best = s
                res[parallel] = best
            for parallel in (False, True):
                s = res[parallel]
                speed = res[False].seconds / s.seconds
                print(
                    f"| {backend} | {name} | {'parallel' if parallel else 'sequential'} | {s.batches:,} | "
                    f"{s.forward_passes:,} | {s.views_presented:,} | {s.seconds:.3f} | {s.stepper_seconds / s.seconds:.0%} | "
                    f"{speed:.1f}x |"
                )


if __name__ == "__main__":
    main()
