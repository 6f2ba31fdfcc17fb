"""`sketchpad views`: the view set V, its count per operation, and its JSONL export.

V is read from the committed export; enumerating it afresh is a developer tool of the checkout
(`python -m derive views`, derive/views.py), not part of the installed package."""

from __future__ import annotations

import json
import shutil

from .. import views


def register(sub):
    p = sub.add_parser("views", help="count (and export) the view set V")
    p.add_argument("--export", metavar="FILE.jsonl", help="write one line per view: view, reference step, witness")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    vs = sorted(views.view_set(), key=lambda v: v)
    if args.export:
        shutil.copyfile(views.EXPORT_PATH, args.export)
    counts = views.counts_by_op(vs)
    if args.json:
        print(
            json.dumps(
                {
                    "views": len(vs),
                    "by_operation": counts,
                    "sha256": views.file_sha256(args.export) if args.export else views.file_sha256(),
                }
            )
        )
    else:
        print(f"{len(vs)} views")
        for op, n in counts.items():
            print(f"  {op:5} {n}")
        if args.export:
            print(f"wrote {args.export}")
    return 0
