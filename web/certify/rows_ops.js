// web/certify/rows_ops.js — the operator handlers of the row-independence check (a port of
// sketchpad/certify/rows_ops.py, handler for handler, message for message).  A handler sees `n`
// (the node: attributes, a name for messages, `refuse`) and the input facts (null for an
// omitted optional input).  Shapes are arrays of dims (integer, null unknown, 'B' at the batch
// axis of a `rows` fact); values are flat arrays (integer, 'B' the batch size, null unknown).

export const HUGE = 2 ** 31;       // a slice end at least this large means "to the end"
/** An integer JavaScript holds exactly, or null (Python computes the same). */
export const safe = (v) => (Number.isSafeInteger(v) ? v : null);
const FOLD = {
  Add: (a, b) => a + b,
  Sub: (a, b) => a - b,
  Mul: (a, b) => a * b,
  Div: (a, b) => (b === 0 ? null : Math.trunc(a / b)),
  Max: (a, b) => Math.max(a, b),
  Min: (a, b) => Math.min(a, b),
  Equal: (a, b) => (a === b ? 1 : 0),
};

export const isInt = (x) => Number.isInteger(x);

/** Python's repr() of a list element, and str() of a value: messages read the same in both. */
export function pyRepr(x) {
  if (x === null || x === undefined) return 'None';
  if (Array.isArray(x)) return `[${x.map(pyRepr).join(', ')}]`;
  if (typeof x === 'string') return `'${x}'`;
  return String(x);
}
export const py = (x) => (typeof x === 'string' ? x : pyRepr(x));

export class Fact {
  constructor(kind, shape, axis = null, mult = 1, value = null) {
    Object.assign(this, { kind, shape, axis, mult, value });
  }

  describe() {
    const dims = this.shape === null ? '?' : this.shape.map((d) => (d === null ? '?' : String(d))).join(',');
    let text = `${this.kind}[${dims}]`;
    if (this.kind === 'rows') text += `@${this.axis}${this.mult !== 1 ? `x${this.mult}` : ''}`;
    if (this.value !== null && this.value.length <= 8) text += `=${this.value.map((v) => (v === null ? '?' : String(v))).join(',')}`;
    return text;
  }
}

export class Refuse extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

export class NodeView {
  constructor(node, where) {
    this.node = node; this.where = where; this.op = node.op;
  }

  /** An attribute's value, of the type ONNX gives it (another type is refused). */
  attr(name, dflt = null, kind = 'int') {
    const a = Object.hasOwn(this.node.attrs, name) ? this.node.attrs[name] : undefined;
    if (a === undefined) return dflt;
    if (a.type !== kind) this.refuse('rows-format', `has its attribute ${name} as a ${a.type}, not a${kind === 'int' ? 'n' : ''} ${kind}`);
    return a.value;
  }

  refuse(code, message) { throw new Refuse(code, `${this.where} ${message}`); }

  out(kind, shape, axis = null, mult = 1, value = null) { return new Fact(kind, shape, axis, mult, value); }
}

// ---------------------------------------------------------------- helpers

export const kindOf = (ins) => (ins.some((f) => f && f.kind === 'dep') ? 'dep' : 'free');

export function rank(n, f, what = 'its input') {
  if (f.shape === null) n.refuse('rows-unknown', `cannot tell the rank of ${what}`);
  return f.shape.length;
}

export function normAxis(n, axis, r, allowEnd = false) {
  const top = allowEnd ? r + 1 : r;
  if (!isInt(axis) || !(-top <= axis && axis < top)) n.refuse('rows-format', `has axis ${py(axis)} outside a tensor of rank ${r}`);
  return axis < 0 ? axis + top : axis;
}

export function knownInts(n, f, what, codeIfDep = 'rows-shape') {
  if (!f || f.value === null || f.value.some((v) => !isInt(v))) {
    if (f && f.kind === 'dep') n.refuse(codeIfDep, `takes ${what} from the batch size`);
    n.refuse('rows-unknown', `has ${what} the check cannot work out`);
  }
  return [...f.value];
}

