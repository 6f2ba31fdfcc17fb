"""The shape-moving operator handlers of the row-independence check (certify/rows.py): transpose,
reshape, expand, slice, concatenate, pad, and the operators that compute shapes and constants.
web/certify/rows_shapes.js is this file in JavaScript, handler for handler.  See rows_ops.py for
what a handler sees and returns.
"""

from __future__ import annotations

from .rows_ops import HUGE, bdim, first_rows, kind_of, known_ints, norm_axis, prod, rank, safe, with_batch


def transpose(n, ins, spec):
    x = ins[0]
    r = rank(n, x)
    perm = n.attr("perm", None, "ints")
    perm = list(range(r))[::-1] if perm is None else list(perm)
    if sorted(perm) != list(range(r)):
        n.refuse("rows-format", f"has perm {perm}, not a permutation of {r} axes")
    shape = [x.shape[p] for p in perm]
    value = x.value if x.kind != "rows" and r <= 1 else None
    return [n.out(x.kind, shape, perm.index(x.axis) if x.kind == "rows" else None, x.mult, value)]


def unsqueeze(n, ins, spec):
    x = ins[0]
    r = rank(n, x)
    axes = known_ints(n, ins[1], "its axes", "rows-format")
    out_r = r + len(axes)
    axes = [norm_axis(n, a, out_r) for a in axes]
    if len(set(axes)) != len(axes):
        n.refuse("rows-format", "names an axis twice")
    it = iter(range(r))
    src = [None if k in axes else next(it) for k in range(out_r)]
    shape = [1 if s is None else x.shape[s] for s in src]
    axis = src.index(x.axis) if x.kind == "rows" else None
    return [n.out(x.kind, shape, axis, x.mult, x.value if x.kind != "rows" else None)]


def squeeze(n, ins, spec):
    x = ins[0]
    if len(ins) < 2 or ins[1] is None:
        if x.kind == "rows":
            n.refuse("rows-unknown", "drops every axis of size 1, the batch axis too when a batch has one row")
        if x.shape is None or any(d is None for d in x.shape):
            return [n.out(x.kind, None, value=x.value)]
        return [n.out(x.kind, [d for d in x.shape if d != 1], value=x.value)]
    r = rank(n, x)
    axes = {norm_axis(n, a, r) for a in known_ints(n, ins[1], "its axes", "rows-format")}
    if x.kind == "rows" and x.axis in axes:
        n.refuse("rows-mix", "squeezes the batch axis, which has one entry only when a batch has one row")
    if any(isinstance(x.shape[a], int) and x.shape[a] != 1 for a in axes):
        n.refuse("rows-format", "squeezes an axis that is not of size 1")
    keep = [k for k in range(r) if k not in axes]
    axis = keep.index(x.axis) if x.kind == "rows" else None
    return [n.out(x.kind, [x.shape[k] for k in keep], axis, x.mult, x.value if x.kind != "rows" else None)]


def reshape(n, ins, spec):
    x, t = ins[0], ins[1]
    target = t.value
    if target is None:
        n.refuse("rows-shape" if t.kind == "dep" else "rows-unknown", "reshapes to a shape the check cannot work out")
    if not n.attr("allowzero", 0):  # a 0 copies the input's dimension
        target = [_copied(n, x, k) if v == 0 else v for k, v in enumerate(target)]
    if x.kind != "rows":
        return [_reshape_plain(n, x, t, target)]
    if None in target:
        n.refuse("rows-shape" if t.kind == "dep" else "rows-unknown", "reshapes to a shape the check cannot work out")
    if 0 in target or any(isinstance(v, int) and v < -1 for v in target):
        n.refuse("rows-format", f"reshapes to {target}")
    before, after = prod(x.shape[: x.axis]), prod(x.shape[x.axis + 1 :])
    if before is None or after is None:
        n.refuse("rows-unknown", "reshapes a tensor whose dimensions the check does not know")
    size = prod([before, x.mult, after])  # entries per row, times the dims before the batch axis
    if size is None:
        n.refuse("rows-unknown", "reshapes a tensor too large for the check")
    if target.count("B") > 1:
        n.refuse("rows-shape", "puts the batch size into more than one dimension")
    if target.count(-1) > 1:
        n.refuse("rows-format", f"reshapes to {target}")
    if "B" in target:
        j = target.index("B")
        if -1 in target:
            q = target.index(-1)
            rest = prod([v for k, v in enumerate(target) if k not in (j, q)])
            if size % rest:
                n.refuse("rows-mix", f"reshapes {size} entries per row into {target}")
            target[q] = size // rest
        mult = 1
    elif -1 in target:
        j = target.index(-1)
        rest = prod([v for k, v in enumerate(target) if k != j])
        if size % rest:
            n.refuse("rows-mix", f"reshapes {size} entries per row into {target}")
        mult = size // rest
    else:
        n.refuse("rows-mix", f"reshapes to the fixed shape {target}, which holds a fixed number of rows")
    if prod(target[:j]) != before or prod([mult, prod(target[j + 1 :])]) != prod([x.mult, after]):
        n.refuse("rows-mix", f"reshapes {x.describe()} to {target}: the entries of one row would not stay one row")
    return [n.out("rows", with_batch(target, j), j, mult)]


