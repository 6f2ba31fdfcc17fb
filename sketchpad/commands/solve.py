"""`sketchpad solve "EXPR"`: evaluate an integer expression on the sheet."""

from __future__ import annotations

import argparse
import json
import re
import sys

from ..api import solve
from ..errors import InputError
from ..expr import ExprError, Limits, caret_lines, parse
from . import add_stepper_arguments, stepper_from

LIMITS_HELP = """\
size limits (bad input beyond them: one line, exit 2):
  any number, operand, intermediate or result: 20,000 digits (--max-digits)
  operands of *: 8,000 digits; of // and %: 3,000; of sqrt: 3,000; of gcd: 2,000
  (what the shipped model solves within 60 s and 4 GB on a 2-core build machine:
  benchmarks/bench_long.py --limits, docs/long.md)
"""


def register(sub):
    p = sub.add_parser(
        "solve",
        help="evaluate an integer expression on the sheet",
        epilog=LIMITS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("expr", help='the expression, e.g. "12345 * -678 + gcd(84, 36)"; "-" reads standard input')
    add_stepper_arguments(p)
    p.add_argument(
        "--sequential", action="store_true", help="one view per forward pass (default: carry-select parallel batches)"
    )
    p.add_argument("--json", action="store_true", help="print result and counters as JSON")
    p.add_argument(
        "--sheet",
        metavar="OUT.png",
        help="draw the whole sheet to a PNG file (a sheet over 60 million pixels keeps every block's operands "
        "and results and the last rows that fit, and says on stderr what it left out)",
    )
    p.add_argument("--trace", action="store_true", help="print every view and step")
    p.add_argument("--max-digits", type=int, default=None, help="size limit for any number (default 20,000)")
    # An expression may start with '-' ("-7//2", "-sqrt(4)"): argparse takes only a plain
    # negative number for a value and has no public switch, so this parser's test is widened
    # to anything that starts with one '-' (options here all start with '--'; "--" still works).
    p._negative_number_matcher = re.compile(r"^-[^-]")
    p.set_defaults(func=run)


def run(args) -> int:
    expr = (sys.stdin.read() if args.expr == "-" else args.expr).strip()
    if args.max_digits is not None:
        if args.max_digits < 1:
            raise InputError("--max-digits must be positive")
        limits = Limits(max_digits=args.max_digits)
    else:
        limits = Limits()
    try:
        parse(expr, limits)  # bad input fails here, before any model is loaded
    except ExprError as e:
        if str(e).startswith("syntax error at column"):  # the text and a caret above the message
            print(caret_lines(expr, e.column), file=sys.stderr)
        raise
    sol = solve(expr, stepper_from(args), parallel=not args.sequential, trace=args.trace, limits=limits)
    if args.trace:
        for k, batch in enumerate(sol.trace):
            for v, s in batch:
                print(f"batch {k:6d}  {v.op:5} {v.a}{v.b}{v.c}  ->  {s.sym}{s.flag} {s.next}")
    if args.sheet:
        from ..render import render_png  # lazy: Pillow loads only for --png

        try:
            left_out = render_png(sol.worksheet, args.sheet, highlight=sol.last_where)
        except (OSError, ValueError) as e:
            raise InputError(
                f"cannot write the sheet to {args.sheet!r}: {e.strerror if isinstance(e, OSError) else e}"
            ) from None
        if left_out:
            print(f"sketchpad: --sheet {args.sheet}: {left_out}", file=sys.stderr)
    if args.json:
        print(json.dumps(sol.as_dict()))
    else:
        print(sol.as_dict()["result"])
    return 0
