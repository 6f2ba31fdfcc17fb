"""The operator handlers of the row-independence check (certify/rows.py): for each kind of
operator in certify/rows_table.py, the facts of its outputs from the facts of its inputs, or a
refusal.  web/certify/rows_ops.js is this file in JavaScript, handler for handler.

A handler sees `n` (the node: attributes, a name for messages, `refuse`) and the input facts
(None for an omitted optional input).  Shapes are lists of dims (int, None unknown, "B" at the
batch axis of a `rows` fact); values are flat lists (int, "B" the batch size, None unknown).
"""

from __future__ import annotations

import math

HUGE = 1 << 31  # a slice end at least this large means "to the end"
MAX_SAFE = (1 << 53) - 1
FOLD = {
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mul": lambda a, b: a * b,
    "Div": lambda a, b: None if b == 0 else int(a / b),
    "Max": max,
    "Min": min,
    "Equal": lambda a, b: int(a == b),
}


class NodeView:
    def __init__(self, node, where, refuse_cls, fact_cls):
        self.node, self.where, self.op = node, where, node["op"]
        self._refuse, self.Fact = refuse_cls, fact_cls

    def attr(self, name, default=None, kind="int"):
        """An attribute's value, of the type ONNX gives it (another type is refused)."""
        a = self.node["attrs"].get(name)
        if a is None:
            return default
        if a["type"] != kind:
            self.refuse(
                "rows-format", f"has its attribute {name} as a {a['type']}, not a{'n' if kind == 'int' else ''} {kind}"
            )
        return a["value"]

    def refuse(self, code, message):
        raise self._refuse(code, f"{self.where} {message}")

    def out(self, kind, shape, axis=None, mult=1, value=None):
        return self.Fact(kind, shape, axis, mult, value)


# ---------------------------------------------------------------- helpers


def kind_of(ins) -> str:
    return "dep" if any(f is not None and f.kind == "dep" for f in ins) else "free"


def rank(n, f, what="its input"):
    if f.shape is None:
        n.refuse("rows-unknown", f"cannot tell the rank of {what}")
    return len(f.shape)


def norm_axis(n, axis, r, allow_end=False):
    top = r + 1 if allow_end else r
    if not isinstance(axis, int) or not -top <= axis < top:
        n.refuse("rows-format", f"has axis {axis} outside a tensor of rank {r}")
    return axis + top if axis < 0 else axis


def known_ints(n, f, what, code_if_dep="rows-shape"):
    """The values of a free (or settled) tensor, all known integers."""
    if f is None or f.value is None or any(not isinstance(v, int) for v in f.value):
        if f is not None and f.kind == "dep":
            n.refuse(code_if_dep, f"takes {what} from the batch size")
        n.refuse("rows-unknown", f"has {what} the check cannot work out")
    return list(f.value)


def safe(v):
    """An integer JavaScript holds exactly, or None (the page computes the same)."""
    return v if isinstance(v, int) and -MAX_SAFE <= v <= MAX_SAFE else None


def prod(dims):
    if any(not isinstance(d, int) for d in dims):
        return None
    return safe(math.prod(dims))


def bdim(a, b, n):
    """Broadcast two non-batch dims (int or None)."""
    if a is None or b is None:
        k = a if b is None else b
        return k if k is not None and k != 1 else None
    if a != b and 1 not in (a, b):
        n.refuse("rows-format", f"has shapes that do not broadcast ({a} and {b})")
    return max(a, b) if 1 in (a, b) else a


def with_batch(shape, axis):
    return [("B" if k == axis else d) for k, d in enumerate(shape)]


def first_rows(ins):
    return next((f for f in ins if f is not None and f.kind == "rows"), None)


def fold(op, values):
    fn = FOLD.get(op)
    if fn is None or any(v is None for v in values):
        return None
    size = max(len(v) for v in values)
    if any(len(v) not in (1, size) for v in values):
        return None
    out = []
    for k in range(size):
        args = [v[k if len(v) > 1 else 0] for v in values]
        if any(not isinstance(a, int) for a in args):
            out.append(None)
        else:
            out.append(safe(fn(*args)) if len(args) == 2 else None)
    return out


def unary_value(op, v):
    if v is None:
        return None
    if op in ("Identity", "Cast", "CastLike"):
        return list(v)
    if op in ("Neg", "Abs"):
        return [(-x if op == "Neg" else abs(x)) if isinstance(x, int) else None for x in v]
    return None


# ---------------------------------------------------------------- handlers


def unary(n, ins, spec):
    x = ins[0]
    return [n.out(x.kind, x.shape, x.axis, x.mult, unary_value(n.op, x.value) if x.kind != "rows" else None)]


