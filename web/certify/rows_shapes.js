// web/certify/rows_shapes.js — the shape-moving operator handlers of the row-independence check
// (a port of sketchpad/certify/rows_shapes.py, handler for handler): transpose, reshape,
// expand, slice, concatenate, pad, and the operators that compute shapes and constants.

import {
  HUGE, bdim, firstRows, isInt, kindOf, knownInts, normAxis, prod, py, pyRepr, rank, safe, withBatch,
} from './rows_ops.js';

const pad1 = (r, shape) => [...Array(Math.max(0, r - shape.length)).fill(1), ...shape];
const count = (xs, v) => xs.filter((x) => x === v).length;
const range = (n) => [...Array(n).keys()];

function transpose(n, ins) {
  const x = ins[0];
  const r = rank(n, x);
  let perm = n.attr('perm', null, 'ints');
  perm = perm === null ? range(r).reverse() : [...perm];
  if (pyRepr([...perm].sort((a, b) => a - b)) !== pyRepr(range(r))) {
    n.refuse('rows-format', `has perm ${pyRepr(perm)}, not a permutation of ${r} axes`);
  }
  const shape = perm.map((p) => x.shape[p]);
  const value = x.kind !== 'rows' && r <= 1 ? x.value : null;
  return [n.out(x.kind, shape, x.kind === 'rows' ? perm.indexOf(x.axis) : null, x.mult, value)];
}

function unsqueeze(n, ins) {
  const x = ins[0];
  const r = rank(n, x);
  let axes = knownInts(n, ins[1], 'its axes', 'rows-format');
  const outR = r + axes.length;
  axes = axes.map((a) => normAxis(n, a, outR));
  if (new Set(axes).size !== axes.length) n.refuse('rows-format', 'names an axis twice');
  let next = 0;
  const src = range(outR).map((k) => (axes.includes(k) ? null : next++));
  const shape = src.map((s) => (s === null ? 1 : x.shape[s]));
  const axis = x.kind === 'rows' ? src.indexOf(x.axis) : null;
  return [n.out(x.kind, shape, axis, x.mult, x.kind !== 'rows' ? x.value : null)];
}

function squeeze(n, ins) {
  const x = ins[0];
  if (ins.length < 2 || !ins[1]) {
    if (x.kind === 'rows') n.refuse('rows-unknown', 'drops every axis of size 1, the batch axis too when a batch has one row');
    if (x.shape === null || x.shape.some((d) => d === null)) return [n.out(x.kind, null, null, 1, x.value)];
    return [n.out(x.kind, x.shape.filter((d) => d !== 1), null, 1, x.value)];
  }
  const r = rank(n, x);
  const axes = new Set(knownInts(n, ins[1], 'its axes', 'rows-format').map((a) => normAxis(n, a, r)));
  if (x.kind === 'rows' && axes.has(x.axis)) {
    n.refuse('rows-mix', 'squeezes the batch axis, which has one entry only when a batch has one row');
  }
  if ([...axes].some((a) => isInt(x.shape[a]) && x.shape[a] !== 1)) n.refuse('rows-format', 'squeezes an axis that is not of size 1');
  const keep = range(r).filter((k) => !axes.has(k));
  const axis = x.kind === 'rows' ? keep.indexOf(x.axis) : null;
  return [n.out(x.kind, keep.map((k) => x.shape[k]), axis, x.mult, x.kind !== 'rows' ? x.value : null)];
}

function copied(n, x, k) {
  if (x.shape === null || k >= x.shape.length) return null;
  if (x.kind === 'rows' && k === x.axis && x.mult !== 1) n.refuse('rows-unknown', 'copies a batch axis that holds several entries per row');
  return x.shape[k];
}

function reshapePlain(n, x, t, target) {
  const kind = x.kind === 'dep' || t.kind === 'dep' || target.includes('B') ? 'dep' : x.kind;
  let shape = [...target];
  if (shape.includes(-1) && x.shape !== null) {
    const total = prod(x.shape);
    const rest = prod(shape.filter((v) => v !== -1));
    shape[shape.indexOf(-1)] = total !== null && rest ? Math.floor(total / rest) : null;
  }
  shape = shape.map((v) => (isInt(v) && v >= 0 ? v : null));
  return n.out(kind, shape, null, 1, x.value);
}

