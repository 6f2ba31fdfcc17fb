"""Read an ONNX model's bytes into plain data: the graph's inputs, outputs, initializers (their
dims, small integer values, external data) and nodes with their attributes.  Nothing else.

    model = read_model(data)      # ProtoError (an InputError) if the bytes are not one clear model
    model["graph"]["nodes"][0]    # {"op", "domain", "inputs", "outputs", "attrs": {name: value}}

This is the protobuf wire format read by hand, the same as web/onnx_proto.js, and not the
`onnx` package, for one reason: the row-independence check (sketchpad.certify.rows) must see
the very graph that ONNX Runtime will run, in Python and in the page alike.  Protobuf lets a
field that should appear once appear twice (the last wins, or two messages merge); a hostile
file could use that to show one reader a different graph than another.  So a singular field
given twice, or two members of a oneof, is refused here, in both languages, and everything
that is read is read the same way (tests/test_rows.py holds the two readers equal).

Integers are clamped to +-(2^53 - 1), the range JavaScript numbers hold exactly: a clamped
value only ever means "huge" (a slice end), never a dimension.
"""

from __future__ import annotations

import struct

from ..errors import InputError

MAX_SAFE = (1 << 53) - 1
MAX_VALUES = 4096  # integer tensors up to this many elements have their values read (shapes, axes)
INT_TYPES = {6: ("int32", 4), 7: ("int64", 8)}  # TensorProto.DataType of values worth reading
ATTR_TYPES = {
    1: "float",
    2: "int",
    3: "string",
    4: "tensor",
    5: "graph",
    6: "floats",
    7: "ints",
    8: "strings",
    9: "tensors",
    10: "graphs",
    11: "sparse_tensor",
    12: "sparse_tensors",
    13: "type_proto",
    14: "type_protos",
}


class ProtoError(InputError):
    """The bytes are not one unambiguous ONNX model."""


def _clamp(v: int) -> int:
    return max(-MAX_SAFE, min(MAX_SAFE, v))


class _Reader:
    """Fields of one message: [(number, wire type, value)], value an int or a memoryview."""

    def __init__(self, buf, what: str):
        self.buf, self.what = memoryview(buf), what

    def varint(self, pos: int) -> tuple[int, int]:
        result = shift = 0
        while True:
            if pos >= len(self.buf):
                raise ProtoError(f"truncated {self.what}")
            b = self.buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result, pos
            shift += 7
            if shift >= 70:
                raise ProtoError(f"malformed varint in {self.what}")

    def fields(self):
        pos, n = 0, len(self.buf)
        while pos < n:
            key, pos = self.varint(pos)
            num, wire = key >> 3, key & 7
            if num == 0:
                raise ProtoError(f"field number 0 in {self.what}")
            if wire == 0:
                value, pos = self.varint(pos)
            elif wire == 1:
                value, pos = self.buf[pos : pos + 8], pos + 8
            elif wire == 2:
                size, pos = self.varint(pos)
                value, pos = self.buf[pos : pos + size], pos + size
            elif wire == 5:
                value, pos = self.buf[pos : pos + 4], pos + 4
            else:
                raise ProtoError(f"unsupported wire type {wire} in {self.what}")
            if pos > n:
                raise ProtoError(f"truncated {self.what}")
            yield num, wire, value


def _signed64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def _text(value, what: str) -> str:
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise ProtoError(f"{what} is not UTF-8") from None


def _ints(wire: int, value, what: str) -> list[int]:
    """A repeated int field: one varint (wire 0) or a packed run (wire 2)."""
    if wire == 0:
        return [_clamp(_signed64(value))]
    if wire != 2:
        raise ProtoError(f"bad wire type for integers in {what}")
    r, out, pos = _Reader(value, what), [], 0
    while pos < len(r.buf):
        v, pos = r.varint(pos)
        out.append(_clamp(_signed64(v)))
    return out


def _floats(wire: int, value, what: str) -> list[float]:
    if wire == 5:
        return [struct.unpack("<f", value)[0]]
    if wire != 2 or len(value) % 4:
        raise ProtoError(f"bad wire type for floats in {what}")
    return [x[0] for x in struct.iter_unpack("<f", value)]


class _Once:
    """Singular fields of one message: a field given twice is refused."""

    def __init__(self, what: str):
        self.what, self.seen = what, set()

    def __call__(self, num: int, name: str) -> None:
        if num in self.seen:
            raise ProtoError(f"{self.what} gives its field {name} twice")
        self.seen.add(num)


