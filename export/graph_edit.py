"""Two small, exact edits of a converted graph (onnx ModelProto, edited in place).

- `topological`: ONNX requires a graph's nodes in an order where each input is computed
  before it is read; ONNX Runtime's float16 converter appends the Cast nodes it adds for the
  graph's inputs at the end, and the verifier's row-independence check (certify/rows.py) reads
  the graph in its own order and refuses a tensor read before it is made.  Nodes are re-ordered
  stably: each keeps its place unless an input forces it later.
- `dequantize_after_gather`: ONNX Runtime's static quantiser turns the embedding's
  Gather(table) into Gather(DequantizeLinear(int8 table)), and the output layer's GatherND of
  the 170 step rows of the (tied) table likewise, which dequantises the whole table (250 M
  entries at Qwen3.5-0.8B's size, a gigabyte of float32) on every run to read a few rows.  With
  one scale and zero point for the whole table, dequantising commutes with picking entries, so
  the edit picks the int8 entries first and dequantises only those: the same numbers.
- `integer_matmuls`: a MatMul of two DequantizeLinear outputs whose result is not quantized
  again (it feeds the adapter's Add) is one ONNX Runtime does not fuse, so it dequantises the
  whole weight matrix on every run (84% of a one-view run of a 231 M-parameter int8 model).  The
  edit writes it as what it is: MatMulInteger on the int8 tensors (their products summed exactly
  in int32), then one multiplication by the two scales: the same sum, rounded once.
"""

from __future__ import annotations

import heapq

import numpy as np


