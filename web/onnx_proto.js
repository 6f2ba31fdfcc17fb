// web/onnx_proto.js — read an ONNX model's bytes into plain data (a port of
// sketchpad/model/onnx_proto.py, field for field): the graph's inputs, outputs, initializers
// (dims, small integer values, external data) and nodes with their attributes.
//
//   import { readModel, externalFiles, ProtoError } from './onnx_proto.js';
//   const model = readModel(bytes);   // throws ProtoError if the bytes are not one clear model
//
// The protobuf wire format is read by hand so that the row-independence check
// (certify/rows.js) sees exactly the graph ONNX Runtime Web will run: a singular field given
// twice, or two members of a oneof, is refused (a hostile file could otherwise show one
// reader another graph than the next).  Integers are clamped to ±(2^53 − 1), as in Python.

export class ProtoError extends Error {
  constructor(message) { super(message); this.name = 'ProtoError'; }
}

const MAX_SAFE = 2n ** 53n - 1n;
const MAX_VALUES = 4096;
const INT_TYPES = { 6: ['int32', 4], 7: ['int64', 8] };
const ATTR_TYPES = {
  1: 'float', 2: 'int', 3: 'string', 4: 'tensor', 5: 'graph', 6: 'floats', 7: 'ints', 8: 'strings',
  9: 'tensors', 10: 'graphs', 11: 'sparse_tensor', 12: 'sparse_tensors', 13: 'type_proto', 14: 'type_protos',
};
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function clamp(v) {            // v: BigInt -> Number within ±(2^53 − 1)
  if (v > MAX_SAFE) v = MAX_SAFE;
  if (v < -MAX_SAFE) v = -MAX_SAFE;
  return Number(v);
}

const signed64 = (v) => BigInt.asIntN(64, v);

class Reader {
  constructor(buf, what) { this.buf = buf; this.what = what; }

  varint(pos) {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= this.buf.length) throw new ProtoError(`truncated ${this.what}`);
      const b = this.buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return [result, pos];
      shift += 7n;
      if (shift >= 70n) throw new ProtoError(`malformed varint in ${this.what}`);
    }
  }

  *fields() {
    let pos = 0;
    const n = this.buf.length;
    while (pos < n) {
      let key;
      [key, pos] = this.varint(pos);
      const num = Number(key >> 3n);
      const wire = Number(key & 7n);
      if (num === 0) throw new ProtoError(`field number 0 in ${this.what}`);
      let value;
      if (wire === 0) {
        [value, pos] = this.varint(pos);
      } else if (wire === 1) {
        value = this.buf.subarray(pos, pos + 8); pos += 8;
      } else if (wire === 2) {
        let size;
        [size, pos] = this.varint(pos);
        if (size > BigInt(n)) throw new ProtoError(`truncated ${this.what}`);
        value = this.buf.subarray(pos, pos + Number(size)); pos += Number(size);
      } else if (wire === 5) {
        value = this.buf.subarray(pos, pos + 4); pos += 4;
      } else {
        throw new ProtoError(`unsupported wire type ${wire} in ${this.what}`);
      }
      if (pos > n) throw new ProtoError(`truncated ${this.what}`);
      yield [num, wire, value];
    }
  }
}

function text(value, what) {
  try {
    return utf8.decode(value);
  } catch {
    throw new ProtoError(`${what} is not UTF-8`);
  }
}

function ints(wire, value, what) {
  if (wire === 0) return [clamp(signed64(value))];
  if (wire !== 2) throw new ProtoError(`bad wire type for integers in ${what}`);
  const r = new Reader(value, what);
  const out = [];
  let pos = 0;
  while (pos < value.length) {
    let v;
    [v, pos] = r.varint(pos);
    out.push(clamp(signed64(v)));
  }
  return out;
}

function floats(wire, value, what) {
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  if (wire === 5) return [view.getFloat32(0, true)];
  if (wire !== 2 || value.length % 4) throw new ProtoError(`bad wire type for floats in ${what}`);
  const out = [];
  for (let k = 0; k < value.length; k += 4) out.push(view.getFloat32(k, true));
  return out;
}

function once(what) {
  const seen = new Set();
  return (num, name) => {
    if (seen.has(num)) throw new ProtoError(`${what} gives its field ${name} twice`);
    seen.add(num);
  };
}

function count(dims) {
  let n = 1;
  for (const d of dims) {
    if (d < 0) return -1;
    n *= d;
  }
  return n;
}

