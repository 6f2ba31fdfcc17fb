"""The derive jobs, in the order they run: later jobs read earlier outputs (golden and the Lean
tables read sketchpad/data/views.jsonl, the Lean golden theorems read web/golden/)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import expr_vectors, golden, js_constants, lean, views

ROOT = Path(__file__).resolve().parents[1]


def _none(made: dict) -> list[Path]:
    return []


@dataclass(frozen=True)
class Job:
    name: str
    what: str
    files: Callable[[], dict[Path, str]]  # every file the job writes: path -> text
    extras: Callable[[dict], list[Path]] = field(default=_none)  # files on disk it no longer writes


JOBS = [
    Job("views", "sketchpad/data/views.jsonl: the view set V with a witness per view", views.files),
    Job("golden", "web/golden/ traces: the Python runtime's record, replayed by JS", golden.files, golden.extras),
    Job("expr-vectors", "web/golden/expr-vectors.json: the parsers' shared vectors", expr_vectors.files),
    Job("js", "web/generated/*.json: constants and the certificate rule for JS", js_constants.files),
] + [
    Job(name, f"lean/Sketchpad/*.lean: job {name[5:]} of derive/lean.py", make, extras)
    for name, make, extras in lean.jobs()
]