function reshape(n, ins) {
  const [x, t] = ins;
  let target = t.value;
  if (target === null) n.refuse(t.kind === 'dep' ? 'rows-shape' : 'rows-unknown', 'reshapes to a shape the check cannot work out');
  if (!n.attr('allowzero', 0)) target = target.map((v, k) => (v === 0 ? copied(n, x, k) : v));
  if (x.kind !== 'rows') return [reshapePlain(n, x, t, target)];
  if (target.includes(null)) n.refuse(t.kind === 'dep' ? 'rows-shape' : 'rows-unknown', 'reshapes to a shape the check cannot work out');
  if (target.includes(0) || target.some((v) => isInt(v) && v < -1)) n.refuse('rows-format', `reshapes to ${pyRepr(target)}`);
  const before = prod(x.shape.slice(0, x.axis));
  const after = prod(x.shape.slice(x.axis + 1));
  if (before === null || after === null) n.refuse('rows-unknown', 'reshapes a tensor whose dimensions the check does not know');
  const size = prod([before, x.mult, after]);
  if (size === null) n.refuse('rows-unknown', 'reshapes a tensor too large for the check');
  if (count(target, 'B') > 1) n.refuse('rows-shape', 'puts the batch size into more than one dimension');
  if (count(target, -1) > 1) n.refuse('rows-format', `reshapes to ${pyRepr(target)}`);
  let j;
  let mult;
  if (target.includes('B')) {
    j = target.indexOf('B');
    if (target.includes(-1)) {
      const q = target.indexOf(-1);
      const rest = prod(target.filter((v, k) => k !== j && k !== q));
      if (size % rest) n.refuse('rows-mix', `reshapes ${size} entries per row into ${pyRepr(target)}`);
      target[q] = size / rest;
    }
    mult = 1;
  } else if (target.includes(-1)) {
    j = target.indexOf(-1);
    const rest = prod(target.filter((v, k) => k !== j));
    if (size % rest) n.refuse('rows-mix', `reshapes ${size} entries per row into ${pyRepr(target)}`);
    mult = size / rest;
  } else {
    n.refuse('rows-mix', `reshapes to the fixed shape ${pyRepr(target)}, which holds a fixed number of rows`);
  }
  if (prod(target.slice(0, j)) !== before || prod([mult, prod(target.slice(j + 1))]) !== prod([x.mult, after])) {
    n.refuse('rows-mix', `reshapes ${x.describe()} to ${pyRepr(target)}: the entries of one row would not stay one row`);
  }
  return [n.out('rows', withBatch(target, j), j, mult)];
}

function flatten(n, ins) {
  const x = ins[0];
  const r = rank(n, x);
  const axis = normAxis(n, n.attr('axis', 1), r, true);
  if (x.kind !== 'rows') return [n.out(x.kind, [prod(x.shape.slice(0, axis)), prod(x.shape.slice(axis))])];
  const [lo, hi] = x.axis < axis ? [0, axis] : [axis, r];
  if (prod(x.shape.slice(lo, x.axis)) !== 1) n.refuse('rows-mix', 'flattens the batch axis behind other axes: rows would interleave');
  const mult = prod(x.shape.slice(x.axis + 1, hi));
  if (mult === null) n.refuse('rows-unknown', 'flattens dimensions the check does not know');
  const other = x.axis < axis ? prod(x.shape.slice(axis)) : prod(x.shape.slice(0, axis));
  const j = x.axis < axis ? 0 : 1;
  const total = prod([x.mult, mult]);
  if (total === null) n.refuse('rows-unknown', 'flattens a tensor too large for the check');
  return [n.out('rows', j === 0 ? ['B', other] : [other, 'B'], j, total)];
}