function intValues(t, raw, int32s, int64s) {
  const [kind, size] = INT_TYPES[t.data_type];
  const n = count(t.dims);
  if (raw !== null) {
    if (raw.length !== n * size) return null;
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const out = [];
    for (let k = 0; k < n; k++) {
      out.push(size === 8 ? clamp(view.getBigInt64(k * 8, true)) : view.getInt32(k * 4, true));
    }
    return out;
  }
  const vals = kind === 'int64' ? int64s : int32s;
  return vals.length === n ? vals : null;
}

function entry(buf, what) {
  const one = once(`an entry of ${what}`);
  let k = '';
  let v = '';
  for (const [num, wire, value] of new Reader(buf, what).fields()) {
    if (num === 1 && wire === 2) { one(num, 'key'); k = text(value, `a key in ${what}`); }
    else if (num === 2 && wire === 2) { one(num, 'value'); v = text(value, `a value in ${what}`); }
  }
  return [k, v];
}

export function readTensor(buf, what) {
  const one = once(what);
  const t = { name: '', data_type: 0, dims: [], values: null, external: null };
  let raw = null;
  let int32s = [];
  let int64s = [];
  let location = 0;
  const ext = {};
  for (const [num, wire, value] of new Reader(buf, what).fields()) {
    if (num === 1) t.dims.push(...ints(wire, value, what));
    else if (num === 2 && wire === 0) { one(num, 'data_type'); t.data_type = Number(value); }
    else if (num === 8 && wire === 2) { one(num, 'name'); t.name = text(value, `a tensor name in ${what}`); }
    else if (num === 9 && wire === 2) { one(num, 'raw_data'); raw = value; }
    else if (num === 5) int32s = int32s.concat(ints(wire, value, what));
    else if (num === 7) int64s = int64s.concat(ints(wire, value, what));
    else if (num === 13 && wire === 2) {
      const [k, v] = entry(value, what);
      if (Object.hasOwn(ext, k)) throw new ProtoError(`${what} gives its external data key '${k}' twice`);
      ext[k] = v;
    } else if (num === 14 && wire === 0) { one(num, 'data_location'); location = Number(value); }
  }
  if (location === 1) t.external = ext;
  else if (INT_TYPES[t.data_type] && count(t.dims) >= 0 && count(t.dims) <= MAX_VALUES) {
    t.values = intValues(t, raw, int32s, int64s);
  }
  return t;
}

function attribute(buf, node) {
  const what = `an attribute of node ${node}`;
  const one = once(what);
  let name = '';
  let kind = 0;
  const vals = {};
  for (const [num, wire, value] of new Reader(buf, what).fields()) {
    if (num === 1 && wire === 2) { one(num, 'name'); name = text(value, what); }
    else if (num === 20 && wire === 0) { one(num, 'type'); kind = Number(value); }
    else if (num === 2 && wire === 5) { one(num, 'f'); vals.float = floats(wire, value, what)[0]; }
    else if (num === 3 && wire === 0) { one(num, 'i'); vals.int = clamp(signed64(value)); }
    else if (num === 4 && wire === 2) { one(num, 's'); vals.string = text(value, what); }
    else if (num === 5 && wire === 2) { one(num, 't'); vals.tensor = readTensor(value, `${what} (${name})`); }
    else if (num === 7) (vals.floats ||= []).push(...floats(wire, value, what));
    else if (num === 8) (vals.ints ||= []).push(...ints(wire, value, what));
    else if (num === 9 && wire === 2) (vals.strings ||= []).push(text(value, what));
    else if ([6, 10, 11, 22, 23].includes(num)) vals[num === 6 || num === 11 ? 'graph' : num === 10 ? 'tensors' : 'sparse_tensor'] = true;
  }
  const kindName = ATTR_TYPES[kind];
  if (!kindName) throw new ProtoError(`attribute '${name}' of node ${node} has no valid type`);
  const dflt = ['floats', 'ints', 'strings'].includes(kindName) ? [] : null;
  return [name, { type: kindName, value: Object.hasOwn(vals, kindName) ? vals[kindName] : dflt }];
}

function readNode(buf, index) {
  const what = `node #${index}`;
  const one = once(what);
  const n = { op: '', domain: '', name: '', inputs: [], outputs: [], attrs: {} };
  for (const [num, wire, value] of new Reader(buf, what).fields()) {
    if (wire !== 2) continue;
    if (num === 1) n.inputs.push(text(value, what));
    else if (num === 2) n.outputs.push(text(value, what));
    else if (num === 3) { one(num, 'name'); n.name = text(value, what); }
    else if (num === 4) { one(num, 'op_type'); n.op = text(value, what); }
    else if (num === 7) { one(num, 'domain'); n.domain = text(value, what); }
    else if (num === 5) {
      const [name, attr] = attribute(value, n.name || what);
      if (Object.hasOwn(n.attrs, name)) throw new ProtoError(`${what} gives its attribute '${name}' twice`);
      n.attrs[name] = attr;
    }
  }
  return n;
}