def _copied(n, x, k):
    if x.shape is None or k >= len(x.shape):
        return None
    if x.kind == "rows" and k == x.axis and x.mult != 1:
        n.refuse("rows-unknown", "copies a batch axis that holds several entries per row")
    return x.shape[k]


def _reshape_plain(n, x, t, target):
    kind = "dep" if "dep" in (x.kind, t.kind) or "B" in target else x.kind
    shape = list(target)
    if -1 in shape and x.shape is not None:
        total, rest = prod(x.shape), prod([v for v in shape if v != -1])
        shape[shape.index(-1)] = total // rest if total is not None and rest else None
    shape = [v if isinstance(v, int) and v >= 0 else None for v in shape]
    return n.out(kind, shape, value=x.value)


def flatten(n, ins, spec):
    x = ins[0]
    r = rank(n, x)
    axis = norm_axis(n, n.attr("axis", 1), r, allow_end=True)
    if x.kind != "rows":
        return [n.out(x.kind, [prod(x.shape[:axis]), prod(x.shape[axis:])])]
    lo, hi = (0, axis) if x.axis < axis else (axis, r)
    if prod(x.shape[lo : x.axis]) != 1:
        n.refuse("rows-mix", "flattens the batch axis behind other axes: rows would interleave")
    mult = prod(x.shape[x.axis + 1 : hi])
    if mult is None:
        n.refuse("rows-unknown", "flattens dimensions the check does not know")
    other = prod(x.shape[axis:]) if x.axis < axis else prod(x.shape[:axis])
    j = 0 if x.axis < axis else 1
    shape = ["B", other] if j == 0 else [other, "B"]
    mult = prod([x.mult, mult])
    if mult is None:
        n.refuse("rows-unknown", "flattens a tensor too large for the check")
    return [n.out("rows", shape, j, mult)]


def expand(n, ins, spec):
    x, t = ins[0], ins[1]
    target = t.value
    if target is None or x.shape is None:
        if x.kind == "rows" or t.kind == "dep":
            n.refuse(
                "rows-shape" if t.kind == "dep" else "rows-unknown", "expands to a shape the check cannot work out"
            )
        return [n.out(kind_of([x, t]), None)]
    r = max(len(x.shape), len(target))
    xs = [1] * (r - len(x.shape)) + list(x.shape)
    ts = [1] * (r - len(target)) + list(target)
    x_axis = r - len(x.shape) + x.axis if x.kind == "rows" else None
    if ts.count("B") > 1:
        n.refuse("rows-mix", "expands to a shape with two batch axes")
    if x_axis is None and "B" in ts and (x.kind == "dep" or None in ts and t.kind == "dep"):
        return [n.out("dep", None)]
    dims = []
    for k, (d, v) in enumerate(zip(xs, ts)):
        if k == x_axis:
            if v not in (1, "B"):
                n.refuse("rows-mix", f"expands the batch axis to {v} entries")
            dims.append("B")
        elif v == "B":
            if x_axis is not None or d != 1:
                n.refuse("rows-mix", "expands a tensor along the batch axis from more than one entry")
            dims.append("B")
        elif v is None:
            if t.kind == "dep" and x.kind == "rows":
                n.refuse("rows-shape", "expands a dimension to a size computed from the batch size")
            dims.append(d if isinstance(d, int) and d != 1 else None)
        else:
            dims.append(bdim(d, v, n))
    if x_axis is not None:
        return [n.out("rows", dims, x_axis, x.mult)]
    if "B" in dims:
        if None in ts and t.kind == "dep":
            n.refuse("rows-shape", "expands a dimension to a size computed from the batch size")
        return [n.out("rows", dims, dims.index("B"), 1)]
    return [n.out(kind_of([x, t]), dims)]


def tile(n, ins, spec):
    x = ins[0]
    reps = known_ints(n, ins[1], "its repeats")
    if x.shape is None or len(reps) != len(x.shape):
        if x.kind == "rows":
            n.refuse("rows-unknown", "tiles a tensor the check cannot follow")
        return [n.out(x.kind, None)]
    if x.kind == "rows" and reps[x.axis] != 1:
        n.refuse("rows-mix", "repeats the batch axis")
    shape = ["B" if d == "B" else (safe(d * k) if isinstance(d, int) else None) for d, k in zip(x.shape, reps)]
    return [n.out(x.kind, shape, x.axis, x.mult)]