export function prod(dims) {
  if (dims.some((d) => !isInt(d))) return null;
  let p = 1;
  for (const d of dims) {
    p *= d;
    if (!Number.isSafeInteger(p)) return null;   // Python: the exact product, then safe(); the same where it matters
  }
  return p;
}

export function bdim(a, b, n) {
  if (a === null || b === null) {
    const k = b === null ? a : b;
    return k !== null && k !== 1 ? k : null;
  }
  if (a !== b && a !== 1 && b !== 1) n.refuse('rows-format', `has shapes that do not broadcast (${a} and ${b})`);
  return a === 1 || b === 1 ? Math.max(a, b) : a;
}

export const withBatch = (shape, axis) => shape.map((d, k) => (k === axis ? 'B' : d));
export const firstRows = (ins) => ins.find((f) => f && f.kind === 'rows') || null;

function fold(op, values) {
  const fn = FOLD[op];
  if (!fn || values.some((v) => v === null)) return null;
  const size = Math.max(...values.map((v) => v.length));
  if (values.some((v) => v.length !== 1 && v.length !== size)) return null;
  const out = [];
  for (let k = 0; k < size; k++) {
    const args = values.map((v) => v[v.length > 1 ? k : 0]);
    if (args.some((a) => !isInt(a))) out.push(null);
    else out.push(args.length === 2 ? safe(fn(...args)) : null);
  }
  return out;
}

function unaryValue(op, v) {
  if (v === null) return null;
  if (['Identity', 'Cast', 'CastLike'].includes(op)) return [...v];
  if (op === 'Neg' || op === 'Abs') return v.map((x) => (isInt(x) ? (op === 'Neg' ? -x : Math.abs(x)) : null));
  return null;
}

const pad1 = (r, shape) => [...Array(Math.max(0, r - shape.length)).fill(1), ...shape];   // Python's [1] * (r - len) + shape

// ---------------------------------------------------------------- handlers

function unary(n, ins) {
  const x = ins[0];
  return [n.out(x.kind, x.shape, x.axis, x.mult, x.kind !== 'rows' ? unaryValue(n.op, x.value) : null)];
}

function broadcast(n, ins) {
  const fs = ins.filter((f) => f);
  const rows = fs.filter((f) => f.kind === 'rows');
  if (!rows.length) {
    if (fs.some((f) => f.shape === null)) return [n.out(kindOf(fs), null, null, 1, fold(n.op, fs.map((f) => f.value)))];
    const r = Math.max(...fs.map((f) => f.shape.length));
    let dims = Array(r).fill(1);
    for (const f of fs) {
      const p = pad1(r, f.shape);
      dims = dims.map((a, k) => bdim(a, p[k], n));
    }
    return [n.out(kindOf(fs), dims, null, 1, fold(n.op, fs.map((f) => f.value)))];
  }
  const r = Math.max(...fs.map((f) => rank(n, f)));
  const axis = r - rows[0].shape.length + rows[0].axis;
  for (const f of rows) {
    if (r - f.shape.length + f.axis !== axis || f.mult !== rows[0].mult) n.refuse('rows-mix', 'combines data of two different batch axes');
  }
  let dims = Array(r).fill(1);
  for (const f of fs) {
    const p = pad1(r, f.shape);
    if (f.kind !== 'rows' && p[axis] !== 1) {
      n.refuse(p[axis] === null ? 'rows-unknown' : 'rows-mix',
        `spreads a tensor of ${py(p[axis])} entries over the batch axis: a row would depend on its place`);
    }
    dims = dims.map((d, k) => (k === axis ? d : bdim(d, p[k], n)));
  }
  return [n.out('rows', withBatch(dims, axis), axis, rows[0].mult)];
}

