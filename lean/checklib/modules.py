"""The project's modules: where they are, their imports, their order, and the escape-hatch scan."""

from __future__ import annotations

import re
from pathlib import Path

from .common import IMPORT_RE, ROOT_MODULE


def module_path(src_root: Path, mod: str) -> Path:
    return src_root / (mod.replace(".", "/") + ".lean")


def imports_of(path: Path) -> list[str]:
    out = []
    for line in path.read_text().splitlines():
        m = IMPORT_RE.match(line)
        if m:
            out.append(m.group(1))
    return out


def module_order(src_root: Path, root: str) -> tuple[list[str], dict[str, list[str]]]:
    """The project modules reachable from `root`, dependencies first (a topological order)."""
    deps: dict[str, list[str]] = {}
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(mod: str, stack: list[str]) -> None:
        if state.get(mod) == 2:
            return
        if state.get(mod) == 1:
            raise SystemExit("lean/check: import cycle: " + " -> ".join(stack + [mod]))
        state[mod] = 1
        path = module_path(src_root, mod)
        if not path.exists():
            raise SystemExit(f"lean/check: module {mod} not found at {path}")
        deps[mod] = [d for d in imports_of(path) if d.split(".")[0] == ROOT_MODULE]
        for d in deps[mod]:
            visit(d, stack + [mod])
        state[mod] = 2
        order.append(mod)

    visit(root, [])
    return order, deps


# What no source may contain: each would let a "proof" pass without the kernel checking it, or
# run code that could change what the kernel sees.  (`#eval` only in Axioms.lean, which reports.)
ESCAPE_HATCHES = [
    (re.compile(r"\bsorry\b"), "sorry"),
    (re.compile(r"\badmit\b"), "admit"),
    (re.compile(r"native_decide"), "native_decide"),
    (
        re.compile(r"(?m)^[ \t]*(?:@\[[^\]]*\][ \t]*)?(?:(?:private|protected|noncomputable|public)[ \t]+)*axiom\s"),
        "axiom",
    ),
    (re.compile(r"set_option\s+(?:debug\.|trust\b|kernel\.)"), "set_option debug/trust/kernel"),
    (re.compile(r"\bunsafe\b"), "unsafe"),
    (re.compile(r"\bimplemented_by\b"), "implemented_by"),
    (re.compile(r"\bextern\b"), "extern"),
    (
        re.compile(
            r"(?m)^[ \t]*(?:@\[[^\]]*\][ \t]*)?(?:(?:private|protected|public|local|scoped)[ \t]+)*"
            r"(?:syntax|macro|macro_rules|elab|elab_rules|declare_syntax_cat|notation|infixl?|infixr|prefix|postfix)\b"
        ),
        "custom syntax, macro or elaborator",
    ),
]
EVAL_RE = re.compile(r"(?m)^[ \t]*(?:open\s+[\w.]+\s+in\s+)?#eval\b|\brun_cmd\b|\brun_elab\b|\brun_meta\b|\brun_tac\b")
EVAL_ALLOWED = ("Axioms.lean",)


def strip_comments(text: str) -> str:
    """The source without comments (block comments nest in Lean) and string literals."""
    out, i, depth, n = [], 0, 0, len(text)
    while i < n:
        if text.startswith("/-", i):
            depth += 1
            i += 2
        elif depth and text.startswith("-/", i):
            depth -= 1
            i += 2
        elif depth:
            out.append("\n" if text[i] == "\n" else " ")
            i += 1
        elif text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def escape_hatches(path: Path) -> list[str]:
    """`file:line: what` for every escape hatch in one source file."""
    text = strip_comments(path.read_text())
    found = []
    checks = list(ESCAPE_HATCHES)
    if path.name not in EVAL_ALLOWED:
        checks.append((EVAL_RE, "#eval / run_cmd (allowed only in Axioms.lean)"))
    for pattern, what in checks:
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{path}:{line}: {what}")
    return found


def scan(src_root: Path) -> list[str]:
    """Every escape hatch under a project directory."""
    found = []
    for path in sorted(src_root.rglob("*.lean")):
        if ".lake" not in path.parts:
            found += escape_hatches(path)
    return found