def concat(n, ins, spec):
    fs = [f for f in ins if f is not None]
    r = rank(n, fs[0])
    axis = norm_axis(n, n.attr("axis", 0), r)
    rows = first_rows(fs)
    if rows is not None:
        if any(f.kind != "rows" or f.axis != rows.axis or f.mult != rows.mult for f in fs):
            n.refuse("rows-mix", "joins batched data with data of another batch axis or none")
        if axis == rows.axis:
            n.refuse("rows-mix", "concatenates along the batch axis")
    if any(f.shape is None or len(f.shape) != r for f in fs):
        n.refuse("rows-format", "concatenates tensors of different ranks")
    size = prod([f.shape[axis] for f in fs])
    size = safe(sum(f.shape[axis] for f in fs)) if size is not None else None
    shape = list(fs[0].shape)
    shape[axis] = size
    values = None
    if rows is None and all(f.value is not None for f in fs) and r <= 1:
        values = [v for f in fs for v in f.value]
    return [
        n.out(rows.kind if rows else kind_of(fs), shape, rows.axis if rows else None, rows.mult if rows else 1, values)
    ]


def split(n, ins, spec):
    x = ins[0]
    r = rank(n, x)
    axis = norm_axis(n, n.attr("axis", 0), r)
    if x.kind == "rows" and axis == x.axis:
        n.refuse("rows-mix", "splits the batch axis")
    count = len(n.node["outputs"])
    if len(ins) > 1 and ins[1] is not None:
        sizes = known_ints(n, ins[1], "its split sizes")
        if len(sizes) != count:
            n.refuse("rows-format", "gives split sizes for another number of outputs")
    elif isinstance(x.shape[axis], int):
        d = x.shape[axis]
        parts = n.attr("num_outputs", count)
        if parts < 1:
            n.refuse("rows-format", "splits into no parts")
        each = -(-d // parts)
        sizes = [min(each, max(0, d - each * k)) for k in range(count)]
    else:
        sizes = [None] * count
    outs = []
    for s in sizes:
        shape = list(x.shape)
        shape[axis] = s
        outs.append(n.out(x.kind, shape, x.axis, x.mult))
    return outs


def slice_(n, ins, spec):
    x = ins[0]
    starts, ends = ins[1].value, ins[2].value
    r = rank(n, x) if x.kind == "rows" else (len(x.shape) if x.shape is not None else None)
    axes = known_ints(n, ins[3], "its axes", "rows-format") if len(ins) > 3 and ins[3] is not None else None
    steps = known_ints(n, ins[4], "its steps", "rows-format") if len(ins) > 4 and ins[4] is not None else None
    dep = kind_of(ins[1:3]) == "dep"
    if starts is None or ends is None or r is None:
        if x.kind == "rows":
            n.refuse("rows-shape" if dep else "rows-unknown", "slices with bounds the check cannot work out")
        return [n.out(kind_of(ins), None)]
    axes = list(range(len(starts))) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    if not len(starts) == len(ends) == len(axes) == len(steps):
        n.refuse("rows-format", "gives slice bounds of different lengths")
    shape = list(x.shape)
    values = x.value if x.kind != "rows" and r == 1 else None
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = norm_axis(n, a, r)
        if x.kind == "rows" and a == x.axis:
            whole = st == 1 and s == 0 and (e == "B" and x.mult == 1 or isinstance(e, int) and e >= HUGE)
            if not whole:
                n.refuse("rows-mix", "slices the batch axis: a row would depend on its place in the batch")
            continue
        if st == 0:
            n.refuse("rows-format", "slices with step 0")
        if not isinstance(s, int) or not isinstance(e, int):
            if x.kind == "rows" and dep:
                n.refuse("rows-shape", "slices a dimension with bounds computed from the batch size")
            shape[a], values = None, None
            continue
        d = shape[a]
        if isinstance(d, int):
            picked = slice_indices(d, s, e, st)
            shape[a] = len(picked)
            if values is not None:
                values = [values[k] for k in picked]
        else:
            values = None
    kind = "rows" if x.kind == "rows" else ("dep" if dep or x.kind == "dep" else "free")
    return [n.out(kind, shape, x.axis, x.mult, values)]


def slice_indices(d, s, e, st):
    """The indices ONNX Slice picks from an axis of d entries (its clamping rules, not Python's)."""
    s, e = s + d if s < 0 else s, e + d if e < 0 else e
    if st > 0:
        s, e = max(0, min(s, d)), max(0, min(e, d))
        return range(s, e, st)
    s, e = max(0, min(s, d - 1)), max(-1, min(e, d - 1))
    return range(s, e, st)


def pad(n, ins, spec):
    x = ins[0]
    r = rank(n, x)
    pads = known_ints(n, ins[1], "its pads")
    axes = known_ints(n, ins[3], "its axes", "rows-format") if len(ins) > 3 and ins[3] is not None else list(range(r))
    axes = [norm_axis(n, a, r) for a in axes]
    if len(pads) != 2 * len(axes):
        n.refuse("rows-format", "gives pads for another number of axes")
    shape = list(x.shape)
    for k, a in enumerate(axes):
        lo, hi = pads[k], pads[k + len(axes)]
        if x.kind == "rows" and a == x.axis:
            if lo or hi:
                n.refuse("rows-mix", "pads the batch axis")
            continue
        shape[a] = safe(shape[a] + lo + hi) if isinstance(shape[a], int) else None
    return [n.out(x.kind, shape, x.axis, x.mult)]


def shape(n, ins, spec):
    x = ins[0]
    r = rank(n, x)
    lo = norm_axis(n, max(-r, min(r, n.attr("start", 0))), r, allow_end=True)
    hi = norm_axis(n, max(-r, min(r, n.attr("end", r))), r, allow_end=True)
    if x.kind == "rows":
        dims = [("B" if x.mult == 1 else None) if k == x.axis else d for k, d in enumerate(x.shape)]
    else:
        dims = list(x.shape)
    vals = dims[lo:hi] if hi > lo else []
    kind = x.kind if x.kind != "rows" else ("dep" if lo <= x.axis < hi else "free")
    return [n.out(kind, [len(vals)], value=vals)]


def size(n, ins, spec):
    x = ins[0]
    if x.kind == "rows":
        return [n.out("dep", [], value=[None])]
    return [n.out(x.kind, [], value=[prod(x.shape) if x.shape is not None else None])]


def constant(n, ins, spec):
    attrs = n.node["attrs"]
    if "value" in attrs:
        t = n.attr("value", None, "tensor")
        return [n.out("free", list(t["dims"]), value=t["values"])]
    for name, scalar in (("value_int", True), ("value_float", True), ("value_ints", False), ("value_floats", False)):
        if name in attrs:
            v = n.attr(name, None, name[6:])
            vals = [v] if scalar else list(v)
            ints = [x if isinstance(x, int) else None for x in vals] if "int" in name else None
            return [n.out("free", [] if scalar else [len(vals)], value=ints)]
    if "value_string" in attrs:
        return [n.out("free", [])]
    if "value_strings" in attrs:
        return [n.out("free", [len(n.attr("value_strings", None, "strings"))])]
    n.refuse("rows-format", "is a Constant without a value")


def constant_of_shape(n, ins, spec):
    t = ins[0]
    dims = t.value
    if dims is None:
        return [n.out("dep" if t.kind == "dep" else "free", None)]
    if dims.count("B") > 1:
        n.refuse("rows-mix", "makes a tensor with two batch axes")
    if "B" in dims:
        if None in dims:
            n.refuse("rows-shape", "makes a tensor with a dimension computed from the batch size")
        return [n.out("rows", list(dims), dims.index("B"), 1)]
    if t.kind == "dep":
        return [n.out("dep", list(dims))]
    fill = n.attr("value", None, "tensor")
    v = fill["values"][0] if fill and fill.get("values") else (0 if fill is None else None)
    count = prod(dims)
    values = [v] * count if count is not None and count <= 4096 else None
    return [n.out("free", list(dims), value=values)]


def range_(n, ins, spec):
    if kind_of(ins) == "dep":
        return [n.out("dep", [None])]
    vals = [f.value[0] if f.value and len(f.value) == 1 else None for f in ins[:3]]
    if any(not isinstance(v, int) for v in vals) or vals[2] == 0:
        return [n.out("free", [None])]
    seq = range(vals[0], vals[1], vals[2])
    return [n.out("free", [len(seq)], value=list(seq) if len(seq) <= 4096 else None)]


HANDLERS = {
    "transpose": transpose,
    "unsqueeze": unsqueeze,
    "squeeze": squeeze,
    "reshape": reshape,
    "flatten": flatten,
    "expand": expand,
    "tile": tile,
    "concat": concat,
    "split": split,
    "slice": slice_,
    "pad": pad,
    "shape": shape,
    "size": size,
    "constant": constant,
    "constant_of_shape": constant_of_shape,
    "range": range_,
}
