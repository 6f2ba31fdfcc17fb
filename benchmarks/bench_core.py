"""Core benchmark (not a test): the reference stepper on the five core problems, in both
runtime modes, next to Python's own integers.  Prints a Markdown table.

    python benchmarks/bench_core.py [--repeat 3]

"runtime us/view" is the time spent outside the stepper divided by views presented: the fixed
runtime's own overhead per presented view, which must stay small next to a model forward pass.
"""

import argparse
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.core_problems import core_problems  # noqa: E402
from sketchpad import solve  # noqa: E402
from sketchpad.expr import evaluate_python, parse  # noqa: E402
from sketchpad.model.environment import machine  # noqa: E402


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(
        f"Reference stepper, {machine()}, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}, "
        f"load average {'/'.join(f'{x:.1f}' for x in os.getloadavg())}\n"
    )
    print(
        "| problem | mode | forward rows | views presented | batches | time (ms) | runtime us/view | Python int (us) | ratio |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, expr in core_problems():
        tree = parse(expr)
        t_py, want = best_of(lambda: evaluate_python(tree), max(args.repeat, 20))
        for parallel in (False, True):
            t, sol = best_of(lambda: solve(expr, "reference", parallel=parallel), args.repeat)
            assert sol.value == want, name
            overhead = (sol.seconds - sol.stepper_seconds) / sol.views_presented * 1e6
            print(
                f"| {name} | {'parallel' if parallel else 'sequential'} | {sol.forward_passes:,} | "
                f"{sol.views_presented:,} | {sol.batches:,} | {t * 1e3:.1f} | {overhead:.1f} | {t_py * 1e6:.1f} | "
                f"{t / t_py:,.0f}x |"
            )


if __name__ == "__main__":
    main()