function expand(n, ins) {
  const [x, t] = ins;
  const target = t.value;
  if (target === null || x.shape === null) {
    if (x.kind === 'rows' || t.kind === 'dep') {
      n.refuse(t.kind === 'dep' ? 'rows-shape' : 'rows-unknown', 'expands to a shape the check cannot work out');
    }
    return [n.out(kindOf([x, t]), null)];
  }
  const r = Math.max(x.shape.length, target.length);
  const xs = pad1(r, x.shape);
  const ts = pad1(r, target);
  const xAxis = x.kind === 'rows' ? r - x.shape.length + x.axis : null;
  if (count(ts, 'B') > 1) n.refuse('rows-mix', 'expands to a shape with two batch axes');
  if (xAxis === null && ts.includes('B') && (x.kind === 'dep' || (ts.includes(null) && t.kind === 'dep'))) return [n.out('dep', null)];
  const dims = [];
  for (let k = 0; k < r; k++) {
    const d = xs[k];
    const v = ts[k];
    if (k === xAxis) {
      if (v !== 1 && v !== 'B') n.refuse('rows-mix', `expands the batch axis to ${py(v)} entries`);
      dims.push('B');
    } else if (v === 'B') {
      if (xAxis !== null || d !== 1) n.refuse('rows-mix', 'expands a tensor along the batch axis from more than one entry');
      dims.push('B');
    } else if (v === null) {
      if (t.kind === 'dep' && x.kind === 'rows') n.refuse('rows-shape', 'expands a dimension to a size computed from the batch size');
      dims.push(isInt(d) && d !== 1 ? d : null);
    } else {
      dims.push(bdim(d, v, n));
    }
  }
  if (xAxis !== null) return [n.out('rows', dims, xAxis, x.mult)];
  if (dims.includes('B')) {
    if (ts.includes(null) && t.kind === 'dep') n.refuse('rows-shape', 'expands a dimension to a size computed from the batch size');
    return [n.out('rows', dims, dims.indexOf('B'), 1)];
  }
  return [n.out(kindOf([x, t]), dims)];
}

function tile(n, ins) {
  const x = ins[0];
  const reps = knownInts(n, ins[1], 'its repeats');
  if (x.shape === null || reps.length !== x.shape.length) {
    if (x.kind === 'rows') n.refuse('rows-unknown', 'tiles a tensor the check cannot follow');
    return [n.out(x.kind, null)];
  }
  if (x.kind === 'rows' && reps[x.axis] !== 1) n.refuse('rows-mix', 'repeats the batch axis');
  const shape = x.shape.map((d, k) => (d === 'B' ? 'B' : isInt(d) ? safe(d * reps[k]) : null));
  return [n.out(x.kind, shape, x.axis, x.mult)];
}

function concat(n, ins) {
  const fs = ins.filter((f) => f);
  const r = rank(n, fs[0]);
  const axis = normAxis(n, n.attr('axis', 0), r);
  const rows = firstRows(fs);
  if (rows !== null) {
    if (fs.some((f) => f.kind !== 'rows' || f.axis !== rows.axis || f.mult !== rows.mult)) {
      n.refuse('rows-mix', 'joins batched data with data of another batch axis or none');
    }
    if (axis === rows.axis) n.refuse('rows-mix', 'concatenates along the batch axis');
  }
  if (fs.some((f) => f.shape === null || f.shape.length !== r)) n.refuse('rows-format', 'concatenates tensors of different ranks');
  const sizes = fs.map((f) => f.shape[axis]);
  const shape = [...fs[0].shape];
  shape[axis] = prod(sizes) !== null ? safe(sizes.reduce((a, b) => a + b, 0)) : null;
  let values = null;
  if (rows === null && fs.every((f) => f.value !== null) && r <= 1) values = fs.flatMap((f) => f.value);
  return [n.out(rows ? rows.kind : kindOf(fs), shape, rows ? rows.axis : null, rows ? rows.mult : 1, values)];
}