def broadcast(n, ins, spec):
    fs = [f for f in ins if f is not None]
    rows = [f for f in fs if f.kind == "rows"]
    if not rows:
        if any(f.shape is None for f in fs):
            return [n.out(kind_of(fs), None, value=fold(n.op, [f.value for f in fs]))]
        r = max(len(f.shape) for f in fs)
        dims = [1] * r
        for f in fs:
            pad = [1] * (r - len(f.shape)) + list(f.shape)
            dims = [bdim(a, b, n) for a, b in zip(dims, pad)]
        return [n.out(kind_of(fs), dims, value=fold(n.op, [f.value for f in fs]))]
    r = max(rank(n, f) for f in fs)
    axis = r - len(rows[0].shape) + rows[0].axis
    for f in rows:
        if r - len(f.shape) + f.axis != axis or f.mult != rows[0].mult:
            n.refuse("rows-mix", "combines data of two different batch axes")
    dims = [1] * r
    for f in fs:
        pad = [1] * (r - len(f.shape)) + list(f.shape)
        if f.kind != "rows" and pad[axis] != 1:
            code = "rows-unknown" if pad[axis] is None else "rows-mix"
            n.refuse(
                code, f"spreads a tensor of {pad[axis]} entries over the batch axis: a row would depend on its place"
            )
        dims = [d if k == axis else bdim(d, p, n) for k, (d, p) in enumerate(zip(dims, pad))]
    return [n.out("rows", with_batch(dims, axis), axis, rows[0].mult)]


def matmul(n, ins, spec):
    a, b = ins[spec["a"]], ins[spec["b"]]
    for k in spec.get("scalar_inputs", ()):
        f = ins[k] if k < len(ins) else None
        if f is not None and a.kind == "rows" and (f.shape is None or prod(f.shape) != 1):
            n.refuse("rows-mix", f"scales batched rows by its input {k}, which is not one number")
    if a.kind != "rows" and b.kind != "rows":
        return [n.out(kind_of([a, b]), _matmul_shape(n, a.shape, b.shape))]
    ra, rb = rank(n, a), rank(n, b)
    sa = ([1] + list(a.shape)) if ra == 1 else list(a.shape)
    sb = (list(b.shape) + [1]) if rb == 1 else list(b.shape)
    s = max(len(sa), len(sb)) - 2
    at = []
    if a.kind == "rows":
        ax = a.axis + (1 if ra == 1 else 0)
        if ax == len(sa) - 1:
            n.refuse("rows-mix", "sums over the batch axis (the contracted dimension of its first factor)")
        at.append(s if ax == len(sa) - 2 else s - (len(sa) - 2) + ax)
    if b.kind == "rows":
        if b.axis == len(sb) - 2:
            n.refuse("rows-mix", "sums over the batch axis (the contracted dimension of its second factor)")
        at.append(s + 1 if b.axis == len(sb) - 1 else s - (len(sb) - 2) + b.axis)
    if len(at) == 2 and (at[0] != at[1] or a.mult != b.mult):
        n.refuse("rows-mix", "multiplies data of two different batch axes")
    axis = at[0]
    if axis < s:
        for f, sf in ((a, sa), (b, sb)):
            stack = [1] * (s - (len(sf) - 2)) + sf[:-2]
            if f.kind != "rows" and stack[axis] != 1:
                n.refuse("rows-mix", "multiplies each batch position by a different matrix")
    shape = _matmul_shape(n, sa, sb, keep=True)
    shape[axis] = "B"
    drop = ([s] if ra == 1 else []) + ([s + 1] if rb == 1 else [])
    axis -= sum(1 for k in drop if k < axis)
    return [
        n.out("rows", [d for k, d in enumerate(shape) if k not in drop], axis, a.mult if a.kind == "rows" else b.mult)
    ]


def _matmul_shape(n, sa, sb, keep=False):
    """numpy matmul's output shape ("B" read as 1); keep: 1-D operands stay padded to 2-D."""
    if sa is None or sb is None:
        return None
    a = [1 if d == "B" else d for d in (([1] + list(sa)) if len(sa) == 1 else sa)]
    b = [1 if d == "B" else d for d in ((list(sb) + [1]) if len(sb) == 1 else sb)]
    if len(a) < 2 or len(b) < 2:
        n.refuse("rows-format", "multiplies a scalar")
    if isinstance(a[-1], int) and isinstance(b[-2], int) and a[-1] != b[-2]:
        n.refuse("rows-format", f"multiplies matrices of inner sizes {a[-1]} and {b[-2]}")
    r = max(len(a), len(b)) - 2
    sta, stb = [1] * (r - len(a) + 2) + a[:-2], [1] * (r - len(b) + 2) + b[:-2]
    out = [bdim(x, y, n) for x, y in zip(sta, stb)] + [a[-2], b[-1]]
    if not keep:
        out = [d for k, d in enumerate(out) if not (k == r and len(sa) == 1 or k == r + 1 and len(sb) == 1)]
    return out


