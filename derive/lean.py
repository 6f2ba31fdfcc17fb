"""The Lean generators (lean/gen_table.py and lean/leangen/, which stay beside the Lean project
they write): each of their jobs, run here as one job of `python -m derive`.

lean/gen_table.py is loaded by path, as the Lean tests load it (lean/ is not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

GEN_TABLE = Path(__file__).resolve().parents[1] / "lean" / "gen_table.py"


def _gen_table():
    mod = sys.modules.get("gen_table")
    if mod is None or Path(mod.__file__).resolve() != GEN_TABLE:
        spec = importlib.util.spec_from_file_location("gen_table", GEN_TABLE)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sys.modules["gen_table"] = mod
    return mod


def jobs() -> list[tuple[str, object, object]]:
    """(name, files: () -> {path: text}, extras: made -> [stale path]) for each Lean job."""
    return [(f"lean-{name.replace('_', '-')}", make, extras) for name, make, extras in _gen_table().JOBS]