function split(n, ins) {
  const x = ins[0];
  const r = rank(n, x);
  const axis = normAxis(n, n.attr('axis', 0), r);
  if (x.kind === 'rows' && axis === x.axis) n.refuse('rows-mix', 'splits the batch axis');
  const outputs = n.node.outputs.length;
  let sizes;
  if (ins.length > 1 && ins[1]) {
    sizes = knownInts(n, ins[1], 'its split sizes');
    if (sizes.length !== outputs) n.refuse('rows-format', 'gives split sizes for another number of outputs');
  } else if (isInt(x.shape[axis])) {
    const d = x.shape[axis];
    const parts = n.attr('num_outputs', outputs);
    if (parts < 1) n.refuse('rows-format', 'splits into no parts');
    const each = Math.ceil(d / parts);
    sizes = range(outputs).map((k) => Math.min(each, Math.max(0, d - each * k)));
  } else {
    sizes = Array(outputs).fill(null);
  }
  return sizes.map((s) => {
    const shape = [...x.shape];
    shape[axis] = s;
    return n.out(x.kind, shape, x.axis, x.mult);
  });
}

/** [first index, count] of what ONNX Slice picks from an axis of d entries (its clamping rules). */
export function sliceIndices(d, s, e, st) {
  s = s < 0 ? s + d : s;
  e = e < 0 ? e + d : e;
  if (st > 0) {
    s = Math.max(0, Math.min(s, d));
    e = Math.max(0, Math.min(e, d));
    return [s, Math.max(0, Math.ceil((e - s) / st))];
  }
  s = Math.max(0, Math.min(s, d - 1));
  e = Math.max(-1, Math.min(e, d - 1));
  return [s, Math.max(0, Math.ceil((s - e) / -st))];
}

function slice(n, ins) {
  const x = ins[0];
  const starts = ins[1].value;
  const ends = ins[2].value;
  const r = x.kind === 'rows' ? rank(n, x) : (x.shape !== null ? x.shape.length : null);
  let axes = ins.length > 3 && ins[3] ? knownInts(n, ins[3], 'its axes', 'rows-format') : null;
  let steps = ins.length > 4 && ins[4] ? knownInts(n, ins[4], 'its steps', 'rows-format') : null;
  const dep = kindOf(ins.slice(1, 3)) === 'dep';
  if (starts === null || ends === null || r === null) {
    if (x.kind === 'rows') n.refuse(dep ? 'rows-shape' : 'rows-unknown', 'slices with bounds the check cannot work out');
    return [n.out(kindOf(ins), null)];
  }
  axes = axes === null ? range(starts.length) : axes;
  steps = steps === null ? Array(starts.length).fill(1) : steps;
  if (!(starts.length === ends.length && ends.length === axes.length && axes.length === steps.length)) {
    n.refuse('rows-format', 'gives slice bounds of different lengths');
  }
  const shape = [...x.shape];
  let values = x.kind !== 'rows' && r === 1 ? x.value : null;
  for (let i = 0; i < starts.length; i++) {
    const s = starts[i];
    const e = ends[i];
    const st = steps[i];
    const a = normAxis(n, axes[i], r);
    if (x.kind === 'rows' && a === x.axis) {
      const whole = st === 1 && s === 0 && ((e === 'B' && x.mult === 1) || (isInt(e) && e >= HUGE));
      if (!whole) n.refuse('rows-mix', 'slices the batch axis: a row would depend on its place in the batch');
      continue;
    }
    if (st === 0) n.refuse('rows-format', 'slices with step 0');
    if (!isInt(s) || !isInt(e)) {
      if (x.kind === 'rows' && dep) n.refuse('rows-shape', 'slices a dimension with bounds computed from the batch size');
      shape[a] = null;
      values = null;
      continue;
    }
    const d = shape[a];
    if (isInt(d)) {
      const [first, len] = sliceIndices(d, s, e, st);
      shape[a] = len;
      if (values !== null) values = range(len).map((k) => values[first + k * st]);
    } else {
      values = null;
    }
  }
  const kind = x.kind === 'rows' ? 'rows' : (dep || x.kind === 'dep' ? 'dep' : 'free');
  return [n.out(kind, shape, x.axis, x.mult, values)];
}

function pad(n, ins) {
  const x = ins[0];
  const r = rank(n, x);
  const pads = knownInts(n, ins[1], 'its pads');
  let axes = ins.length > 3 && ins[3] ? knownInts(n, ins[3], 'its axes', 'rows-format') : range(r);
  axes = axes.map((a) => normAxis(n, a, r));
  if (pads.length !== 2 * axes.length) n.refuse('rows-format', 'gives pads for another number of axes');
  const shape = [...x.shape];
  axes.forEach((a, k) => {
    const lo = pads[k];
    const hi = pads[k + axes.length];
    if (x.kind === 'rows' && a === x.axis) {
      if (lo || hi) n.refuse('rows-mix', 'pads the batch axis');
      return;
    }
    shape[a] = isInt(shape[a]) ? safe(shape[a] + lo + hi) : null;
  });
  return [n.out(x.kind, shape, x.axis, x.mult)];
}

