"""Imports at the top of their module (issue 24): an import inside a function is allowed only with a
comment saying why, on its line or the line above (`# lazy: torch is the [train] extra`): a heavy
optional dependency, an import cycle, or a cold path that must not slow the default start.
Cheap source checks: the files are parsed with `ast`, not run."""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("sketchpad", "certify", "export", "derive", "lean", "benchmarks", "mutation", "scripts")


def _sources() -> list[Path]:
    return sorted(p for d in FOLDERS for p in (ROOT / d).rglob("*.py") if ".lake" not in p.parts)


def _why_lines(text: str) -> set[int]:
    """Line numbers holding a comment that says something (a bare `# noqa` or `# type:` pragma
    is not a reason)."""
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            words = tok.string.lstrip("#").strip()
            if words and not words.startswith(("noqa", "type:")):
                lines.add(tok.start[0])
    return lines


def _hidden_imports(path: Path) -> list[str]:
    """`path:line: import ...` for each import inside a function with no comment saying why."""
    text = path.read_text()
    why = _why_lines(text)
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom) and in_function:
                if not why & {child.lineno - 1, *range(child.lineno, child.end_lineno + 1)}:
                    rel = path.relative_to(ROOT)
                    found.append(f"{rel}:{child.lineno}: {ast.get_source_segment(text, child).splitlines()[0]}")
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(child, inner)

    visit(ast.parse(text), False)
    return found


def test_no_import_hides_inside_a_function_without_a_reason():
    hidden = [line for p in _sources() for line in _hidden_imports(p)]
    assert hidden == [], "move these to the top of the module, or say why they wait:\n" + "\n".join(hidden)


def test_the_check_sees_a_hidden_import_and_accepts_a_reason(tmp_path, monkeypatch):
    """Fault injection: a bare function-level import is reported; the same import with a reason
    (on its line or the line above) or at the top of the module is not."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    bare = tmp_path / "bare.py"
    bare.write_text("import os\n\n\ndef f():\n    import json  # noqa: F401\n    return os\n")
    assert _hidden_imports(bare) == ["bare.py:5: import json"]
    said = tmp_path / "said.py"
    said.write_text(
        "def f():\n    # lazy: a cycle with app\n    from . import app\n\n\ndef g():\n    import x  # lazy: big\n"
    )
    assert _hidden_imports(said) == []
    nested = tmp_path / "nested.py"
    nested.write_text(
        "class C:\n    def m(self):\n        def inner():\n"
        "            from a import (\n                b,\n            )\n"
    )
    assert _hidden_imports(nested) == ["nested.py:4: from a import ("]
