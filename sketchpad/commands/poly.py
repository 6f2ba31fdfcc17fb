"""`sketchpad poly expand|factor|solve "EXPR"`: the symbolic runtime on the command line."""

from __future__ import annotations

import json
import sys

from ..errors import InputError, SketchpadError
from . import add_stepper_arguments, stepper_from


def register(sub):
    p = sub.add_parser("poly", help="expand, factor or solve a polynomial (every number computed on the sheet)")
    p.add_argument("action", choices=("expand", "factor", "solve"), help="what to do")
    p.add_argument(
        "expr",
        help='the polynomial, e.g. "(x+1)^3 - 2*x*(x-4)" or "3x^2 - 12"; '
        'solve also takes "LHS = RHS"; "-" reads standard input; '
        'put an expression that starts with "-" after "--"',
    )
    add_stepper_arguments(p)
    p.add_argument("--json", action="store_true", help="print the result and counters as JSON")
    p.add_argument(
        "--audit",
        action="store_true",
        help="also list every arithmetic operation: op, operands, result, forward passes",
    )
    p.add_argument("--max-degree", type=int, default=200, help="largest degree allowed (default 200)")
    p.add_argument(
        "--digits",
        type=int,
        default=None,
        help="solve: decimal digits of every real root, each proven in an interval of width 10^-N (default 15)",
    )
    p.add_argument(
        "--max-operations",
        type=int,
        default=None,
        help="the budget of arithmetic operations of one call (default 200,000); raise it for big problems",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from .. import symbolic  # lazy: cold path, the symbolic package (30 modules) loads only for `sketchpad poly`

    expr = sys.stdin.read().strip() if args.expr == "-" else args.expr
    if args.max_degree < 1:
        raise InputError("--max-degree must be positive")
    options = {"max_degree": args.max_degree}
    if args.max_operations is not None:
        if args.max_operations < 1:
            raise InputError("--max-operations must be positive")
        options["max_operations"] = args.max_operations
    if args.digits is not None:
        if args.action != "solve":
            raise InputError("--digits applies to poly solve only")
        if args.digits < 0:
            raise InputError("--digits must be 0 or more")
        options["digits"] = args.digits
    # Bad input fails here, before any model is loaded: the reference stepper reads it first.
    (symbolic.parse_equation if args.action == "solve" else symbolic.parse_poly)(
        symbolic.Context("reference", max_degree=args.max_degree), expr
    )
    stepper = stepper_from(args)  # the same stepper choice as `sketchpad solve`
    try:
        result = getattr(symbolic, args.action)(expr, stepper, **options)
    except SketchpadError:
        raise  # bad input (2) or a stepper fault (3): the CLI prints its one line
    except Exception as e:  # an internal fault: one line and exit 2, never a traceback
        print(f"sketchpad: internal error in poly {args.action}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.as_dict(audit=args.audit)))
        return 0
    print(result)
    if args.audit:
        for e in result.audit:
            if e["op"] == "literal":
                print(f"  literal {e['result']:>12}   ({e['why']})")
            else:
                print(
                    f"  {e['op']:>7} {' '.join(map(str, e['operands']))} -> {_flat(e['result'])}"
                    f"   [{e['forward_passes']} passes]"
                )
    c = result.counters()
    print(
        f"{c['operations']} operations, {c['forward_passes']} forward passes, {c['batches']} batches, "
        f"{c['seconds']:.3f} s, stepper {c['stepper']}",
        file=sys.stderr,
    )
    return 0


def _flat(v) -> str:
    return ", ".join(v) if isinstance(v, list) else v
