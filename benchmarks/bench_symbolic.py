"""Benchmark of the symbolic runtime (not a test): operations, forward passes, batches and time
for a few expand/factor/solve problems, on the reference stepper and on the default stepper
(`sketchpad.steppers.get(None)`: the certified shipped model, ONNX Runtime where exported).

    python benchmarks/bench_symbolic.py                                   # print Markdown
    python benchmarks/bench_symbolic.py --label before --out benchmarks/results/symbolic-before.md
    python benchmarks/bench_symbolic.py --label after --out benchmarks/results/symbolic-after.md \\
        --before benchmarks/results/symbolic-before.md                    # adds a comparison

A problem the code cannot do (e.g. rational input before it was supported) is a row with the
error, not a crash.  The load average is read at the start and the end of each stepper's run.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sketchpad.errors import SketchpadError  # noqa: E402
from sketchpad.model.environment import machine  # noqa: E402
from sketchpad.steppers import get
from sketchpad.symbolic import expand, factor, solve  # noqa: E402

QUADRATIC = "12345678901234567891x^2 + 98765432109876543211x - 11111111112222222222"
DEGREE25 = (
    "-29802322387695312500000000000000000000*x^25 + 2980232238769531250000000000000000*x^20"
    " + 1743435859680175781250000000000*x^15 + 114142894744873046875000000*x^10"
    " - 210106372833251953125*x^5 + 95367431640625"
)
PROBLEMS = [
    ("expand", expand, "(x+1)^20"),
    ("factor", factor, "(x - 1)(x + 2)(2x - 3)(x + 4)(x^2 + x + 1)"),  # degree 6, small factors
    ("factor", factor, "(x^2 + 1)(x^2 - 2)(x^2 + x + 1)"),  # degree 6, no rational root
    ("solve", solve, QUADRATIC),  # 20 digits: the discriminant's square part dominates
    ("expand", expand, "(1/2x + 2/3)^6"),  # rational coefficients (issue 14)
    ("factor", factor, "1/2x^2 - 1/2"),
    ("factor", factor, DEGREE25),  # SymPy's test_dup_zz_factor, 38-digit coefficients (issue 14)
]
COLUMNS = ("operations", "forward passes", "batches", "seconds")


def steppers():
    """(name, stepper, None) or (name, None, why it is not available)."""

    yield "reference", "reference", None
    try:
        get(None)  # load (and certify) once, outside the timings
    except (SketchpadError, ImportError) as e:
        yield "model", None, str(e)
        return
    yield "model", None, None


def machine_line() -> str:
    return f"{machine()}, {platform.release()}, Python {platform.python_version()}"


def load() -> str:
    """The `uptime` load averages (1, 5, 15 min): the machine is shared, so times are noisy."""
    if not hasattr(os, "getloadavg"):
        return "unknown"
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


def run_one(call, text, stepper) -> dict:
    t = time.perf_counter()
    try:
        r = call(text, stepper)
    except SketchpadError as e:
        return {"result": f"error: {e}", "answer": None, "seconds": time.perf_counter() - t}
    dt = time.perf_counter() - t
    full = r.as_dict()
    shown = str(r).replace("\n", "; ")
    return {
        "result": shown if len(shown) <= 90 else shown[:87] + "...",
        "answer": {k: v for k, v in full.items() if k not in ("stepper", "seconds")},
        "stepper": r.stepper,
        "operations": r.operations,
        "forward passes": r.forward_passes,
        "batches": r.batches,
        "seconds": dt,
    }


def read_table(path: str) -> dict:
    """(stepper, task, input) -> {column: value} from the main table of an earlier report."""
    rows, header = {}, None
    with open(path) as f:
        for line in f:
            if not line.startswith("|"):
                if header is not None:
                    break  # the main table is the first one
                continue
            if line.startswith("|---"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
                continue
            row = dict(zip(header, cells))
            rows[(row["stepper"].split(":")[0], row["task"], row["input"].strip("`"))] = row
    return rows


def _num(s: str) -> float | None:
    s = re.sub(r"[,*]", "", s or "")
    try:
        return float(s)
    except ValueError:
        return None


def comparison(before: dict, after: list) -> list[str]:
    lines = [
        "| stepper | task | input | forward passes before → after | batches before → after | "
        "seconds before → after | speed-up |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for row in after:
        b = before.get((row["stepper"].split(":")[0], row["task"], row["input"].strip("`")))
        if b is None or _num(b.get("seconds")) is None or row.get("forward passes") == "":
            continue
        bs, as_ = _num(b["seconds"]), _num(row["seconds"])
        if _num(b.get("batches")) is None:
            cells = ["(failed)", "(failed)", f"{b['seconds']} → {row['seconds']}", "new"]
        else:
            cells = [
                f"{b['forward passes']} → {row['forward passes']}",
                f"{b['batches']} → {row['batches']}",
                f"{b['seconds']} → {row['seconds']}",
                f"{bs / as_:.1f}×" if as_ else "",
            ]
        lines.append(f"| {row['stepper']} | {row['task']} | {row['input']} | " + " | ".join(cells) + " |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="also write the Markdown report here")
    ap.add_argument("--label", default="", help="a name for this run (before, after)")
    ap.add_argument("--before", help="an earlier report: add a before/after comparison table")
    ap.add_argument("--only", choices=("reference", "model"), help="run one stepper only")
    args = ap.parse_args()
    command = "python " + " ".join(["benchmarks/bench_symbolic.py"] + sys.argv[1:])
    lines = [
        "# Symbolic runtime benchmark" + (f" ({args.label})" if args.label else ""),
        "",
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M UTC}",
        f"- machine: {machine_line()}",
        f"- command: `{command}`",
        "- forward passes = views the stepper evaluated; batches = sequential stepper calls; "
        "operations = procedure runs (add, mul, divmod, ...)",
        "- the default stepper is `sketchpad.steppers.get(None)`: the certified shipped model",
        "",
        "| stepper | task | input | result | same as reference | operations | forward passes | batches | seconds |",
        "|---|---|---|---|---|---:|---:|---:|---:|",
    ]
    notes, reference, rows = [], {}, []
    for name, stepper, why in steppers():
        if why is not None:
            notes.append(f"- {name} stepper: not run: {why}")
            continue
        if args.only and args.only != name:
            continue
        notes.append(f"- {name} stepper: load average (1, 5, 15 min) {load()} at start")
        for task, call, text in PROBLEMS:
            r = run_one(call, text, stepper)
            if r["answer"] is None:
                same = "—"
            else:
                same = "yes" if reference.setdefault((task, text), r["answer"]) == r["answer"] else "**NO**"
            row = {
                "stepper": r.get("stepper", name),
                "task": task,
                "input": f"`{text}`",
                "result": f"`{r['result']}`",
                "same": same,
                **{c: (f"{r[c]:,}" if c in r else "") for c in COLUMNS[:3]},
                "seconds": f"{r['seconds']:.2f}",
            }
            rows.append(row)
            lines.append("| " + " | ".join(row.values()) + " |")
            print(lines[-1], file=sys.stderr)
        notes.append(f"- {name} stepper: load average (1, 5, 15 min) {load()} at end")
    lines += ["", *notes]
    if args.before:
        lines += ["", f"## Before → after (before: `{args.before}`)", "", *comparison(read_table(args.before), rows)]
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        with open(args.out, "w") as f:
            f.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