def read_tensor(buf, what: str) -> dict:
    """{name, data_type, dims, values (small int tensors; else None), external (or None)}."""
    once = _Once(what)
    t = {"name": "", "data_type": 0, "dims": [], "values": None, "external": None}
    raw, int32s, int64s, location, ext = None, [], [], 0, {}
    for num, wire, value in _Reader(buf, what).fields():
        if num == 1:
            t["dims"] += _ints(wire, value, what)
        elif num == 2 and wire == 0:
            once(num, "data_type")
            t["data_type"] = value
        elif num == 8 and wire == 2:
            once(num, "name")
            t["name"] = _text(value, f"a tensor name in {what}")
        elif num == 9 and wire == 2:
            once(num, "raw_data")
            raw = value
        elif num == 5:
            int32s += _ints(wire, value, what)
        elif num == 7:
            int64s += _ints(wire, value, what)
        elif num == 13 and wire == 2:
            k, v = _entry(value, what)
            if k in ext:
                raise ProtoError(f"{what} gives its external data key '{k}' twice")
            ext[k] = v
        elif num == 14 and wire == 0:
            once(num, "data_location")
            location = value
    if location == 1:
        t["external"] = ext
    elif t["data_type"] in INT_TYPES and 0 <= _count(t["dims"]) <= MAX_VALUES:
        t["values"] = _int_values(t, raw, int32s, int64s)
    return t


def _count(dims) -> int:
    n = 1
    for d in dims:
        if d < 0:
            return -1
        n *= d
    return n


def _int_values(t: dict, raw, int32s, int64s):
    """A tensor's integers as ONNX Runtime reads them (raw_data first), or None if they do not fit."""
    kind, size = INT_TYPES[t["data_type"]]
    n = _count(t["dims"])
    if raw is not None:
        if len(raw) != n * size:
            return None
        fmt = "<q" if size == 8 else "<i"
        return [_clamp(x[0]) for x in struct.iter_unpack(fmt, raw)]
    vals = int64s if kind == "int64" else int32s  # a negative int32 is a sign-extended varint
    return vals if len(vals) == n else None


def _entry(buf, what: str) -> tuple[str, str]:
    once, k, v = _Once(f"an entry of {what}"), "", ""
    for num, wire, value in _Reader(buf, what).fields():
        if num == 1 and wire == 2:
            once(num, "key")
            k = _text(value, f"a key in {what}")
        elif num == 2 and wire == 2:
            once(num, "value")
            v = _text(value, f"a value in {what}")
    return k, v


def _attribute(buf, node: str) -> tuple[str, dict]:
    what = f"an attribute of node {node}"
    once = _Once(what)
    name, kind, vals = "", 0, {}
    for num, wire, value in _Reader(buf, what).fields():
        if num == 1 and wire == 2:
            once(num, "name")
            name = _text(value, what)
        elif num == 20 and wire == 0:
            once(num, "type")
            kind = value
        elif num == 2 and wire == 5:
            once(num, "f")
            vals["float"] = _floats(wire, value, what)[0]
        elif num == 3 and wire == 0:
            once(num, "i")
            vals["int"] = _clamp(_signed64(value))
        elif num == 4 and wire == 2:
            once(num, "s")
            vals["string"] = _text(value, what)
        elif num == 5 and wire == 2:
            once(num, "t")
            vals["tensor"] = read_tensor(value, f"{what} ({name})")
        elif num == 7:
            vals.setdefault("floats", []).extend(_floats(wire, value, what))
        elif num == 8:
            vals.setdefault("ints", []).extend(_ints(wire, value, what))
        elif num == 9 and wire == 2:
            vals.setdefault("strings", []).append(_text(value, what))
        elif num in (6, 10, 11, 22, 23):
            vals["graph" if num in (6, 11) else "tensors" if num == 10 else "sparse_tensor"] = True
    kind_name = ATTR_TYPES.get(kind)
    if kind_name is None:
        raise ProtoError(f"attribute '{name}' of node {node} has no valid type")
    default = [] if kind_name.endswith("s") and kind_name not in ("graphs", "tensors") else None
    return name, {"type": kind_name, "value": vals.get(kind_name, default)}


def _node(buf, index: int) -> dict:
    what = f"node #{index}"
    once = _Once(what)
    n = {"op": "", "domain": "", "name": "", "inputs": [], "outputs": [], "attrs": {}}
    for num, wire, value in _Reader(buf, what).fields():
        if wire != 2:
            continue
        if num == 1:
            n["inputs"].append(_text(value, what))
        elif num == 2:
            n["outputs"].append(_text(value, what))
        elif num == 3:
            once(num, "name")
            n["name"] = _text(value, what)
        elif num == 4:
            once(num, "op_type")
            n["op"] = _text(value, what)
        elif num == 7:
            once(num, "domain")
            n["domain"] = _text(value, what)
        elif num == 5:
            name, attr = _attribute(value, n["name"] or what)
            if name in n["attrs"]:
                raise ProtoError(f"{what} gives its attribute '{name}' twice")
            n["attrs"][name] = attr
    return n