def gemm(n, ins, spec):
    a, b, c = ins[0], ins[1], ins[2] if len(ins) > 2 else None
    if rank(n, a) != 2 or rank(n, b) != 2:
        n.refuse("rows-format", "multiplies tensors that are not matrices")
    sa = a.shape[::-1] if n.attr("transA", 0) else a.shape
    sb = b.shape[::-1] if n.attr("transB", 0) else b.shape
    if a.kind != "rows":
        return [n.out(kind_of([a, b, c]), [sa[0], sb[1]])]
    if sa[0] != "B":
        n.refuse("rows-mix", "sums over the batch axis (it is the contracted dimension)")
    if c is not None:
        cs = [1] * (2 - rank(n, c, "its bias")) + list(c.shape)
        if cs[0] != 1:
            n.refuse("rows-mix", "adds a different bias to each batch position")
    return [n.out("rows", ["B", sb[1]], 0, a.mult)]


def reduce(n, ins, spec):
    x = ins[0]
    r = rank(n, x)
    axes = known_ints(n, ins[1], "its axes") if len(ins) > 1 and ins[1] is not None else []
    if not axes:
        if n.attr("noop_with_empty_axes", 0):
            return [n.out(x.kind, x.shape, x.axis, x.mult)]
        axes = list(range(r))
    axes = sorted({norm_axis(n, a, r) for a in axes})
    return [_reduced(n, x, axes, n.attr("keepdims", 1))]


def _reduced(n, x, axes, keep):
    if x.kind == "rows" and x.axis in axes:
        n.refuse("rows-mix", "reduces along the batch axis: every row's result would depend on the others")
    shape = (
        [1 if k in axes else d for k, d in enumerate(x.shape)]
        if keep
        else [d for k, d in enumerate(x.shape) if k not in axes]
    )
    axis = None
    if x.kind == "rows":
        axis = x.axis if keep else x.axis - sum(1 for a in axes if a < x.axis)
    return n.out(x.kind, shape, axis, x.mult)


def argreduce(n, ins, spec):
    x = ins[0]
    return [_reduced(n, x, [norm_axis(n, n.attr("axis", 0), rank(n, x))], n.attr("keepdims", 1))]


def along(n, ins, spec):
    x = ins[0]
    if "axis_input" in spec:
        vals = known_ints(n, ins[spec["axis_input"]], "its axis")
        if len(vals) != 1:
            n.refuse("rows-format", "needs one axis")
        axis = vals[0]
    else:
        axis = n.attr("axis", spec["axis"])
    axis = norm_axis(n, axis, rank(n, x))
    if x.kind == "rows" and axis == x.axis:
        n.refuse("rows-mix", "works along the batch axis: every row's result would depend on the others")
    return [n.out(x.kind, x.shape, x.axis, x.mult)]


def normalize(n, ins, spec):
    x = ins[0]
    r = rank(n, x)
    axis = norm_axis(n, n.attr("axis", spec["axis"]), r)
    if x.kind == "rows" and x.axis >= axis:
        n.refuse("rows-mix", "normalises over the batch axis: every row's result would depend on the others")
    stats = [d if k < axis else 1 for k, d in enumerate(x.shape)]
    return [n.out(x.kind, x.shape, x.axis, x.mult)] + [n.out(x.kind, stats, x.axis, x.mult)] * 2


def quantize(n, ins, spec):
    x, scale = ins[0], ins[1]
    if x.kind == "rows":
        per_axis = scale.shape is None or prod(scale.shape) != 1
        if per_axis and norm_axis(n, n.attr("axis", 1), rank(n, x)) == x.axis:
            n.refuse("rows-mix", "scales each batch position differently")
    return [n.out(x.kind, x.shape, x.axis, x.mult)]


def whole_tensor(n, ins, spec):
    x = ins[0]
    if x.kind == "rows":
        n.refuse("rows-mix", "computes one scale from the whole batch: every row's result would depend on the others")
    return [n.out(x.kind, x.shape), n.out(x.kind, []), n.out(x.kind, [])]


