"""The symbolic runtime at SymPy's scale, against SymPy measured in the same run (issue 23).

    python benchmarks/bench_symbolic_scale.py --out benchmarks/results/symbolic.md   # all of it
    python benchmarks/bench_symbolic_scale.py --quick                                # a sample

Sections (reference stepper unless it says model; times are wall seconds on a shared machine,
the load average is recorded beside every section; operations, forward passes and batches are
exact and the same on every run and every stepper):

1. the SymPy corpus (tests/data/symbolic_corpus.json): factor each polynomial (target <= 2 s),
   and its real roots to 50 digits checked against SymPy/mpmath (tests/realroot_oracle.py);
2. x^n - 1 and x^n + 1 for n = 1..120: factored completely (the factors equal SymPy's);
3. products of 3-6 random irreducibles, total degree <= 25, product coefficients up to 15
   digits (target <= 10 s; and on the shipped model <= 60 s for a sample);
4. real roots to 50 digits: a degree-10 polynomial (target <= 5 s on the model), Wilkinson's
   polynomial and its perturbation, Mignotte-type polynomials, x^n - 2 for n = 1..30, and 200
   random polynomials of degree <= 12, every one checked against SymPy/mpmath.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

import sympy  # noqa: E402
from realroot_oracle import X, check_real_roots  # noqa: E402
from tqdm import tqdm  # noqa: E402

from benchmarks.bench_symbolic import load, machine  # noqa: E402
from sketchpad.symbolic import factor, solve  # noqa: E402

CORPUS = os.path.join(os.path.dirname(HERE), "tests", "data", "symbolic_corpus.json")
BUDGET = 10_000_000  # the operation budget for every call here (the default is 200,000)
DIGITS = 50


def text_of(cs: list[int]) -> str:
    n = len(cs) - 1
    return " + ".join(f"({c})*x^{n - k}" for k, c in enumerate(cs) if c) or "0"


def timed(call):
    """(result, CPU seconds, wall seconds): the machine is shared (load 10-20 on 2 cores while
    others test), so the CPU seconds of this process are the comparable figure; SymPy's too."""
    t, c = time.perf_counter(), time.process_time()
    out = call()
    return out, time.process_time() - c, time.perf_counter() - t


def sympy_factor_time(cs: list[int]) -> float:
    p = sympy.Poly(cs, X)
    return timed(lambda: sympy.factor_list(p))[1]


def sympy_roots_time(cs: list[int], digits: int) -> float:
    p = sympy.Poly(cs, X)
    return timed(lambda: [r.evalf(digits) for r in sympy.real_roots(p)])[1]


def ours_matches_sympy(result, cs: list[int]) -> bool:
    _, theirs = sympy.factor_list(sympy.Poly(cs, X))
    want = sorted((tuple(abs(int(c)) for c in g.all_coeffs()), m) for g, m in theirs)
    got = sorted((tuple(abs(c) for c in g.coeffs()), m) for g, m in result.factors)
    return want == got and result.proven