def _value_info(buf, what: str) -> dict:
    """{name, elem_type, dims}: dims are ints, names (dim_param) or None; elem_type None if not a tensor."""
    once = _Once(what)
    v = {"name": "", "elem_type": None, "dims": None}
    for num, wire, value in _Reader(buf, what).fields():
        if num == 1 and wire == 2:
            once(num, "name")
            v["name"] = _text(value, what)
        elif num == 2 and wire == 2:
            once(num, "type")
            v["elem_type"], v["dims"] = _type(value, what)
    return v


def _type(buf, what: str):
    once, elem, dims = _Once(f"the type of {what}"), None, None
    for num, wire, value in _Reader(buf, what).fields():
        if num in (1, 4, 5, 8, 9):  # the oneof: tensor, sequence, map, sparse tensor, optional
            once(0, "value (a oneof)")
            if num == 1 and wire == 2:
                elem, dims = _tensor_type(value, what)
    return elem, dims


def _tensor_type(buf, what: str):
    once, elem, dims = _Once(f"the tensor type of {what}"), 0, None
    for num, wire, value in _Reader(buf, what).fields():
        if num == 1 and wire == 0:
            once(num, "elem_type")
            elem = value
        elif num == 2 and wire == 2:
            once(num, "shape")
            dims = []
            for dnum, dwire, dval in _Reader(value, what).fields():
                if dnum == 1 and dwire == 2:
                    dims.append(_dim(dval, what))
    return elem, dims


def _dim(buf, what: str):
    once, d = _Once(f"a dimension of {what}"), None
    for num, wire, value in _Reader(buf, what).fields():
        if num == 1 and wire == 0:
            once(0, "value (a oneof)")
            d = _clamp(_signed64(value))
        elif num == 2 and wire == 2:
            once(0, "value (a oneof)")
            d = _text(value, what)
    return d


def _graph(buf) -> dict:
    what = "the graph"
    once = _Once(what)
    g = {"name": "", "inputs": [], "outputs": [], "initializers": [], "nodes": [], "sparse_initializers": 0}
    for num, wire, value in _Reader(buf, what).fields():
        if wire != 2:
            continue
        if num == 1:
            g["nodes"].append(_node(value, len(g["nodes"])))
        elif num == 2:
            once(num, "name")
            g["name"] = _text(value, what)
        elif num == 5:
            g["initializers"].append(read_tensor(value, f"initializer #{len(g['initializers'])}"))
        elif num == 11:
            g["inputs"].append(_value_info(value, f"graph input #{len(g['inputs'])}"))
        elif num == 12:
            g["outputs"].append(_value_info(value, f"graph output #{len(g['outputs'])}"))
        elif num == 15:
            g["sparse_initializers"] += 1
    return g


def read_model(data) -> dict:
    """{ir_version, opsets: {domain: version}, functions: count, graph} of ONNX model bytes."""
    once = _Once("the model")
    m = {"ir_version": None, "opsets": {}, "functions": 0, "graph": None}
    for num, wire, value in _Reader(data, "the model").fields():
        if num == 1 and wire == 0:
            once(num, "ir_version")
            m["ir_version"] = _clamp(_signed64(value))
        elif num == 7 and wire == 2:
            once(num, "graph")
            m["graph"] = _graph(value)
        elif num == 8 and wire == 2:
            domain, version = _opset(value)
            if domain in m["opsets"]:
                raise ProtoError(f"the model imports the opset of domain '{domain}' twice")
            m["opsets"][domain] = version
        elif num == 25 and wire == 2:
            m["functions"] += 1
    if m["graph"] is None:
        raise ProtoError("the bytes hold no ONNX graph")
    return m


def _opset(buf) -> tuple[str, int]:
    once, domain, version = _Once("an opset import"), "", 0
    for num, wire, value in _Reader(buf, "an opset import").fields():
        if num == 1 and wire == 2:
            once(num, "domain")
            domain = _text(value, "an opset domain")
        elif num == 2 and wire == 0:
            once(num, "version")
            version = _clamp(_signed64(value))
    return ("" if domain == "ai.onnx" else domain), version


def external_files(model: dict) -> list[str]:
    """The external data files the model's initializers name, in order of first use."""
    out = []
    for t in model["graph"]["initializers"]:
        loc = (t["external"] or {}).get("location")
        if t["external"] is not None and loc not in out:
            out.append(loc)
    return out
