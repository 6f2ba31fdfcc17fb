"""The view set V: every view the runtime can present, each with a witness problem.

This module reads the committed export (the runtime, the certifier and training need V); the
enumeration that writes it is a developer tool, derive/views.py (`python -m derive views`).

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
on; tests/test_derived.py checks that it equals a fresh enumeration.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from .digest import sha256_file
from .symbols import OPS, Step, View

EXPORT_PATH = Path(__file__).parent / "data" / "views.jsonl"


def load(path: Path | None = None) -> list[dict]:
    """The committed view set: [{view: View, step: Step, witness: str}]."""
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
