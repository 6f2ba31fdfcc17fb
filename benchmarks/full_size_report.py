"""benchmarks/results/full_size*.md from bench_full_size.py's JSON (kept apart: the bench runs, this writes)."""

from __future__ import annotations

import json


def write_markdown(results: dict, path) -> None:
    path.write_text("```json\n" + json.dumps(results, indent=1) + "\n```\n")