function dim(buf, what) {
  const one = once(`a dimension of ${what}`);
  let d = null;
  for (const [num, wire, value] of new Reader(buf, what).fields()) {
    if (num === 1 && wire === 0) { one(0, 'value (a oneof)'); d = clamp(signed64(value)); }
    else if (num === 2 && wire === 2) { one(0, 'value (a oneof)'); d = text(value, what); }
  }
  return d;
}

function tensorType(buf, what) {
  const one = once(`the tensor type of ${what}`);
  let elem = 0;
  let dims = null;
  for (const [num, wire, value] of new Reader(buf, what).fields()) {
    if (num === 1 && wire === 0) { one(num, 'elem_type'); elem = Number(value); }
    else if (num === 2 && wire === 2) {
      one(num, 'shape');
      dims = [];
      for (const [dnum, dwire, dval] of new Reader(value, what).fields()) if (dnum === 1 && dwire === 2) dims.push(dim(dval, what));
    }
  }
  return [elem, dims];
}

function typeOf(buf, what) {
  const one = once(`the type of ${what}`);
  let elem = null;
  let dims = null;
  for (const [num, wire, value] of new Reader(buf, what).fields()) {
    if ([1, 4, 5, 8, 9].includes(num)) {
      one(0, 'value (a oneof)');
      if (num === 1 && wire === 2) [elem, dims] = tensorType(value, what);
    }
  }
  return [elem, dims];
}

function valueInfo(buf, what) {
  const one = once(what);
  const v = { name: '', elem_type: null, dims: null };
  for (const [num, wire, value] of new Reader(buf, what).fields()) {
    if (num === 1 && wire === 2) { one(num, 'name'); v.name = text(value, what); }
    else if (num === 2 && wire === 2) { one(num, 'type'); [v.elem_type, v.dims] = typeOf(value, what); }
  }
  return v;
}

function readGraph(buf) {
  const what = 'the graph';
  const one = once(what);
  const g = { name: '', inputs: [], outputs: [], initializers: [], nodes: [], sparse_initializers: 0 };
  for (const [num, wire, value] of new Reader(buf, what).fields()) {
    if (wire !== 2) continue;
    if (num === 1) g.nodes.push(readNode(value, g.nodes.length));
    else if (num === 2) { one(num, 'name'); g.name = text(value, what); }
    else if (num === 5) g.initializers.push(readTensor(value, `initializer #${g.initializers.length}`));
    else if (num === 11) g.inputs.push(valueInfo(value, `graph input #${g.inputs.length}`));
    else if (num === 12) g.outputs.push(valueInfo(value, `graph output #${g.outputs.length}`));
    else if (num === 15) g.sparse_initializers += 1;
  }
  return g;
}

function opset(buf) {
  const one = once('an opset import');
  let domain = '';
  let version = 0;
  for (const [num, wire, value] of new Reader(buf, 'an opset import').fields()) {
    if (num === 1 && wire === 2) { one(num, 'domain'); domain = text(value, 'an opset domain'); }
    else if (num === 2 && wire === 0) { one(num, 'version'); version = clamp(signed64(value)); }
  }
  return [domain === 'ai.onnx' ? '' : domain, version];
}

/** {ir_version, opsets: {domain: version}, functions: count, graph} of ONNX model bytes. */
export function readModel(data) {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  const one = once('the model');
  const m = { ir_version: null, opsets: {}, functions: 0, graph: null };
  for (const [num, wire, value] of new Reader(bytes, 'the model').fields()) {
    if (num === 1 && wire === 0) { one(num, 'ir_version'); m.ir_version = clamp(signed64(value)); }
    else if (num === 7 && wire === 2) { one(num, 'graph'); m.graph = readGraph(value); }
    else if (num === 8 && wire === 2) {
      const [domain, version] = opset(value);
      if (Object.hasOwn(m.opsets, domain)) throw new ProtoError(`the model imports the opset of domain '${domain}' twice`);
      m.opsets[domain] = version;
    } else if (num === 25 && wire === 2) m.functions += 1;
  }
  if (m.graph === null) throw new ProtoError('the bytes hold no ONNX graph');
  return m;
}

/** The external data files the model's initializers name, in order of first use. */
export function externalFiles(model) {
  const out = [];
  for (const t of model.graph.initializers) {
    const loc = (t.external || {}).location;
    if (t.external !== null && !out.includes(loc)) out.push(loc);
  }
  return out;
}
