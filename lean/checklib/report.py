"""What Sketchpad/Axioms.lean prints: each main theorem's axioms, judged, and its statement,
compared with the committed lean/statements.expected."""

from __future__ import annotations

import re
from pathlib import Path

from .common import ALLOWED_AXIOMS, AXIOM_LINE_RE, KNOWN_BAD_AXIOMS, LIBRARY_ROOTS, STATEMENT_LINE_RE


def check_axioms(lines: list[str], expected: list[str]) -> tuple[bool, list[str]]:
    """Parse the `AXIOMS name: leaf@Module:kind, …` lines printed by Sketchpad/Axioms.lean."""
    report, ok, seen = [], True, set()
    for line in lines:
        m = AXIOM_LINE_RE.match(line)
        if not m:
            continue
        thm = m.group("thm")
        seen.add(thm)
        leaves = [x for x in m.group("rest").split(", ") if x]
        axioms, library, bad = [], [], []
        for leaf in leaves:
            name, _, where = leaf.partition("@")
            mod, _, kind = where.partition(":")
            if name in ALLOWED_AXIOMS:
                axioms.append(name)
            elif name in KNOWN_BAD_AXIOMS:
                bad.append(name)
            elif mod.split(".")[0] in LIBRARY_ROOTS:
                # a constant of Lean's library whose body the checker's library does not ship
                # (its theorems, and some definitions, are opaque there): taken as given
                library.append(name)
            else:
                bad.append(f"{name} ({mod or '?'}, {kind or '?'})")
        short = thm.removeprefix("Sketchpad.")
        shown = ", ".join(sorted(set(axioms)))
        line_out = f"  {short}: [{shown}]"
        if library:
            line_out += f"  (+{len(set(library))} library constants taken as given)"
        if bad:
            ok = False
            line_out += "  FORBIDDEN: " + ", ".join(sorted(set(bad)))
        report.append(line_out)
    missing = [t for t in expected if t not in seen]
    if missing:
        ok = False
        report.append("  no axiom report for: " + ", ".join(missing))
    return ok, report


def main_theorems(axioms_file: Path) -> list[str]:
    """The names listed in Sketchpad/Axioms.lean (``Sketchpad.name`` quotations)."""
    return re.findall(r"``(Sketchpad\.\w+)", axioms_file.read_text())


def statements(lines: list[str]) -> dict[str, str]:
    """`STATEMENT name: text` lines: each main theorem's statement as text."""
    out = {}
    for line in lines:
        m = STATEMENT_LINE_RE.match(line)
        if m:
            out[m.group("thm")] = m.group("text")
    return out


def read_expected(path: Path) -> dict[str, str]:
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, _, text = line.partition(": ")
                out[name] = text
    return out


def format_expected(found: dict[str, str]) -> str:
    head = (
        "# The statement of every main theorem, as Sketchpad/Axioms.lean prints it (constants by name,\n"
        "# bound variables by de Bruijn index).  lean/check.py fails when a statement differs: a theorem\n"
        "# cannot be weakened under the same name.  After a deliberate change: bash lean/check.sh\n"
        "# --write-statements (then review the diff).\n"
    )
    return head + "".join(f"{name}: {text}\n" for name, text in found.items())


def compare_statements(found: dict[str, str], expected: dict[str, str]) -> list[str]:
    """Human-readable differences (empty when the statements are the expected ones)."""
    out = []
    for name in expected:
        if name not in found:
            out.append(f"  no statement printed for {name}")
        elif found[name] != expected[name]:
            out.append(f"  CHANGED: {name}")
    for name in found:
        if name not in expected:
            out.append(f"  NEW (not in lean/statements.expected): {name}")
    return out
