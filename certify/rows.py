"""Row independence, decided by the verifier: every output row of a step graph depends only on
the same input row.  Not on the batch size, not on other rows, not on chance.

    verdict = check_graph(model_bytes, length=5, n_steps=170)   # or check_model(read_model(...))
    verdict.ok, verdict.code, verdict.message                      # code: rows-op, rows-mix, ...

Why this matters: the certificate checks every view of V, and proves every length only if a
step is a function of its view alone.  A graph that reads its batch size (Shape(input_ids)) or
looks at other rows of its batch can pass the suite and answer wrong in a real solve, whose
batches differ.  The suite cannot rule that out by running more batches; this check can.

How: a static analysis of the ONNX graph, node by node in the graph's own order, over an
allowlist of operators (certify/rows_table.py).  Every tensor gets a fact (`Fact`):

  free   does not depend on the input at all (weights, constants, the gate);
  dep    an integer computed from the batch size but not from any row's data (a shape);
  rows   data with one batch axis whose entry b depends on input row b only.  The axis may hold
         B x mult entries, each row's `mult` of them contiguous (a reshape that merges the batch
         with the axes after it, as the exporter does for per-head norms).

A node is refused (`Refuse`) when it would break that: it reduces, normalises, sorts, slices,
gathers, concatenates or contracts along the batch axis, mixes two batch axes, lets a `dep`
value reach data or a non-batch dimension, reshapes so that rows no longer map to rows, or
combines rows with a weight that differs by batch position.  Anything it cannot determine it
refuses too.  The shapes of every tensor are worked out here, from the initializers and the
input's declared shape, never read from the file's own shape annotations.

The same analysis runs in the page (web/certify/rows.js, from the same table); tests hold the
two equal on the shipped graph, on re-exports of other architectures and on hostile graphs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError, SketchpadError
from ..model.onnx_proto import ProtoError, read_model
from . import rows_ops, rows_shapes
from .rows_table import DOMAINS, NONDETERMINISTIC, OPS, OPSET_MAX, OPSET_MIN

INT64, FLOAT = 7, 1
HANDLERS = {**rows_ops.HANDLERS, **rows_shapes.HANDLERS}
MAX_VALUES = 4096


class NotRowIndependent(SketchpadError):
    """A graph this check refuses: it is neither certified nor run."""

    exit_code = 1


class Refuse(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


@dataclass
class Fact:
    kind: str  # "free" | "dep" | "rows"
    shape: list | None  # dims: int, None (unknown), and "B" at the batch axis of rows
    axis: int | None = None  # rows: the batch axis
    mult: int = 1  # rows: entries per row along the batch axis
    value: list | None = None  # free/dep: the flat values (int, "B", or None: unknown)

    def describe(self) -> str:
        dims = "?" if self.shape is None else ",".join("?" if d is None else str(d) for d in self.shape)
        text = f"{self.kind}[{dims}]"
        if self.kind == "rows":
            text += f"@{self.axis}" + (f"x{self.mult}" if self.mult != 1 else "")
        if self.value is not None and len(self.value) <= 8:
            text += "=" + ",".join("?" if v is None else str(v) for v in self.value)
        return text


@dataclass
class RowVerdict:
    ok: bool
    code: str | None = None
    message: str = ""
    node: int | None = None
    trace: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"ok": self.ok, "code": self.code, "message": self.message, "node": self.node}


def check_graph(data: bytes, length: int, n_steps: int | None = None, trace: bool = False) -> RowVerdict:
    """The verdict on ONNX model bytes whose input_ids are [batch, length]."""
    try:
        model = read_model(data)
    except ProtoError as e:
        return RowVerdict(False, "rows-format", f"the graph cannot be read unambiguously: {e}")
    return check_model(model, length, n_steps, trace)


def check_model(model: dict, length: int, n_steps: int | None = None, trace: bool = False) -> RowVerdict:
    lines = [] if trace else None
    at = [None]
    try:
        _check(model, length, n_steps, lines, at)
    except Refuse as e:
        return RowVerdict(False, e.code, e.message, at[0], lines or [])
    return RowVerdict(True, None, "", None, lines or [])


def _check(model: dict, length: int, n_steps, lines, at) -> None:
    version = model["opsets"].get("")
    if version is None or not OPSET_MIN <= version <= OPSET_MAX:
        raise Refuse(
            "rows-format", f"the graph uses ai.onnx opset {version}; the check knows opsets {OPSET_MIN}-{OPSET_MAX}"
        )
    if model["functions"]:
        raise Refuse("rows-format", "the graph defines its own functions, which could stand for any operator")
    g = model["graph"]
    if g["sparse_initializers"]:
        raise Refuse("rows-format", "the graph has sparse initializers, which the check does not read")
    facts: dict[str, Fact] = {}
    for t in g["initializers"]:
        _define(facts, t["name"], Fact("free", list(t["dims"]), value=t["values"]), "an initializer")
    for v in g["inputs"]:
        if v["name"] in facts:
            continue  # an initializer listed as an input (old IR): its stored value is used
        _define(facts, v["name"], _input_fact(v, length), "a graph input")
    for i, node in enumerate(g["nodes"]):
        at[0] = i
        outs = _node(node, i, facts)
        for name, fact in zip(node["outputs"], outs):
            if name:
                _define(facts, name, fact, f"node #{i}")
        if lines is not None:
            lines.append(f"{i} {node['op']} " + " ".join(f.describe() for f in outs))
    at[0] = None
    _output(g["outputs"], facts, n_steps)


def _define(facts: dict, name: str, fact: Fact, who: str) -> None:
    if name in facts:
        raise Refuse("rows-format", f"{who} defines tensor '{name}' a second time")
    facts[name] = fact


def _input_fact(v: dict, length: int) -> Fact:
    name, dims = v["name"], v["dims"]
    if name == "input_ids":
        if v["elem_type"] != INT64 or dims is None or len(dims) != 2:
            raise Refuse("rows-format", "input_ids must be an int64 tensor of rank 2 [batch, length]")
        if isinstance(dims[0], int):
            raise Refuse("rows-format", f"input_ids declares a fixed batch size {dims[0]}; it must be free")
        if isinstance(dims[1], int) and dims[1] != length:
            raise Refuse("rows-format", f"input_ids declares length {dims[1]}, the tokenizer gives {length}")
        return Fact("rows", ["B", length], 0)
    if name == "gate":
        if v["elem_type"] != FLOAT or dims != [1]:
            raise Refuse("rows-format", "gate must be a float tensor of shape [1]")
        return Fact("free", [1])
    raise Refuse("rows-format", f"the graph has an input '{name}'; a step graph takes input_ids and gate only")


def _node(node: dict, i: int, facts: dict) -> list[Fact]:
    op = node["op"]
    where = f"node #{i} ({op}" + (f" '{node['name']}')" if node["name"] else ")")
    if op in NONDETERMINISTIC:
        raise Refuse("rows-random", f"{where} draws random numbers: a step would not be a function of its view")
    if node["domain"] not in DOMAINS or op not in OPS:
        domain = f" of domain '{node['domain']}'" if node["domain"] not in DOMAINS else ""
        raise Refuse("rows-op", f"{where}: operator {op}{domain} is not on the row-independence allowlist")
    for name, attr in node["attrs"].items():
        if attr["type"] in ("graph", "graphs", "sparse_tensor", "sparse_tensors", "tensors"):
            raise Refuse(
                "rows-format", f"{where} has a {attr['type']} attribute '{name}', which the check does not read"
            )
    ins = []
    for name in node["inputs"]:
        if name == "":
            ins.append(None)
        elif name not in facts:
            raise Refuse("rows-format", f"{where} reads tensor '{name}' before anything computes it")
        else:
            ins.append(facts[name])
    spec = OPS[op]
    shape_inputs = set(spec.get("shape_inputs", ()))
    for k in shape_inputs:
        if k < len(ins) and ins[k] is not None and ins[k].kind == "rows":
            raise Refuse("rows-mix", f"{where} takes its input {k} (a shape, axes or bounds) from batched data")
    data = [f for k, f in enumerate(ins) if f is not None and k not in shape_inputs]
    if any(f.kind == "rows" for f in data) and any(f.kind == "dep" for f in data):
        raise Refuse("rows-shape", f"{where} combines batched data with a value computed from the batch size")
    for k in spec.get("free_inputs", ()):
        if k < len(ins) and ins[k] is not None and ins[k].kind != "free":
            raise Refuse("rows-mix", f"{where}: its input {k} must not depend on the batch, and does")
    node_view = rows_ops.NodeView(node, where, Refuse, Fact)
    try:
        outs = HANDLERS[spec["kind"]](node_view, ins, spec)
    except (TypeError, KeyError, IndexError, ValueError, AttributeError, ZeroDivisionError):
        raise Refuse("rows-format", f"{where} lacks an input or attribute its operator needs") from None
    if len(outs) < len(node["outputs"]):
        raise Refuse("rows-format", f"{where} has more outputs than {op} gives")
    outs = [_settle(f) for f in outs[: len(node["outputs"])]]
    for f in outs:
        if f.kind == "rows" and (f.shape is None or f.axis is None or f.shape[f.axis] != "B"):
            raise Refuse("rows-unknown", f"{where}: the check lost track of the batch axis")
    return outs


def _settle(f: Fact) -> Fact:
    """A `dep` value that turned out to be known numbers no longer depends on the batch."""
    if f.kind == "dep" and f.value is not None and all(isinstance(v, int) for v in f.value):
        return Fact("free", f.shape, value=f.value)
    if f.value is not None and len(f.value) > MAX_VALUES:
        f.value = None
    return f


def _output(outputs: list, facts: dict, n_steps) -> None:
    if len(outputs) != 1:
        raise Refuse("rows-format", f"the graph has {len(outputs)} outputs; a step graph has one (step logits)")
    o = outputs[0]
    f = facts.get(o["name"])
    if f is None:
        raise Refuse("rows-format", f"nothing computes the graph output '{o['name']}'")
    if o["elem_type"] != FLOAT:
        raise Refuse("rows-format", "the step logits must be float32")
    if f.kind != "rows" or f.axis != 0 or f.mult != 1 or len(f.shape) != 2:
        raise Refuse("rows-mix", f"the output '{o['name']}' is {f.describe()}, not one row of logits per input row")
    if n_steps is not None and f.shape[1] != n_steps:
        raise Refuse("rows-format", f"the output has {f.shape[1]} logits per row, the model has {n_steps} steps")


_VERDICTS: dict = {}


def verdict_for(stepper) -> RowVerdict | None:
    """The verdict on a loaded stepper's graph (once per graph), or None for a backend that runs
    no graph from the model (torch runs fixed library code; README, "Certificates")."""
    data = getattr(stepper, "graph_bytes", None)
    if data is None:
        return None
    key = stepper.manifest.digest()  # covers the graph, model.json and their external data
    if key not in _VERDICTS:
        _VERDICTS.clear()  # one model at a time is the common case; keep memory flat
        _VERDICTS[key] = check_export(data, stepper.meta)
    return _VERDICTS[key]


def check_export(model_bytes: bytes, meta: dict, trace: bool = False) -> RowVerdict:
    """The verdict for an export's graph, with the view length and step count of its model.json."""
    try:
        length, n_steps = int(meta["encoding"]["length"]), len(meta["steps"])
    except (KeyError, TypeError, ValueError):
        raise InputError("model.json does not give the view length and the steps") from None
    return check_graph(model_bytes, length, n_steps, trace)