function matmulShape(n, sa, sb, keep = false) {
  if (sa === null || sb === null) return null;
  const a = (sa.length === 1 ? [1, ...sa] : [...sa]).map((d) => (d === 'B' ? 1 : d));
  const b = (sb.length === 1 ? [...sb, 1] : [...sb]).map((d) => (d === 'B' ? 1 : d));
  if (a.length < 2 || b.length < 2) n.refuse('rows-format', 'multiplies a scalar');
  if (isInt(a.at(-1)) && isInt(b.at(-2)) && a.at(-1) !== b.at(-2)) {
    n.refuse('rows-format', `multiplies matrices of inner sizes ${a.at(-1)} and ${b.at(-2)}`);
  }
  const r = Math.max(a.length, b.length) - 2;
  const sta = pad1(r, a.slice(0, -2));
  const stb = pad1(r, b.slice(0, -2));
  let out = [...sta.map((x, k) => bdim(x, stb[k], n)), a.at(-2), b.at(-1)];
  if (!keep) out = out.filter((d, k) => !((k === r && sa.length === 1) || (k === r + 1 && sb.length === 1)));
  return out;
}

function matmul(n, ins, spec) {
  const a = ins[spec.a];
  const b = ins[spec.b];
  for (const k of spec.scalar_inputs || []) {
    const f = k < ins.length ? ins[k] : null;
    if (f && a.kind === 'rows' && (f.shape === null || prod(f.shape) !== 1)) {
      n.refuse('rows-mix', `scales batched rows by its input ${k}, which is not one number`);
    }
  }
  if (a.kind !== 'rows' && b.kind !== 'rows') return [n.out(kindOf([a, b]), matmulShape(n, a.shape, b.shape))];
  const ra = rank(n, a);
  const rb = rank(n, b);
  const sa = ra === 1 ? [1, ...a.shape] : [...a.shape];
  const sb = rb === 1 ? [...b.shape, 1] : [...b.shape];
  const s = Math.max(sa.length, sb.length) - 2;
  const at = [];
  if (a.kind === 'rows') {
    const ax = a.axis + (ra === 1 ? 1 : 0);
    if (ax === sa.length - 1) n.refuse('rows-mix', 'sums over the batch axis (the contracted dimension of its first factor)');
    at.push(ax === sa.length - 2 ? s : s - (sa.length - 2) + ax);
  }
  if (b.kind === 'rows') {
    if (b.axis === sb.length - 2) n.refuse('rows-mix', 'sums over the batch axis (the contracted dimension of its second factor)');
    at.push(b.axis === sb.length - 1 ? s + 1 : s - (sb.length - 2) + b.axis);
  }
  if (at.length === 2 && (at[0] !== at[1] || a.mult !== b.mult)) n.refuse('rows-mix', 'multiplies data of two different batch axes');
  let axis = at[0];
  if (axis < s) {
    for (const [f, sf] of [[a, sa], [b, sb]]) {
      const stack = pad1(s, sf.slice(0, -2));
      if (f.kind !== 'rows' && stack[axis] !== 1) n.refuse('rows-mix', 'multiplies each batch position by a different matrix');
    }
  }
  const shape = matmulShape(n, sa, sb, true);
  shape[axis] = 'B';
  const drop = [...(ra === 1 ? [s] : []), ...(rb === 1 ? [s + 1] : [])];
  axis -= drop.filter((k) => k < axis).length;
  return [n.out('rows', shape.filter((d, k) => !drop.includes(k)), axis, a.kind === 'rows' ? a.mult : b.mult)];
}

function gemm(n, ins) {
  const [a, b] = ins;
  const c = ins.length > 2 ? ins[2] : null;
  if (rank(n, a) !== 2 || rank(n, b) !== 2) n.refuse('rows-format', 'multiplies tensors that are not matrices');
  const sa = n.attr('transA', 0) ? [...a.shape].reverse() : a.shape;
  const sb = n.attr('transB', 0) ? [...b.shape].reverse() : b.shape;
  if (a.kind !== 'rows') return [n.out(kindOf([a, b, c]), [sa[0], sb[1]])];
  if (sa[0] !== 'B') n.refuse('rows-mix', 'sums over the batch axis (it is the contracted dimension)');
  if (c) {
    rank(n, c, 'its bias');
    if (pad1(2, c.shape)[0] !== 1) n.refuse('rows-mix', 'adds a different bias to each batch position');
  }
  return [n.out('rows', ['B', sb[1]], 0, a.mult)];
}