def random_product(seed: int) -> list[int]:
    """3-6 random irreducible factors, total degree <= 25, product coefficients < 10^15."""
    rng = random.Random(seed)
    k = rng.randint(3, 6)
    total = rng.randint(max(k, 10), 25)
    while True:
        degs = [1] * k
        for _ in range(total - k):
            degs[rng.randrange(k)] += 1
        width = max(1, 14 // k)
        factors = []
        for d in degs:
            while True:
                cs = [rng.randint(-(10**width) + 1, 10**width - 1) for _ in range(d + 1)]
                if cs[0] and cs[-1] and sympy.gcd_list(cs) == 1 and sympy.Poly(cs, X).is_irreducible:
                    factors.append(sympy.Poly(cs, X))
                    break
        f = factors[0]
        for g in factors[1:]:
            f = f * g
        out = [int(c) for c in f.all_coeffs()]
        if max(abs(c) for c in out) < 10**15:
            return out


class Report(list):
    """The report's lines, rewritten to `path` after every change: a long run interrupted (or
    cut short on a busy machine) still leaves every row it measured."""

    def __init__(self, path: str | None):
        super().__init__()
        self.path = path

    def _save(self) -> None:
        if self.path:
            with open(self.path, "w") as f:
                f.write("\n".join(self) + "\n")

    def append(self, line) -> None:
        super().append(line)
        self._save()

    def __iadd__(self, more):
        super().__iadd__(more)
        self._save()
        return self


PART = (0, 1)  # --part I/M: every M-th item from the I-th, to share a section among processes


def part(items: list) -> list:
    return list(items)[PART[0] :: PART[1]]


def row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def ratio(ours: float, theirs: float) -> str:
    return f"{ours / max(theirs, 1e-6):,.0f}"


def fmt(v: float) -> str:
    return f"{v:.2f}"


def section_corpus(lines: list, quick: bool) -> None:

    polys = json.load(open(CORPUS))["polynomials"]
    if quick:
        polys = polys[::25]
    numbered = part(list(enumerate(polys)))  # the corpus index stays the same whatever --part
    lines += [
        "## 1. The SymPy corpus",
        "",
        f"- {len(numbered)} of {len(polys)} polynomials (part {PART[0]}/{PART[1]}); load average {load()} at start",
        "",
        "| # | degree | factor s | SymPy s | ratio | ops | batches | same as SymPy | real roots to 50 digits s | "
        "SymPy s | roots checked |",
        "|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    slow, wrong, bad = 0, 0, 0
    for i, p in tqdm(numbered, desc="corpus", file=sys.stderr):
        cs = [int(c) for c in p["coefficients"]]
        r, t, _ = timed(lambda: factor(text_of(cs), "reference", max_operations=BUDGET))
        ts = sympy_factor_time(cs)
        same = ours_matches_sympy(r, cs)
        s, tr, _ = timed(lambda: solve(text_of(cs), "reference", digits=DIGITS, max_operations=BUDGET))
        try:
            check_real_roots(s, cs, DIGITS)
            checked = "yes"
        except AssertionError as e:
            checked, bad = f"**NO** {e}", bad + 1
        slow += t > 2.0
        wrong += not same
        lines.append(
            row(
                [i, len(cs) - 1, fmt(t), f"{ts:.4f}", ratio(t, ts), f"{r.operations:,}", f"{r.batches:,}"]
                + ["yes" if same else "**NO**", fmt(tr), f"{sympy_roots_time(cs, DIGITS):.4f}", checked]
            )
        )
    lines += [
        "",
        f"- over 2 s: {slow} of {len(numbered)}; factorisations differing from SymPy's: {wrong}; "
        f"real roots failing the check: {bad}; load average {load()} at end",
        "",
    ]


def section_binomials(lines: list, quick: bool) -> None:
    ns = range(1, 121, 17) if quick else range(1, 121)
    lines += [
        "## 2. x^n - 1 and x^n + 1, n = 1..120",
        "",
        f"- load average {load()} at start",
        "",
        "| n | x^n - 1: factors | s | SymPy s | x^n + 1: factors | s | SymPy s | both complete |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    worst, incomplete = 0.0, 0
    for n in tqdm(ns, desc="x^n ± 1", file=sys.stderr):
        cells = [n]
        ok = True
        for sign in (-1, 1):
            cs = [1] + [0] * (n - 1) + [sign]
            r, t, _ = timed(lambda: factor(text_of(cs), "reference", max_operations=BUDGET))
            ok &= ours_matches_sympy(r, cs)
            worst = max(worst, t)
            cells += [len(r.factors), fmt(t), f"{sympy_factor_time(cs):.4f}"]
        incomplete += not ok
        lines.append(row(cells + ["yes" if ok else "**NO**"]))
    lines += ["", f"- not complete: {incomplete}; slowest: {worst:.2f} s; load average {load()} at end", ""]


def section_products(lines: list, quick: bool, model_sample: int) -> None:
    seeds = part(range(2) if quick else range(12))
    lines += [
        "## 3. Products of 3-6 random irreducibles (degree <= 25, coefficients < 10^15)",
        "",
        f"- load average {load()} at start; `random_product(seed)` in this script",
        "",
        "| seed | degree | factors | stepper | CPU s | wall s | SymPy s | ratio | ops | forward passes | batches | "
        "same as SymPy |",
        "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for seed in tqdm(seeds, desc="products", file=sys.stderr):
        cs = random_product(seed)
        ts = sympy_factor_time(cs)
        steppers = ["reference"] + (["model"] if seed < model_sample else [])
        for st in steppers:
            r, t, wall = timed(lambda: factor(text_of(cs), st, max_operations=BUDGET))
            lines.append(
                row(
                    [seed, len(cs) - 1, len(r.factors), st, fmt(t), fmt(wall), f"{ts:.4f}", ratio(t, ts)]
                    + [f"{r.operations:,}", f"{r.forward_passes:,}", f"{r.batches:,}"]
                    + ["yes" if ours_matches_sympy(r, cs) else "**NO**"]
                )
            )
    lines += ["", f"- load average {load()} at end", ""]


def _roots_row(name: str, cs: list[int], stepper: str = "reference", digits: int = DIGITS) -> list:
    s, t, wall = timed(lambda: solve(text_of(cs), stepper, digits=digits, max_operations=BUDGET))
    try:
        check_real_roots(s, cs, digits)
        ok = "yes"
    except AssertionError as e:
        ok = f"**NO** {e}"
    ts = sympy_roots_time(cs, digits)
    return [name, len(cs) - 1, stepper, len(s.real_roots), fmt(t), fmt(wall), f"{ts:.4f}", ratio(t, ts)] + [
        f"{s.operations:,}",
        f"{s.forward_passes:,}",
        f"{s.batches:,}",
        ok,
    ]


def section_roots(lines: list, quick: bool) -> None:
    rng = random.Random(10)
    deg10 = [rng.randint(-99, 99) for _ in range(11)]
    deg10[0] = deg10[0] or 1
    w = sympy.prod([X - k for k in range(1, 21)])
    cases = [
        ("degree 10, coefficients in [-99, 99]", deg10, "reference"),
        ("degree 10, coefficients in [-99, 99]", deg10, "model"),
        ("Wilkinson 20", [int(c) for c in sympy.Poly(w, X).all_coeffs()], "reference"),
    ]
    # last of all: its refinement to 50 digits runs for many minutes (ten pairs of close roots)
    perturbed = ("Wilkinson 20, x^19 moved by 2^-23", [int(c) for c in sympy.Poly(2**23 * w - X**19, X).all_coeffs()])
    for n, a in ((4, 10), (5, 100), (7, 30), (10, 10)):
        cases.append(
            (
                f"Mignotte x^{n} - 2({a}x - 1)^2",
                [int(c) for c in sympy.Poly(X**n - 2 * (a * X - 1) ** 2, X).all_coeffs()],
                "reference",
            )
        )
    for n in range(1, 31, 7 if quick else 1):
        cases.append((f"x^{n} - 2", [1] + [0] * (n - 1) + [-2], "reference"))
    lines += [
        "## 4. Real roots to 50 digits",
        "",
        f"- load average {load()} at start; every root checked: SymPy's count_roots on the interval is 1, "
        "the width is <= 10^-50, the approximation is the root truncated toward the lower end, "
        "SymPy's root (mpmath, 70 digits) agrees, the real-root count is SymPy's",
        "",
        "| polynomial | degree | stepper | real roots | CPU s | wall s | SymPy s | ratio | ops | forward passes | batches | "
        "checked |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, cs, st in tqdm(part(cases), desc="real roots", file=sys.stderr):
        lines.append(row(_roots_row(name, cs, st)))
    count = 20 if quick else 200
    rng = random.Random(23)
    failures, total, worst = 0, 0.0, 0.0
    randoms = []
    for _ in range(count):
        n = rng.randint(1, 12)
        cs = [rng.randint(-30, 30) for _ in range(n + 1)]
        cs[0] = cs[0] or 1
        if not any(cs[1:]):
            cs[-1] = 1
        randoms.append(cs)
    randoms = part(randoms)
    for cs in tqdm(randoms, desc="random degree <= 12", file=sys.stderr):
        s, t, _ = timed(lambda: solve(text_of(cs), "reference", digits=DIGITS, max_operations=BUDGET))
        total, worst = total + t, max(worst, t)
        try:
            check_real_roots(s, cs, DIGITS)
        except AssertionError:
            failures += 1
    lines += [
        "",
        f"- {len(randoms)} of {count} random polynomials of degree <= 12 (coefficients in [-30, 30], seed 23; "
        f"part {PART[0]}/{PART[1]}): {len(randoms) - failures} checked, {failures} failed; {total:.1f} CPU s in all, slowest {worst:.2f} CPU s",
        f"- load average {load()} at end",
        "",
    ]
    if not quick:
        last = row(_roots_row(*perturbed))  # the header only once the row exists (the report is saved per line)
        lines += [
            "| polynomial | degree | stepper | real roots | CPU s | wall s | SymPy s | ratio | ops | forward passes | "
            "batches | checked |",
            "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
            last,
        ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the Markdown report here")
    ap.add_argument("--quick", action="store_true", help="a sample of every section (minutes)")
    ap.add_argument("--only", choices=("corpus", "binomials", "products", "roots"), action="append")
    ap.add_argument("--model-products", type=int, default=3, help="products also run on the model")
    ap.add_argument("--part", default="0/1", help="I/M: only every M-th item from the I-th of each section")
    args = ap.parse_args()
    global PART
    PART = tuple(int(v) for v in args.part.split("/"))
    command = "python " + " ".join(["benchmarks/bench_symbolic_scale.py"] + sys.argv[1:])
    lines = Report(args.out)
    lines += [
        "# Symbolic runtime at SymPy's scale",
        "",
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M UTC}",
        f"- machine: {machine()}; SymPy {sympy.__version__}",
        f"- command: `{command}`",
        f"- load average at start: {load()}",
        "- reference = the reference stepper (the runtime's own cost); model = the certified shipped "
        "model on this CPU; seconds are CPU seconds of this process (time.process_time: the machine is "
        "shared, see the load averages) unless a column says wall; ratio = our CPU s / SymPy's CPU s",
        "",
    ]
    sections = {
        "corpus": lambda: section_corpus(lines, args.quick),
        "binomials": lambda: section_binomials(lines, args.quick),
        "products": lambda: section_products(lines, args.quick, args.model_products),
        "roots": lambda: section_roots(lines, args.quick),
    }
    for name in args.only or sections:
        sections[name]()
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
