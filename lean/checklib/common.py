"""Shared constants and small helpers of the Lean check (lean/check.py)."""

from __future__ import annotations

import re
from pathlib import Path

LEAN_DIR = Path(__file__).resolve().parent.parent
CHECKER_DIR = LEAN_DIR / "checker"
ROOT_MODULE = "Sketchpad"
AXIOMS_MODULE = "Sketchpad.Axioms"
ALLOWED_AXIOMS = ("propext", "Classical.choice", "Quot.sound")
# Axioms declared in Lean's own library besides the three above.  A main theorem that reaches
# one of these fails the check (`sorryAx`: sorry; `Lean.ofReduceBool`/`ofReduceNat`: native_decide;
# `Lean.trustCompiler`: trusts compiled code).
KNOWN_BAD_AXIOMS = ("sorryAx", "Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler")
# Modules of Lean's own library.  The checker ships only the exported part of their .olean
# files, where theorems (and unexposed definitions) have no body: the traversal stops there.
LIBRARY_ROOTS = ("Init", "Std", "Lean")
LEAN_VERSION = "4.28.0-pre"
LEAN_COMMIT = "38f3c0c45b8df6da2652faff6dcaa15afb5a6981"
NODE_VERSION = "v26.12.1"
GLUE_ANCHOR = "newSymIndex=Object.keys(lib.exports).indexOf(symbol);"
GLUE_REPLACEMENT = "newSymIndex=__spKeyIndex(lib.exports,symbol);"
GLUE_HELPER = (
    "var __spKeyCache=new WeakMap;function __spKeyIndex(obj,sym){"
    "if(!Object.prototype.propertyIsEnumerable.call(obj,sym))return -1;"
    "var m=__spKeyCache.get(obj);"
    "if(m===undefined||!m.has(sym)){m=new Map;var ks=Object.keys(obj);"
    "for(var i=0;i<ks.length;i++)m.set(ks[i],i);__spKeyCache.set(obj,m)}"
    "return m.get(sym)}"
)
IMPORT_RE = re.compile(r"^\s*(?:public\s+)?(?:meta\s+)?import\s+(?:all\s+)?([A-Za-z_][\w.]*)\s*$")
SORRY_RE = re.compile(r"declaration uses .sorry.")  # `sorry` in 4.28, 'sorry' before
MSG_RE = re.compile(r"^(?P<file>[^\s:][^:]*\.lean):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info)")
AXIOM_LINE_RE = re.compile(r"^AXIOMS (?P<thm>\S+): ?(?P<rest>.*)$")
STATEMENT_LINE_RE = re.compile(r"^STATEMENT (?P<thm>\S+): (?P<text>.*)$")
STATEMENTS_FILE = LEAN_DIR / "statements.expected"


def log(msg: str = "") -> None:
    print(msg, flush=True)


def human_bytes(n: int) -> str:
    return f"{n / 2**30:.2f} GiB"
