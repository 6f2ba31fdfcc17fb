"""Names that say what they hold: no two classes of the package share a name, and every
JavaScript runtime file of the page is named after the Python module it ports."""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sketchpad", "certify", "export")  # certify/ and export/ install as sketchpad.*


def _classes() -> dict[str, list[str]]:
    where = defaultdict(list)
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ClassDef):
                    where[node.name].append(str(path.relative_to(ROOT)))
    return where


def test_no_two_classes_share_a_name():
    twice = {name: files for name, files in _classes().items() if len(files) > 1}
    assert not twice, f"class names used more than once: {twice}"


def test_the_check_sees_a_duplicate(tmp_path, monkeypatch):
    # Fault injection: the same scan over a tree with two classes of one name finds them.
    (tmp_path / "sketchpad").mkdir()
    for name in ("a", "b"):
        (tmp_path / "sketchpad" / f"{name}.py").write_text("class Result:\n    pass\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGES", ("sketchpad",))
    assert _classes()["Result"] == ["sketchpad/a.py", "sketchpad/b.py"]


def test_js_runtime_files_mirror_python_modules():
    ports = ("symbols", "reference", "sheet", "runtime", "procedures", "solve", "expr", "errors")
    for name in ports:
        assert (ROOT / "sketchpad" / f"{name}.py").is_file(), name
        assert (ROOT / "web" / f"{name}.js").is_file(), name
