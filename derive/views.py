"""The view set V, enumerated: the building half of sketchpad/views.py (which reads the export).

V is found by running the reference stepper, in the sequential (one view per pass) mode, over
a fixed corpus of small problems (every procedure, every sign combination, lengths 1-4), in
order of size.  Each view's witness is the first problem that presents it *decisively*: one
where some wrong step on that view (`faults.wrong_steps`: a wrong digit, carry or next
operation) changes the run's outcome (another value, or a fault).  `python -m derive views`
writes sketchpad/data/views.jsonl; `python -m derive --check` says whether it is stale.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from tqdm import tqdm

from sketchpad.errors import SketchpadError
from sketchpad.faults import OneWrongStepper, wrong_steps
from sketchpad.reference import reference_step
from sketchpad.solve import solve
from sketchpad.symbols import OPS, View
from sketchpad.views import EXPORT_PATH

OUT = EXPORT_PATH


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
    seen: dict[View, list] = {}
    items = list(corpus())
    if progress:
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
    try:
        return solve(expr, stepper, parallel=False).value
    except SketchpadError as e:
        return f"{type(e).__name__}: {e}"


def decisive_wrong_step(view: View, expr: str):
    """The first wrong step on `view` that changes the outcome of `expr`'s run, or None."""
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


def export_text(views: dict[View, str]) -> str:
    """The export's bytes: one compact JSON object a line (view, reference step, witness)."""
    return "\n".join(export_lines(views)) + "\n"


def files(progress: bool = False) -> dict[Path, str]:
    return {OUT: export_text(enumerate_views(progress=progress))}
