"""Core benchmark (not a test): the reference stepper on the five core problems, in both
runtime modes, next to Python's own integers.  Prints a Markdown table.

    python benchmarks/bench_core.py [--repeat 3]

"runtime us/step" is the time spent outside the stepper divided by forward passes: the fixed
runtime's own overhead per step, which must stay small next to a model forward pass.
"""
import argparse
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.problems import core_problems  # noqa: E402
from sketchpad import solve  # noqa: E402
from sketchpad.expr import evaluate_python, parse  # noqa: E402


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
    print(f"Reference stepper, {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}\n")
    print("| problem | mode | forward passes | batches | time (ms) | runtime us/step | Python int (us) | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, expr in core_problems():
        tree = parse(expr)
        t_py, want = best_of(lambda: evaluate_python(tree), max(args.repeat, 20))
        for parallel in (False, True):
            t, sol = best_of(lambda: solve(expr, "reference", parallel=parallel), args.repeat)
            assert sol.value == want, name
            overhead = (sol.seconds - sol.stepper_seconds) / sol.forward_passes * 1e6
            print(f"| {name} | {'parallel' if parallel else 'sequential'} | {sol.forward_passes:,} | "
                  f"{sol.batches:,} | {t * 1e3:.1f} | {overhead:.1f} | {t_py * 1e6:.1f} | {t / t_py:,.0f}x |")


if __name__ == "__main__":
    main()
