"""Writes the pre-registered problem sets (fixed seed) and their SHA-256.  Run once; the files
and benchmarks/problems/SHA256SUMS are committed before any evaluation, and
tests/test_problem_sets.py fails if a file no longer matches its hash or this generator.

    python benchmarks/make_problem_sets.py [--out benchmarks/problems]
"""

import argparse
import hashlib
import json
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from sketchpad.digits import to_digits  # noqa: E402

SEED = 20261129


def _num(rnd, lo, hi, signed=True):
    k = rnd.randint(lo, hi)
    v = rnd.randrange(10 ** (k - 1), 10**k) if k > 1 else rnd.randrange(0, 10)
    s = to_digits(v)
    return ("-" + s) if signed and v and rnd.random() < 0.5 else s


def mixed_200(rnd):
    """200 problems over every procedure: signed, 1 to 300 digits, composed expressions.
    Work grows as n^2 for *, //, %, sqrt and gcd, so their operands are shorter."""
    kinds = ["add", "sub", "mul", "floordiv", "mod", "sqrt", "gcd", "composed"]
    out = []
    for i in range(200):
        kind = kinds[i % len(kinds)]
        n = lambda lo, hi: _num(rnd, lo, hi)  # noqa: E731
        if kind == "add":
            e = f"{n(1, 300)} + {n(1, 300)}"
        elif kind == "sub":
            e = f"{n(1, 300)} - {n(1, 300)}"
        elif kind == "mul":
            e = f"{n(1, 60)} * {n(1, 60)}"
        elif kind in ("floordiv", "mod"):
            d = n(1, 40)
            d = d if d.strip("-0") else "7"
            e = f"{n(1, 120)} {'//' if kind == 'floordiv' else '%'} {d}"
        elif kind == "sqrt":
            e = f"sqrt({_num(rnd, 1, 120, signed=False)})"
        elif kind == "gcd":
            g = _num(rnd, 1, 15, signed=False)
            e = f"gcd({n(1, 30)} * {g}, {n(1, 30)} * {g})"
        else:
            e = f"({n(1, 25)} - {n(1, 25)}) * {n(1, 10)} + sqrt({_num(rnd, 1, 30, signed=False)}) - gcd({n(1, 12)}, {n(1, 12)})"
        out.append({"id": f"mixed-{i:03d}", "kind": kind, "expr": e})
    return out


def sums_products_220(rnd):
    """110 sums with operands of up to 1,000 digits and 110 products of up to 20 digits."""
    out = []
    for i in range(110):
        out.append(
            {"id": f"sum-{i:03d}", "kind": "add", "expr": f"{_num(rnd, 1, 1000, False)} + {_num(rnd, 1, 1000, False)}"}
        )
    for i in range(110):
        out.append(
            {"id": f"product-{i:03d}", "kind": "mul", "expr": f"{_num(rnd, 1, 20, False)} * {_num(rnd, 1, 20, False)}"}
        )
    return out


SETS = {"mixed-200": mixed_200, "sums-products-220": sums_products_220}


def render(name: str) -> str:
    rnd = random.Random(f"{SEED}-{name}")
    return "".join(json.dumps(p, separators=(",", ":")) + "\n" for p in SETS[name](rnd))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(pathlib.Path(__file__).parent / "problems"))
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sums = []
    for name in SETS:
        text = render(name)
        (out / f"{name}.jsonl").write_text(text)
        sums.append(f"{hashlib.sha256(text.encode()).hexdigest()}  {name}.jsonl\n")
    (out / "SHA256SUMS").write_text("".join(sums))
    print("".join(sums), end="")


if __name__ == "__main__":
    main()
