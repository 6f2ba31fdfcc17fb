"""One home per fact (issue 24): each piece below is defined once, and a second copy fails here.
Cheap source checks: they read the files, they do not run them."""

import re
from dataclasses import fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    p for d in ("sketchpad", "certify", "export", "web", "benchmarks", "scripts") for p in (ROOT / d).rglob("*.py")
]


def _grep(pattern: str) -> list[str]:
    rx = re.compile(pattern, re.M)
    return sorted(str(p.relative_to(ROOT)) for p in SOURCES if rx.search(p.read_text()))


def test_one_digest_helper():
    assert _grep(r"^\s*def sha256_file\b") == ["sketchpad/digest.py"]
    assert _grep(r"^\s*def sha256_bytes\b") == ["sketchpad/digest.py"]
    assert _grep(r"hashlib\.sha256\([^)]*read_bytes\(\)") == []  # a file's digest is sha256_file


def test_one_dispatch_table():
    """solve() and arith.Arithmetic start operations through solve.OPERATIONS and solve.start;
    no other module names a procedure by its sheet title or imports a private helper."""
    import importlib

    from sketchpad import arith

    solve = importlib.import_module("sketchpad.solve")  # the module (sketchpad.solve is the function)
    assert set(arith.OPS) == set(solve.OPERATIONS) - {"%"}
    assert _grep(r'"signed_divmod"') == ["sketchpad/solve.py"]
    assert _grep(r"from \.+solve import [^\n]*\b_\w") == []
    assert _grep(r"^\s*def _check\(limits") == []


def test_one_machine_description():
    assert _grep(r"/proc/cpuinfo") == ["sketchpad/model/environment.py"]
    assert _grep(r"platform\.machine\(\)") == ["sketchpad/model/environment.py"]


def test_one_lora_configuration():
    """The rank (and alpha, targets) live in AdapterConfig: the command's default, the trainer
    and new_adapter read it there."""
    from sketchpad.cli import build_parser
    from sketchpad.model.adapter_config import AdapterConfig

    assert [f.name for f in fields(AdapterConfig)] == ["rank", "alpha", "targets"]
    assert _grep(r"rank: int = \d") == ["sketchpad/model/adapter_config.py"]
    assert _grep(r"LoraConfig\(") == ["sketchpad/model/adapter_config.py"]
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    rank = next(a for a in sub.choices["train"]._actions if a.dest == "rank")
    assert rank.default == AdapterConfig.rank


def test_serve_flags_are_not_hand_copied():
    text = (ROOT / "sketchpad" / "commands" / "serve.py").read_text()
    for flag in ("--workers", "--queue", "--timeout", "--max-forward-passes", "--max-batch-rows"):
        assert f'"{flag}"' not in text, flag  # generated from Capacity's fields


def test_one_stepper_choice():
    """steppers.get chooses the model; everything else is the core's as_stepper (the one copy of
    the 'reference' branch, in solve.py)."""
    assert _grep(r'== "reference":\s*\n\s*return ReferenceStepper\(\)') == ["sketchpad/solve.py"]
    assert _grep(r"^\s*def as_stepper\b") == ["sketchpad/solve.py"]


def test_every_hand_written_source_file_is_at_most_500_lines():
    """Small files with one job each: no hand-written .py or .js over 500 lines (generated code,
    vendored files and golden data are exempt)."""
    import subprocess

    listed = subprocess.run(["git", "ls-files", "*.py", "*.js"], cwd=ROOT, capture_output=True, text=True)
    files = listed.stdout.split() if listed.returncode == 0 else [str(p.relative_to(ROOT)) for p in SOURCES]
    exempt = re.compile(r"^(web/vendor|web/generated|web/golden|node_modules|tests/data)/|/generated/")
    long = []
    for f in files:
        if exempt.search(f) or not (ROOT / f).is_file():
            continue
        n = len((ROOT / f).read_text(errors="replace").splitlines())
        if n > 500:
            long.append(f"{f} ({n} lines)")
    assert long == [], f"split these by concern: {long}"
