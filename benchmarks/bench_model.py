"""Benchmark of the shipped step model (not a test): certification time, forward passes per
second, and end-to-end solve times next to the reference stepper's.

    python benchmarks/bench_model.py [--out benchmarks/results/model.md] [--repeat 3]

Times are the best of --repeat runs (the build machines are shared; the best run is the
least disturbed).  The load average at the start is printed, since it moves every number.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import time
from math import gcd, isqrt
from pathlib import Path

import sys

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))     # run from a checkout

import torch  # noqa: E402

from sketchpad.certify.backends import cpu_name
from sketchpad.certify.run import certify  # noqa: E402
from sketchpad import solve
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.stepper import load_default_stepper
from sketchpad.reference import ReferenceStepper
from sketchpad.views import load


def best(fn, repeat):
    """(best time, the output of that run); runs over 5 s are not repeated."""
    best_t, best_out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        t = time.perf_counter() - t
        if t < best_t:
            best_t, best_out = t, out
        if t > 5:
            break
    return best_t, best_out


class OneAtATime:
    """The model stepper fed one view per forward pass (the worst case for sequential work)."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name + ",batch=1"

    def __call__(self, views):
        return [self.inner([v])[0] for v in views]


def problems():
    r = random.Random(2026)
    n = lambda d: r.randrange(10 ** (d - 1), 10 ** d)  # noqa: E731
    a, b = n(1000), n(1000)
    p, q = n(20), n(20)
    x, y = n(200), n(100)
    s = n(100)
    g1, g2 = n(100), n(100)
    return [("1,000-digit + 1,000-digit sum", f"{a} + {b}", a + b),
            ("20 x 20-digit product", f"{p} * {q}", p * q),
            ("200 / 100-digit division", f"{x} // {y}", x // y),
            ("100-digit square root", f"sqrt({s})", isqrt(s)),
            ("gcd of two 100-digit numbers", f"gcd({g1}, {g2})", gcd(g1, g2))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "model.md"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    lines = [f"# Step model benchmark", "",
             f"- date: {dt.datetime.now(dt.timezone.utc).isoformat(timespec='seconds')}",
             f"- machine: {cpu_name()}, {os.cpu_count()} CPUs, {platform.platform()}",
             f"- load average at start: {os.getloadavg()[0]:.2f} (the machine is shared)",
             f"- torch {torch.__version__}, {torch.get_num_threads()} threads; model: {DEFAULT_MODEL_DIR.name}",
             f"- times: best of {args.repeat}", ""]

    stepper = load_default_stepper()
    views = [e["view"] for e in load()]
    n = len(views)

    # certification: all of V at batch n (the primary pass) and at batch 1 (the cross-check)
    cert_s, stmt = best(lambda: certify(DEFAULT_MODEL_DIR, batch_sizes=(n, 1)), args.repeat)
    p = stmt["predicate"]
    by_bs = p["time"]["seconds_by_batch_size"]
    full_s, _ = best(lambda: stepper.steps_and_margins(views), args.repeat)
    lines += ["## Certification (torch, CPU)", "",
              "| measure | value |", "|---|---|",
              f"| views in V | {n} |",
              f"| passed | {p['result']['passed_views']}/{n} |",
              f"| min margin (logits) | {p['result']['min_margin']:.3f} at `{p['result']['min_margin_view']}` |",
              f"| all of V, one batch of {n} (forward + compare) | {full_s:.3f} s |",
              f"| certify run, batch {n} pass | {by_bs[str(n)]:.3f} s |",
              f"| certify run, batch 1 pass | {by_bs['1']:.3f} s |",
              f"| whole `certify` (load, both passes, hashes) | {cert_s:.3f} s |",
              f"| max logit diff, batch {n} vs 1 | {p['batch_consistency']['max_abs_logit_diff']:.2e} |", ""]

    # forward passes per second
    one = views[:1]
    stepper(one)
    k = 500
    t1, _ = best(lambda: [stepper([views[i % n]]) for i in range(k)], args.repeat)
    tb, _ = best(lambda: stepper(views), args.repeat)
    lines += ["## Forward passes per second", "", "| batch | ms per batch | forward passes / s |", "|---|---|---|",
              f"| 1 | {t1 / k * 1e3:.3f} | {k / t1:,.0f} |",
              f"| {n} | {tb * 1e3:.1f} | {n / tb:,.0f} |", ""]

    # end-to-end solves
    ref = ReferenceStepper()
    lines += ["## End-to-end solves (model vs reference stepper)", "",
              "| problem | forward passes | batches | model s | reference s | correct |",
              "|---|---|---|---|---|---|"]
    for name, expr, want in problems():
        tm, sm = best(lambda: solve(expr, stepper=stepper), args.repeat)
        tr, sr = best(lambda: solve(expr, stepper=ref), args.repeat)
        ok = sm.value == want == sr.value
        lines.append(f"| {name} | {sm.forward_passes:,} | {sm.batches:,} | {tm:.3f} | {tr:.3f} | {ok} |")
    name, expr, want = problems()[0]
    # The sequential runtime mode presents one view per batch; OneAtATime makes sure each of
    # them is its own forward pass.
    t1, s1 = best(lambda: solve(expr, stepper=OneAtATime(stepper), parallel=False), args.repeat)
    lines.append(f"| {name}, sequential mode, one view per forward pass | {s1.forward_passes:,} | "
                 f"{s1.batches:,} | {t1:.3f} | - | {s1.value == want} |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