function reduced(n, x, axes, keep) {
  if (x.kind === 'rows' && axes.includes(x.axis)) {
    n.refuse('rows-mix', "reduces along the batch axis: every row's result would depend on the others");
  }
  const shape = keep ? x.shape.map((d, k) => (axes.includes(k) ? 1 : d)) : x.shape.filter((d, k) => !axes.includes(k));
  let axis = null;
  if (x.kind === 'rows') axis = keep ? x.axis : x.axis - axes.filter((a) => a < x.axis).length;
  return n.out(x.kind, shape, axis, x.mult);
}

function reduce(n, ins) {
  const x = ins[0];
  const r = rank(n, x);
  let axes = ins.length > 1 && ins[1] ? knownInts(n, ins[1], 'its axes') : [];
  if (!axes.length) {
    if (n.attr('noop_with_empty_axes', 0)) return [n.out(x.kind, x.shape, x.axis, x.mult)];
    axes = [...Array(r).keys()];
  }
  axes = [...new Set(axes.map((a) => normAxis(n, a, r)))].sort((p, q) => p - q);
  return [reduced(n, x, axes, n.attr('keepdims', 1))];
}

function argreduce(n, ins) {
  const x = ins[0];
  return [reduced(n, x, [normAxis(n, n.attr('axis', 0), rank(n, x))], n.attr('keepdims', 1))];
}

function along(n, ins, spec) {
  const x = ins[0];
  let axis;
  if (spec.axis_input !== undefined) {
    const vals = knownInts(n, ins[spec.axis_input], 'its axis');
    if (vals.length !== 1) n.refuse('rows-format', 'needs one axis');
    axis = vals[0];
  } else {
    axis = n.attr('axis', spec.axis);
  }
  axis = normAxis(n, axis, rank(n, x));
  if (x.kind === 'rows' && axis === x.axis) n.refuse('rows-mix', "works along the batch axis: every row's result would depend on the others");
  return [n.out(x.kind, x.shape, x.axis, x.mult)];
}

function normalize(n, ins, spec) {
  const x = ins[0];
  const r = rank(n, x);
  const axis = normAxis(n, n.attr('axis', spec.axis), r);
  if (x.kind === 'rows' && x.axis >= axis) {
    n.refuse('rows-mix', "normalises over the batch axis: every row's result would depend on the others");
  }
  const stats = x.shape.map((d, k) => (k < axis ? d : 1));
  const s = n.out(x.kind, stats, x.axis, x.mult);
  return [n.out(x.kind, x.shape, x.axis, x.mult), s, s];
}

function quantize(n, ins) {
  const [x, scale] = ins;
  if (x.kind === 'rows') {
    const perAxis = scale.shape === null || prod(scale.shape) !== 1;
    if (perAxis && normAxis(n, n.attr('axis', 1), rank(n, x)) === x.axis) n.refuse('rows-mix', 'scales each batch position differently');
  }
  return [n.out(x.kind, x.shape, x.axis, x.mult)];
}

function wholeTensor(n, ins) {
  const x = ins[0];
  if (x.kind === 'rows') n.refuse('rows-mix', "computes one scale from the whole batch: every row's result would depend on the others");
  return [n.out(x.kind, x.shape), n.out(x.kind, []), n.out(x.kind, [])];
}