def topological(model) -> int:
    """Re-order model.graph.node so that every input is made before it is read; returns how many
    nodes moved.  Raises ValueError on a cycle or an input nothing makes."""
    g = model.graph
    nodes = list(g.node)
    known = {i.name for i in g.input} | {t.name for t in g.initializer} | {""}
    maker = {o: k for k, n in enumerate(nodes) for o in n.output}
    waiting = [0] * len(nodes)
    readers: dict[int, list[int]] = {}
    for k, n in enumerate(nodes):
        for name in set(n.input):
            if name in known:
                continue
            if name not in maker:
                raise ValueError(f"node {n.name or n.op_type} reads {name!r}, which nothing makes")
            waiting[k] += 1
            readers.setdefault(maker[name], []).append(k)
    ready = [k for k in range(len(nodes)) if waiting[k] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        k = heapq.heappop(ready)
        order.append(k)
        for r in readers.get(k, ()):
            waiting[r] -= 1
            if waiting[r] == 0:
                heapq.heappush(ready, r)
    if len(order) != len(nodes):
        raise ValueError("the graph has a cycle")
    moved = sum(1 for a, b in enumerate(order) if a != b)
    if moved:
        del g.node[:]
        g.node.extend(nodes[k] for k in order)
    return moved


def _scalar(inits: dict, name: str) -> bool:
    t = inits.get(name)
    return t is not None and all(d == 1 for d in t.dims)


PICKS = ("Gather", "GatherND")  # operators that only pick entries of their data input


def dequantize_after_gather(model) -> int:
    """Gather(DequantizeLinear(q, s, z), idx) -> DequantizeLinear(Gather(q, idx), s, z) (and the
    same for GatherND) where q is an initializer and s, z are single values; returns how many
    were rewritten."""
    from onnx import helper  # lazy: onnx is the [train] extra

    g = model.graph
    inits = {t.name: t for t in g.initializer}
    maker = {o: n for n in g.node for o in n.output}
    done = 0
    for node in list(g.node):
        if node.op_type not in PICKS or node.domain not in ("", "ai.onnx"):
            continue
        dq = maker.get(node.input[0])
        if dq is None or dq.op_type != "DequantizeLinear" or dq.input[0] not in inits:
            continue
        if not all(_scalar(inits, x) for x in dq.input[1:] if x):
            continue  # per-axis scales: rows would need their own scales gathered too
        picked = node.output[0] + "_int8"
        at = list(g.node).index(node)
        gather = helper.make_node(node.op_type, [dq.input[0], node.input[1]], [picked], name=node.name)
        gather.attribute.extend(node.attribute)
        after = helper.make_node("DequantizeLinear", [picked, *dq.input[1:]], list(node.output), name=f"{node.name}_dq")
        g.node.remove(node)
        g.node.insert(at, after)
        g.node.insert(at, gather)
        done += 1
    if done:
        used = {i for n in g.node for i in n.input}
        for n in [n for n in g.node if n.op_type == "DequantizeLinear" and not (set(n.output) & used)]:
            if not any(o.name in n.output for o in g.output):
                g.node.remove(n)
    return done


def _const(inits: dict, name: str):
    from onnx import numpy_helper  # lazy: onnx is the [train] extra

    return numpy_helper.to_array(inits[name]) if name in inits else None


def integer_matmuls(model) -> int:
    """MatMul(DequantizeLinear(x, xs, xz), DequantizeLinear(w, ws, wz)) -> Mul(Cast(MatMulInteger(x,
    w, xz, wz)), xs * ws), where w is a 2-D int8 initializer, xs and xz single values and ws, wz
    per output column (axis 1) or single; returns how many were rewritten."""
    from onnx import TensorProto, helper, numpy_helper  # lazy: onnx is the [train] extra

    g = model.graph
    inits = {t.name: t for t in g.initializer}
    maker = {o: n for n in g.node for o in n.output}
    done = 0
    for node in list(g.node):
        if node.op_type != "MatMul" or node.domain not in ("", "ai.onnx"):
            continue
        dx, dw = maker.get(node.input[0]), maker.get(node.input[1])
        if not (dx and dw and dx.op_type == dw.op_type == "DequantizeLinear") or dw.input[0] not in inits:
            continue
        w = inits[dw.input[0]]
        xs, xz = (_const(inits, n) for n in (dx.input[1:] + ["", ""])[:2])
        ws, wz = (_const(inits, n) for n in (dw.input[1:] + ["", ""])[:2])
        axis = next((a.i for a in dw.attribute if a.name == "axis"), 1)
        if len(w.dims) != 2 or xs is None or xs.size != 1 or (xz is not None and xz.size != 1) or ws is None:
            continue
        if ws.size != 1 and (ws.shape != (w.dims[1],) or axis not in (1, -1)):
            continue
        at = list(g.node).index(node)
        out = node.output[0]
        scale = numpy_helper.from_array((xs.astype(np.float32) * ws.astype(np.float32)).reshape(-1), f"{out}_mmi_scale")
        zero = numpy_helper.from_array(
            np.zeros(ws.shape, dtype=np.int8 if w.data_type == TensorProto.INT8 else np.uint8), f"{out}_mmi_w_zero"
        )
        g.initializer.extend([scale] + ([] if wz is not None else [zero]))
        ins = [
            dx.input[0],
            dw.input[0],
            dx.input[2] if len(dx.input) > 2 and dx.input[2] else "",
            dw.input[2] if len(dw.input) > 2 and dw.input[2] else zero.name,
        ]
        new = [
            helper.make_node("MatMulInteger", ins, [f"{out}_mmi_int32"], name=f"{node.name}_int"),
            helper.make_node(
                "Cast", [f"{out}_mmi_int32"], [f"{out}_mmi_float"], name=f"{node.name}_cast", to=TensorProto.FLOAT
            ),
            helper.make_node("Mul", [f"{out}_mmi_float", scale.name], [out], name=f"{node.name}_scale"),
        ]
        g.node.remove(node)
        for k, n in enumerate(new):
            g.node.insert(at + k, n)
        done += 1
    if done:
        _drop_unused_dequantize(g)
    return done


def _drop_unused_dequantize(g) -> None:
    outputs = {o.name for o in g.output}
    while True:
        used = {i for n in g.node for i in n.input}
        idle = [n for n in g.node if n.op_type == "DequantizeLinear" and not (set(n.output) & (used | outputs))]
        if not idle:
            return
        for n in idle:
            g.node.remove(n)
