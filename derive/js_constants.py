"""What the JavaScript side needs from Python, generated, never retyped.

    python -m derive js            # writes web/generated/*.json
    python -m derive --check js    # exit 1 if a committed file is stale (tests/test_derived.py runs it)

constants.json         the alphabets, operations, scan families, speculation states, size limits and
                       refusal messages (sketchpad/symbols.py, runtime.py, procedures.py, expr.py, solve.py)
certificate-rule.json  the certificate rule's constants (sketchpad/certify/policy.py): one rule,
                       applied by the page (web/certify/policy.js) and by Python alike
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from sketchpad import symbols as S
from sketchpad.certify.policy import rule_json
from sketchpad.expr import EDGE_SPACE, FORBIDDEN, FUNCTIONS, MAX_NESTING, Limits
from sketchpad.procedures import ADD2_DIGITS, DQ_STATES
from sketchpad.runtime import FAMILIES, MUL_CARRIES
from sketchpad.solve import QUADRATIC_OPS
from sketchpad.web import ROOT as WEB_ROOT

OUT = WEB_ROOT / "generated"


def constants() -> dict:
    limits = dataclasses.asdict(Limits())
    camel = {k: "".join(w.capitalize() if i else w for i, w in enumerate(k.split("_"))) for k in limits}
    return {
        "format": "sketchpad-constants/1",
        "symbols": {
            "BLANK": S.BLANK,
            "DIGITS": S.DIGITS,
            "PLUS": S.PLUS,
            "MINUS": S.MINUS,
            "LT": S.LT,
            "EQ": S.EQ,
            "GT": S.GT,
            "ZERO_FLAG": S.ZERO_FLAG,
            "NONZERO_FLAG": S.NONZERO_FLAG,
        },
        "cell_symbols": list(S.CELL_SYMBOLS),
        "ops": {
            name: getattr(S, name)
            for name in (
                "ADD",
                "SUB",
                "CMP_EQ",
                "CMP_LT",
                "CMP_GT",
                "MUL",
                "ZT",
                "INC",
                "ADD2",
                "DQ",
                "ODD",
                "NEG",
                "ABS",
                "SGN_ADD",
                "SGN_SUB",
                "SGN_MUL",
                "SGN_DIV",
            )
        },
        "op_order": list(S.OPS),
        "scan_ops": sorted(S.SCAN_OPS, key=S.OPS.index),
        "control": {name: getattr(S, name) for name in ("HALT", "CMP", "SWAP", "ADJ")},
        "next_words": list(S.NEXT_WORDS),  # a step's next word by code (sketchpad/codes.py)
        "families": {op: [list(s) for s in states] for op, states in FAMILIES.items()},
        "mul_carries": {d: list(cs) for d, cs in MUL_CARRIES.items()},
        "dq_states": [list(s) for s in DQ_STATES],
        "add2_digits": list(ADD2_DIGITS),
        "limits": {camel[k]: v for k, v in limits.items()},
        "functions": dict(FUNCTIONS),
        "quadratic_ops": list(QUADRATIC_OPS),
        "forbidden_operators": dict(FORBIDDEN),
        "expression": {"max_nesting": MAX_NESTING, "edge_space": EDGE_SPACE},
    }


def files() -> dict[Path, str]:
    return {
        OUT / name: json.dumps(data, indent=1, sort_keys=True) + "\n"
        for name, data in (("constants.json", constants()), ("certificate-rule.json", rule_json()))
    }