function gather(n, ins) {
  const [x, idx] = ins;
  if (x.kind === 'rows' && idx.kind === 'rows') n.refuse('rows-mix', 'picks entries of batched data by batched indices');
  const r = x.kind === 'rows' || x.shape !== null ? rank(n, x) : null;
  if (r === null || idx.shape === null) {
    if (idx.kind === 'rows') n.refuse('rows-unknown', 'gathers with shapes the check does not know');
    return [n.out(kindOf(ins), null)];
  }
  const axis = normAxis(n, n.attr('axis', 0), r);
  const shape = [...x.shape.slice(0, axis), ...idx.shape, ...x.shape.slice(axis + 1)];
  if (x.kind === 'rows') {
    if (axis === x.axis) n.refuse('rows-mix', 'picks rows of the batch by index: a row would depend on others');
    return [n.out('rows', shape, x.axis < axis ? x.axis : x.axis - 1 + idx.shape.length, x.mult)];
  }
  if (idx.kind === 'rows') return [n.out('rows', shape, axis + idx.axis, idx.mult)];
  let values = null;
  if (r === 1 && x.value !== null && idx.value !== null && isInt(x.shape[0])) {
    const d = x.shape[0];
    const ok = idx.value.every((i) => isInt(i) && -d <= i && i < d);
    values = ok ? idx.value.map((i) => x.value[i < 0 ? i + d : i]) : null;
  }
  return [n.out(kindOf(ins), shape, null, 1, values)];
}

function elements(n, ins) {
  const fs = ins.filter((f) => f);
  const rows = firstRows(fs);
  const outFrom = n.op === 'GatherElements' ? fs[1] : fs[0];
  if (rows === null) return [n.out(kindOf(fs), outFrom.shape)];
  if (fs.some((f) => f.kind !== 'rows' || f.axis !== rows.axis || f.mult !== rows.mult)) {
    n.refuse('rows-mix', 'pairs batched data with data of another batch axis or none');
  }
  if (normAxis(n, n.attr('axis', 0), rank(n, rows)) === rows.axis) n.refuse('rows-mix', 'moves entries along the batch axis');
  return [n.out('rows', outFrom.shape, outFrom.axis, rows.mult)];
}

function ndDepth(n, idx) {
  if (idx.shape === null || !idx.shape.length || !isInt(idx.shape.at(-1))) {
    n.refuse('rows-unknown', 'has indices of a shape the check does not know');
  }
  return idx.shape.at(-1);
}

function gatherNd(n, ins) {
  const [x, idx] = ins;
  const b = n.attr('batch_dims', 0);
  if (idx.kind === 'rows' || (x.kind === 'rows' && b)) n.refuse('rows-mix', 'picks entries of batched data by position');
  if (x.shape === null || idx.shape === null) {
    if (x.kind === 'rows') n.refuse('rows-unknown', 'gathers with shapes the check does not know');
    return [n.out(kindOf(ins), null)];
  }
  const k = ndDepth(n, idx);
  const shape = [...idx.shape.slice(0, -1), ...x.shape.slice(b + k)];
  if (x.kind !== 'rows') return [n.out(kindOf(ins), shape)];
  if (x.axis < k) n.refuse('rows-mix', 'picks rows of the batch by position');
  return [n.out('rows', shape, idx.shape.length - 1 + x.axis - k, x.mult)];
}

function scatterNd(n, ins) {
  const [x, idx, upd] = ins;
  if (firstRows([x, idx, upd]) === null) return [n.out(kindOf(ins), x.shape)];
  if (x.kind !== 'rows' || upd.kind !== 'rows' || idx.kind === 'rows') {
    n.refuse('rows-mix', 'writes into batched data by position with batched indices or unbatched data');
  }
  const k = ndDepth(n, idx);
  if (x.axis < k || upd.axis !== idx.shape.length - 1 + x.axis - k || upd.mult !== x.mult) n.refuse('rows-mix', 'writes across the batch axis');
  return [n.out('rows', x.shape, x.axis, x.mult)];
}

function trilu(n, ins) {
  const x = ins[0];
  if (ins.length > 1 && ins[1]) knownInts(n, ins[1], 'its diagonal');
  if (x.kind === 'rows' && x.axis >= rank(n, x) - 2) {
    n.refuse('rows-mix', 'masks a triangle that spans the batch axis: a row would depend on its place');
  }
  return [n.out(x.kind, x.shape, x.axis, x.mult)];
}

export const HANDLERS = {
  unary, broadcast, matmul, gemm, reduce, argreduce, along, normalize, quantize,
  whole_tensor: wholeTensor, gather, elements, gather_nd: gatherNd, scatter_nd: scatterNd, trilu,
};
