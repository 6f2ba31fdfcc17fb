"""Two small, exact edits of a converted graph (onnx ModelProto, edited in place).

- `topological`: ONNX requires a graph's nodes in an order where each input is computed
  before it is read; ONNX Runtime's float16 converter appends the Cast nodes it adds for the
  graph's inputs at the end, and the verifier's row-independence check (certify/rows.py) reads
  the graph in its own order and refuses a tensor read before it is made.  Nodes are re-ordered
  stably: each keeps its place unless an input forces it later.
- `dequantize_after_gather`: ONNX Runtime's static quantiser turns the embedding's
  Gather(table) into Gather(DequantizeLinear(int8 table)), which dequantises the whole table
  (250 M entries at Qwen3.5-0.8B's size, a gigabyte of float32) on every run to read five
  rows.  With one scale and zero point for the whole table, dequantising commutes with picking
  rows, so the edit gathers the int8 rows first and dequantises only those: the same numbers.
"""

from __future__ import annotations

import heapq


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


def dequantize_after_gather(model) -> int:
    """Gather(DequantizeLinear(q, s, z), idx) -> DequantizeLinear(Gather(q, idx), s, z) where q is
    an initializer and s, z are single values; returns how many Gathers were rewritten."""
    from onnx import helper

    g = model.graph
    inits = {t.name: t for t in g.initializer}
    maker = {o: n for n in g.node for o in n.output}
    done = 0
    for node in list(g.node):
        if node.op_type != "Gather" or node.domain not in ("", "ai.onnx"):
            continue
        dq = maker.get(node.input[0])
        if dq is None or dq.op_type != "DequantizeLinear" or dq.input[0] not in inits:
            continue
        if not all(_scalar(inits, x) for x in dq.input[1:] if x):
            continue  # per-axis scales: rows would need their own scales gathered too
        picked = node.output[0] + "_int8"
        at = list(g.node).index(node)
        gather = helper.make_node("Gather", [dq.input[0], node.input[1]], [picked], name=node.name, axis=_axis(node))
        after = helper.make_node("DequantizeLinear", [picked, *dq.input[1:]], list(node.output), name=dq.name + "_rows")
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


def _axis(node) -> int:
    for a in node.attribute:
        if a.name == "axis":
            return a.i
    return 0
