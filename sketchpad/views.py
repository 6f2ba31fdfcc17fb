"""The view set V: every view the runtime can present, each with a witness problem.

V is found by running the reference stepper, in the sequential (one view per pass) mode, over
a fixed corpus of small problems (every procedure, every sign combination, lengths 1-4), in
order of size.  Each view's witness is the first problem that presents it *decisively*: one
where some wrong step on that view (`faults.wrong_steps`: a wrong digit, carry or next
operation) changes the run's outcome (another value, or a fault).  A view met in a discarded
trial subtraction is thus witnessed by a problem where its digit survives, when one exists.  The parallel
carry-select mode presents each column under every state of its scan family; every such view
is already in V (tested), so one certificate covers both modes.  Completeness is tested from both sides: every witness
presents its view, and property tests with long random operands present only views in V.
The committed export (sketchpad/data/views.jsonl) is what models are trained and certified
on; a test checks that it equals a fresh enumeration.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from pathlib import Path

from .digest import sha256_file
from .reference import reference_step
from .symbols import OPS, View

EXPORT_PATH = Path(__file__).parent / "data" / "views.jsonl"


def _pair(x: str, y: str, b: int):
    yield f"{x} + {y}"
    yield f"{x} - {y}"
    yield f"{x} * {y}"
    if b:
        yield f"{x} // {y}"
    yield f"gcd({x}, {y})"


def corpus():
    """The witness corpus, smallest problems first.  Deterministic."""
    small = list(range(0, 13)) + [19, 25, 50, 91, 99, 100, 101, 109, 190, 999, 1000]
    for a in small:
        for b in small:
            for sa in ("", "-"):
                for sb in ("", "-"):
                    yield from _pair(f"{sa}{a}", f"{sb}{b}", b)
        yield f"sqrt({a})"
        yield f"-({a} + 1)"
        yield f"-(-{a} - 1)"
    rnd = random.Random(20261129)
    for _ in range(4000):
        a = rnd.randint(0, 10 ** rnd.randint(1, 4))
        b = rnd.randint(0, 10 ** rnd.randint(1, 4))
        sa, sb = rnd.choice(("", "-")), rnd.choice(("", "-"))
        yield from _pair(f"{sa}{a}", f"{sb}{b}", b)
        yield f"sqrt({a})"


CANDIDATES = 400  # problems kept per view while looking for a decisive witness


def enumerate_views(progress: bool = False) -> dict[View, str]:
    """Run the corpus with the reference stepper; return {view: witness expression}."""
    from .solve import solve

    seen: dict[View, list] = {}
    items = list(corpus())
    if progress:
        from tqdm import tqdm

        items = tqdm(items, desc="enumerating views", unit="problem")
    for expr in items:
        for v in solve(expr, "reference", parallel=False).views:
            cands = seen.setdefault(v, [])
            if len(cands) < CANDIDATES:
                cands.append(expr)
    chosen = {v: next((e for e in cands if is_decisive(v, e)), cands[0]) for v, cands in seen.items()}
    return dict(sorted(chosen.items(), key=lambda kv: (OPS.index(kv[0].op), kv[0])))


def run_outcome(expr: str, stepper) -> object:
    """A run's outcome: its value, or the kind of error it stopped with."""
    from .errors import SketchpadError
    from .solve import solve

    try:
        return solve(expr, stepper, parallel=False).value
    except SketchpadError as e:
        return f"{type(e).__name__}: {e}"


def decisive_wrong_step(view: View, expr: str):
    """The first wrong step on `view` that changes the outcome of `expr`'s run, or None."""
    from .faults import OneWrongStepper, wrong_steps

    right = run_outcome(expr, "reference")
    for wrong in wrong_steps(view):
        if run_outcome(expr, OneWrongStepper(view, wrong)) != right:
            return wrong
    return None


def is_decisive(view: View, expr: str) -> bool:
    return decisive_wrong_step(view, expr) is not None


def export_lines(views: dict[View, str]) -> list[str]:
    lines = []
    for v, w in views.items():
        s = reference_step(v)
        lines.append(json.dumps({"view": list(v), "step": list(s), "witness": w}, separators=(",", ":")))
    return lines


def write_export(path: Path, views: dict[View, str]) -> str:
    text = "\n".join(export_lines(views)) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return hashlib.sha256(text.encode()).hexdigest()


def load(path: Path | None = None) -> list[dict]:
    """The committed view set: [{view: View, step: Step, witness: str}]."""
    from .symbols import Step

    p = Path(path) if path else EXPORT_PATH
    out = []
    for line in p.read_text().splitlines():
        d = json.loads(line)
        out.append({"view": View(*d["view"]), "step": Step(*d["step"]), "witness": d["witness"]})
    return out


def view_set(path: Path | None = None) -> frozenset:
    return frozenset(d["view"] for d in load(path))


def file_sha256(path: Path | None = None) -> str:
    return sha256_file(Path(path) if path else EXPORT_PATH)


def counts_by_op(views) -> dict[str, int]:
    c = Counter(v.op for v in views)
    return {op: c[op] for op in OPS if c[op]}
