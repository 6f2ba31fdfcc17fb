"""Benchmark of the symbolic runtime (not a test): forward passes and time for the three
problems of issue 5, with the reference stepper and, when it loads, the shipped model.

    python benchmarks/bench_symbolic.py                 # print Markdown
    python benchmarks/bench_symbolic.py --out benchmarks/results/symbolic.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sketchpad.errors import SketchpadError  # noqa: E402
from sketchpad.symbolic import expand, factor, solve  # noqa: E402

PROBLEMS = [
    ("expand", expand, "(x+1)^20"),
    ("factor", factor, "(x - 1)(x + 2)(2x - 3)(x + 4)(x^2 + x + 1)"),  # degree 6, small factors
    ("factor", factor, "(x^2 + 1)(x^2 - 2)(x^2 + x + 1)"),  # degree 6, no rational root
    ("solve", solve, "12345678901234567891x^2 + 98765432109876543211x - 11111111112222222222"),
]


def steppers():
    """(name, stepper, None) or (name, None, why it is not available)."""
    yield "reference", "reference", None
    try:
        from sketchpad.model.stepper import load_default_stepper
    except ImportError as e:
        yield "model", None, f"sketchpad.model.stepper does not import ({e})"
        return
    try:
        yield "model", load_default_stepper(), None
    except SketchpadError as e:
        yield "model", None, str(e)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs "
        f"(load average {load:.1f} at start), Python {platform.python_version()}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="also write the Markdown report here")
    args = ap.parse_args()
    lines = [
        "# Symbolic runtime benchmark",
        "",
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M UTC}",
        f"- machine: {machine()}",
        "- command: `python benchmarks/bench_symbolic.py --out benchmarks/results/symbolic.md`",
        "- forward passes = views the stepper evaluated; batches = sequential stepper calls; "
        "operations = procedure runs (add, mul, divmod, ...)",
        "",
        "| stepper | task | input | result | same as reference | operations | forward passes | batches | seconds |",
        "|---|---|---|---|---|---:|---:|---:|---:|",
    ]
    notes, reference = [], {}
    for name, stepper, why in steppers():
        if stepper is None:
            notes.append(f"- {name} stepper: not run: {why}")
            continue
        for task, call, text in PROBLEMS:
            t = time.perf_counter()
            r = call(text, stepper)
            dt = time.perf_counter() - t
            full = r.as_dict()
            answer = {k: v for k, v in full.items() if k not in ("stepper", "seconds")}
            same = "yes" if reference.setdefault((task, text), answer) == answer else "**NO**"
            shown = str(r).replace("\n", "; ")
            shown = shown if len(shown) <= 90 else shown[:87] + "..."
            lines.append(
                f"| {r.stepper} | {task} | `{text}` | `{shown}` | {same} | {r.operations:,} | "
                f"{r.forward_passes:,} | {r.batches:,} | {dt:.2f} |"
            )
            print(lines[-1], file=sys.stderr)
    report = "\n".join(lines + [""] + notes) + "\n"
    print(report)
    if args.out:
        with open(args.out, "w") as f:
            f.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
