"""What the JavaScript side needs from Python, generated, never retyped.

    python -m sketchpad.generate_js            # writes web/generated/*.json
    python -m sketchpad.generate_js --check    # exit 1 if a committed file is stale (tests run it)

constants.json         the alphabets, operations, scan families, speculation states, size limits and
                       refusal messages (sketchpad/symbols.py, runtime.py, procedures.py, expr.py, solve.py)
certificate-rule.json  the certificate rule's constants (sketchpad/certify/policy.py): one rule,
                       applied by the page (web/certify/policy.js) and by Python alike
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from . import symbols as S
from .web import ROOT as WEB_ROOT

OUT = WEB_ROOT / "generated"


def constants() -> dict:
    from .expr import EDGE_SPACE, FORBIDDEN, FUNCTIONS, MAX_NESTING, Limits
    from .procedures import ADD2_DIGITS, DQ_STATES
    from .runtime import FAMILIES, MUL_CARRIES
    from .solve import QUADRATIC_OPS

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


def files() -> dict[str, str]:
    from .certify.policy import rule_json

    return {
        name: json.dumps(data, indent=1, sort_keys=True) + "\n"
        for name, data in (("constants.json", constants()), ("certificate-rule.json", rule_json()))
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sketchpad.generate_js", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the committed files are current")
    args = ap.parse_args(argv)
    stale = []
    for name, text in files().items():
        path = OUT / name
        if args.check:
            if not path.is_file() or path.read_text() != text:
                stale.append(str(path))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print(f"stale: {', '.join(stale)} (run python -m sketchpad.generate_js)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