function shape(n, ins) {
  const x = ins[0];
  const r = rank(n, x);
  const lo = normAxis(n, Math.max(-r, Math.min(r, n.attr('start', 0))), r, true);
  const hi = normAxis(n, Math.max(-r, Math.min(r, n.attr('end', r))), r, true);
  const dims = x.kind === 'rows' ? x.shape.map((d, k) => (k === x.axis ? (x.mult === 1 ? 'B' : null) : d)) : [...x.shape];
  const vals = hi > lo ? dims.slice(lo, hi) : [];
  const kind = x.kind !== 'rows' ? x.kind : (lo <= x.axis && x.axis < hi ? 'dep' : 'free');
  return [n.out(kind, [vals.length], null, 1, vals)];
}

function size(n, ins) {
  const x = ins[0];
  if (x.kind === 'rows') return [n.out('dep', [], null, 1, [null])];
  return [n.out(x.kind, [], null, 1, [x.shape !== null ? prod(x.shape) : null])];
}

function constant(n) {
  const { attrs } = n.node;
  if (Object.hasOwn(attrs, 'value')) {
    const t = n.attr('value', null, 'tensor');
    return [n.out('free', [...t.dims], null, 1, t.values)];
  }
  for (const [name, scalar] of [['value_int', true], ['value_float', true], ['value_ints', false], ['value_floats', false]]) {
    if (Object.hasOwn(attrs, name)) {
      const v = n.attr(name, null, name.slice(6));
      const vals = scalar ? [v] : [...v];
      const ints = name.includes('int') ? vals.map((x) => (isInt(x) ? x : null)) : null;
      return [n.out('free', scalar ? [] : [vals.length], null, 1, ints)];
    }
  }
  if (Object.hasOwn(attrs, 'value_string')) return [n.out('free', [])];
  if (Object.hasOwn(attrs, 'value_strings')) return [n.out('free', [n.attr('value_strings', null, 'strings').length])];
  n.refuse('rows-format', 'is a Constant without a value');
}

function constantOfShape(n, ins) {
  const t = ins[0];
  const dims = t.value;
  if (dims === null) return [n.out(t.kind === 'dep' ? 'dep' : 'free', null)];
  if (count(dims, 'B') > 1) n.refuse('rows-mix', 'makes a tensor with two batch axes');
  if (dims.includes('B')) {
    if (dims.includes(null)) n.refuse('rows-shape', 'makes a tensor with a dimension computed from the batch size');
    return [n.out('rows', [...dims], dims.indexOf('B'), 1)];
  }
  if (t.kind === 'dep') return [n.out('dep', [...dims])];
  const fill = n.attr('value', null, 'tensor');
  const v = fill && fill.values && fill.values.length ? fill.values[0] : (fill === null ? 0 : null);
  const c = prod(dims);
  return [n.out('free', [...dims], null, 1, c !== null && c <= 4096 ? Array(c).fill(v) : null)];
}

function rangeOp(n, ins) {
  if (kindOf(ins) === 'dep') return [n.out('dep', [null])];
  const vals = ins.slice(0, 3).map((f) => (f.value && f.value.length === 1 ? f.value[0] : null));
  if (vals.some((v) => !isInt(v)) || vals[2] === 0) return [n.out('free', [null])];
  const len = Math.max(0, Math.ceil((vals[1] - vals[0]) / vals[2]));
  return [n.out('free', [len], null, 1, len <= 4096 ? range(len).map((k) => vals[0] + k * vals[2]) : null)];
}

export const HANDLERS = {
  transpose, unsqueeze, squeeze, reshape, flatten, expand, tile, concat, split, slice, pad, shape, size,
  constant, constant_of_shape: constantOfShape, range: rangeOp,
};