def gather(n, ins, spec):
    x, idx = ins[0], ins[1]
    if x.kind == "rows" and idx.kind == "rows":
        n.refuse("rows-mix", "picks entries of batched data by batched indices")
    r = rank(n, x) if x.kind == "rows" or x.shape is not None else None
    if r is None or idx.shape is None:
        if idx.kind == "rows":
            n.refuse("rows-unknown", "gathers with shapes the check does not know")
        return [n.out(kind_of(ins), None)]
    axis = norm_axis(n, n.attr("axis", 0), r)
    shape = list(x.shape[:axis]) + list(idx.shape) + list(x.shape[axis + 1 :])
    if x.kind == "rows":
        if axis == x.axis:
            n.refuse("rows-mix", "picks rows of the batch by index: a row would depend on others")
        out_axis = x.axis if x.axis < axis else x.axis - 1 + len(idx.shape)
        return [n.out("rows", shape, out_axis, x.mult)]
    if idx.kind == "rows":
        return [n.out("rows", shape, axis + idx.axis, idx.mult)]
    values = None
    if r == 1 and x.value is not None and idx.value is not None and isinstance(x.shape[0], int):
        d = x.shape[0]
        ok = all(isinstance(i, int) and -d <= i < d for i in idx.value)
        values = [x.value[i] for i in idx.value] if ok else None
    return [n.out(kind_of(ins), shape, value=values)]


def elements(n, ins, spec):
    fs = [f for f in ins if f is not None]
    rows = first_rows(fs)
    out_from = fs[1] if n.op == "GatherElements" else fs[0]
    if rows is None:
        return [n.out(kind_of(fs), out_from.shape)]
    if any(f.kind != "rows" or f.axis != rows.axis or f.mult != rows.mult for f in fs):
        n.refuse("rows-mix", "pairs batched data with data of another batch axis or none")
    if norm_axis(n, n.attr("axis", 0), rank(n, rows)) == rows.axis:
        n.refuse("rows-mix", "moves entries along the batch axis")
    return [n.out("rows", out_from.shape, out_from.axis, rows.mult)]


def _nd_depth(n, idx):
    if idx.shape is None or not idx.shape or not isinstance(idx.shape[-1], int):
        n.refuse("rows-unknown", "has indices of a shape the check does not know")
    return idx.shape[-1]


def gather_nd(n, ins, spec):
    x, idx = ins[0], ins[1]
    b = n.attr("batch_dims", 0)
    if idx.kind == "rows" or x.kind == "rows" and b:
        n.refuse("rows-mix", "picks entries of batched data by position")
    if x.shape is None or idx.shape is None:
        if x.kind == "rows":
            n.refuse("rows-unknown", "gathers with shapes the check does not know")
        return [n.out(kind_of(ins), None)]
    k = _nd_depth(n, idx)
    shape = list(idx.shape[:-1]) + list(x.shape[b + k :])
    if x.kind != "rows":
        return [n.out(kind_of(ins), shape)]
    if x.axis < k:
        n.refuse("rows-mix", "picks rows of the batch by position")
    return [n.out("rows", shape, len(idx.shape) - 1 + x.axis - k, x.mult)]


def scatter_nd(n, ins, spec):
    x, idx, upd = ins[0], ins[1], ins[2]
    if first_rows([x, idx, upd]) is None:
        return [n.out(kind_of(ins), x.shape)]
    if x.kind != "rows" or upd.kind != "rows" or idx.kind == "rows":
        n.refuse("rows-mix", "writes into batched data by position with batched indices or unbatched data")
    k = _nd_depth(n, idx)
    if x.axis < k or upd.axis != len(idx.shape) - 1 + x.axis - k or upd.mult != x.mult:
        n.refuse("rows-mix", "writes across the batch axis")
    return [n.out("rows", x.shape, x.axis, x.mult)]


def trilu(n, ins, spec):
    x = ins[0]
    if len(ins) > 1 and ins[1] is not None:
        known_ints(n, ins[1], "its diagonal")
    if x.kind == "rows" and x.axis >= rank(n, x) - 2:
        n.refuse("rows-mix", "masks a triangle that spans the batch axis: a row would depend on its place")
    return [n.out(x.kind, x.shape, x.axis, x.mult)]


HANDLERS = {
    "unary": unary,
    "broadcast": broadcast,
    "matmul": matmul,
    "gemm": gemm,
    "reduce": reduce,
    "argreduce": argreduce,
    "along": along,
    "normalize": normalize,
    "quantize": quantize,
    "whole_tensor": whole_tensor,
    "gather": gather,
    "elements": elements,
    "gather_nd": gather_nd,
    "scatter_nd": scatter_nd,
    "trilu": trilu,
}
