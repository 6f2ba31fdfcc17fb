"""The tokenizer as a table the browser can apply without Python.

The model's tokenizer maps a view to a fixed-length list of token ids.  Rather than port it to
JavaScript by hand, we probe it: start from one view, change one field (op, a, b, c) at a time
and record which positions change to which ids.  The result is a template plus, per field, the
positions it owns and the ids each symbol puts there.  The table is then checked against the
tokenizer on every view of the whole product space (every op x every cell symbol^3), so a
tokenizer that is not position-wise is refused at export time instead of mis-encoding later.
"""

from __future__ import annotations

import itertools

from sketchpad.symbols import CELL_SYMBOLS, OPS, View

FIELDS = ("op", "a", "b", "c")


def _alphabet(field: str):
    return OPS if field == "op" else CELL_SYMBOLS


def probe(encode) -> dict:
    base = View(OPS[0], *([CELL_SYMBOLS[0]] * 3))
    template = [int(t) for t in encode(base)]
    fields = {}
    owned: set[int] = set()
    for f in FIELDS:
        ids_by_sym = {}
        positions: set[int] = set()
        for sym in _alphabet(f):
            ids = [int(t) for t in encode(base._replace(**{f: sym}))]
            if len(ids) != len(template):
                raise ValueError("the tokenizer is not fixed-length: the browser table cannot describe it")
            ids_by_sym[sym] = ids
            positions |= {i for i, (x, y) in enumerate(zip(ids, template)) if x != y}
        if positions & owned:
            raise ValueError(f"field {f!r} shares token positions with another field")
        owned |= positions
        pos = sorted(positions)
        fields[f] = {"positions": pos, "ids": {s: [ids[p] for p in pos] for s, ids in ids_by_sym.items()}}
    table = {"length": len(template), "template": template, "fields": fields}
    check(table, encode)
    return table


def apply(table: dict, view: View) -> list[int]:
    """What web/onnx_stepper.js does, in Python (used to check the table)."""
    ids = list(table["template"])
    for f, sym in zip(FIELDS, view):
        spec = table["fields"][f]
        for p, t in zip(spec["positions"], spec["ids"][sym]):
            ids[p] = t
    return ids


def check(table: dict, encode) -> int:
    n = 0
    for op in OPS:
        for a, b, c in itertools.product(CELL_SYMBOLS, repeat=3):
            v = View(op, a, b, c)
            if apply(table, v) != [int(t) for t in encode(v)]:
                raise ValueError(f"the tokenizer is not position-wise: the table mis-encodes {v.key()}")
            n += 1
    return n
