// web/certify/rows.js — row independence, decided by the verifier, in the page (a port of
// sketchpad/certify/rows.py, check for check, message for message): every output row of the
// step graph depends only on the same input row — not on the batch size, not on other rows,
// not on chance.  The operator table comes from the one rule Python generates
// (generated/certificate-rule.json, "rows"); the handlers are rows_ops.js and rows_shapes.js.
//
//   import { checkGraph } from './certify/rows.js';
//   const verdict = checkGraph(bytes, length, nSteps);   // {ok, code, message, node}
//
// Why and how: see rows.py.  tests/test_rows.py holds the two equal on the shipped graph, on
// re-exports of other architectures and on a set of hostile and harmless graphs.

import RULE from '../generated/certificate-rule.json' with { type: 'json' };
import { ProtoError, readModel } from '../onnx_proto.js';
import { Fact, HANDLERS as OPS_HANDLERS, NodeView, Refuse, py } from './rows_ops.js';
import { HANDLERS as SHAPE_HANDLERS } from './rows_shapes.js';

const TABLE = RULE.rows;
const HANDLERS = { ...OPS_HANDLERS, ...SHAPE_HANDLERS };
const [OPSET_MIN, OPSET_MAX] = TABLE.opset;
const INT64 = 7;
const FLOAT = 1;
const MAX_VALUES = 4096;

function define(facts, name, fact, who) {
  if (facts.has(name)) throw new Refuse('rows-format', `${who} defines tensor '${name}' a second time`);
  facts.set(name, fact);
}

function inputFact(v, length) {
  const { name, dims } = v;
  if (name === 'input_ids') {
    if (v.elem_type !== INT64 || dims === null || dims.length !== 2) {
      throw new Refuse('rows-format', 'input_ids must be an int64 tensor of rank 2 [batch, length]');
    }
    if (Number.isInteger(dims[0])) throw new Refuse('rows-format', `input_ids declares a fixed batch size ${dims[0]}; it must be free`);
    if (Number.isInteger(dims[1]) && dims[1] !== length) {
      throw new Refuse('rows-format', `input_ids declares length ${dims[1]}, the tokenizer gives ${length}`);
    }
    return new Fact('rows', ['B', length], 0);
  }
  if (name === 'gate') {
    if (v.elem_type !== FLOAT || dims === null || dims.length !== 1 || dims[0] !== 1) {
      throw new Refuse('rows-format', 'gate must be a float tensor of shape [1]');
    }
    return new Fact('free', [1]);
  }
  throw new Refuse('rows-format', `the graph has an input '${name}'; a step graph takes input_ids and gate only`);
}

function settle(f) {
  if (f.kind === 'dep' && f.value !== null && f.value.every((v) => Number.isInteger(v))) return new Fact('free', f.shape, null, 1, f.value);
  if (f.value !== null && f.value.length > MAX_VALUES) f.value = null;
  return f;
}

function checkNode(node, i, facts) {
  const { op } = node;
  const where = `node #${i} (${op}` + (node.name ? ` '${node.name}')` : ')');
  if (TABLE.nondeterministic.includes(op)) {
    throw new Refuse('rows-random', `${where} draws random numbers: a step would not be a function of its view`);
  }
  const known = TABLE.domains.includes(node.domain);
  if (!known || !Object.hasOwn(TABLE.ops, op)) {
    const domain = known ? '' : ` of domain '${node.domain}'`;
    throw new Refuse('rows-op', `${where}: operator ${op}${domain} is not on the row-independence allowlist`);
  }
  for (const [name, attr] of Object.entries(node.attrs)) {
    if (['graph', 'graphs', 'sparse_tensor', 'sparse_tensors', 'tensors'].includes(attr.type)) {
      throw new Refuse('rows-format', `${where} has a ${attr.type} attribute '${name}', which the check does not read`);
    }
  }
  const ins = node.inputs.map((name) => {
    if (name === '') return null;
    if (!facts.has(name)) throw new Refuse('rows-format', `${where} reads tensor '${name}' before anything computes it`);
    return facts.get(name);
  });
  const spec = TABLE.ops[op];
  const shapeInputs = new Set(spec.shape_inputs || []);
  for (const k of shapeInputs) {
    if (k < ins.length && ins[k] && ins[k].kind === 'rows') {
      throw new Refuse('rows-mix', `${where} takes its input ${k} (a shape, axes or bounds) from batched data`);
    }
  }
  const data = ins.filter((f, k) => f && !shapeInputs.has(k));
  if (data.some((f) => f.kind === 'rows') && data.some((f) => f.kind === 'dep')) {
    throw new Refuse('rows-shape', `${where} combines batched data with a value computed from the batch size`);
  }
  for (const k of spec.free_inputs || []) {
    if (k < ins.length && ins[k] && ins[k].kind !== 'free') throw new Refuse('rows-mix', `${where}: its input ${k} must not depend on the batch, and does`);
  }
  let outs;
  try {
    outs = HANDLERS[spec.kind](new NodeView(node, where), ins, spec);
  } catch (e) {
    if (e instanceof Refuse) throw e;
    throw new Refuse('rows-format', `${where} lacks an input or attribute its operator needs`);
  }
  if (outs.length < node.outputs.length) throw new Refuse('rows-format', `${where} has more outputs than ${op} gives`);
  outs = outs.slice(0, node.outputs.length).map(settle);
  for (const f of outs) {
    if (f.kind === 'rows' && (f.shape === null || f.axis === null || f.shape[f.axis] !== 'B')) {
      throw new Refuse('rows-unknown', `${where}: the check lost track of the batch axis`);
    }
  }
  return outs;
}

function checkOutput(outputs, facts, nSteps) {
  if (outputs.length !== 1) throw new Refuse('rows-format', `the graph has ${outputs.length} outputs; a step graph has one (step logits)`);
  const o = outputs[0];
  const f = facts.get(o.name);
  if (f === undefined) throw new Refuse('rows-format', `nothing computes the graph output '${o.name}'`);
  if (o.elem_type !== FLOAT) throw new Refuse('rows-format', 'the step logits must be float32');
  if (f.kind !== 'rows' || f.axis !== 0 || f.mult !== 1 || f.shape.length !== 2) {
    throw new Refuse('rows-mix', `the output '${o.name}' is ${f.describe()}, not one row of logits per input row`);
  }
  if (nSteps !== null && f.shape[1] !== nSteps) {
    throw new Refuse('rows-format', `the output has ${py(f.shape[1])} logits per row, the model has ${nSteps} steps`);
  }
}

function check(model, length, nSteps, lines, at) {
  const version = Object.hasOwn(model.opsets, '') ? model.opsets[''] : null;
  if (version === null || !(OPSET_MIN <= version && version <= OPSET_MAX)) {
    throw new Refuse('rows-format', `the graph uses ai.onnx opset ${py(version)}; the check knows opsets ${OPSET_MIN}-${OPSET_MAX}`);
  }
  if (model.functions) throw new Refuse('rows-format', 'the graph defines its own functions, which could stand for any operator');
  const g = model.graph;
  if (g.sparse_initializers) throw new Refuse('rows-format', 'the graph has sparse initializers, which the check does not read');
  const facts = new Map();
  for (const t of g.initializers) define(facts, t.name, new Fact('free', [...t.dims], null, 1, t.values), 'an initializer');
  for (const v of g.inputs) {
    if (facts.has(v.name)) continue;      // an initializer listed as an input (old IR): its stored value is used
    define(facts, v.name, inputFact(v, length), 'a graph input');
  }
  g.nodes.forEach((node, i) => {
    at.node = i;
    const outs = checkNode(node, i, facts);
    node.outputs.forEach((name, k) => { if (name && k < outs.length) define(facts, name, outs[k], `node #${i}`); });
    if (lines) lines.push(`${i} ${node.op} ${outs.map((f) => f.describe()).join(' ')}`);
  });
  at.node = null;
  checkOutput(g.outputs, facts, nSteps);
}

/** The verdict on a parsed model (onnx_proto.js's readModel). */
export function checkModel(model, length, nSteps = null, { trace = false } = {}) {
  const lines = trace ? [] : null;
  const at = { node: null };
  try {
    check(model, length, nSteps, lines, at);
  } catch (e) {
    if (!(e instanceof Refuse)) throw e;
    return { ok: false, code: e.code, message: e.message, node: at.node, trace: lines || [] };
  }
  return { ok: true, code: null, message: '', node: null, trace: lines || [] };
}

/** The verdict on ONNX model bytes whose input_ids are [batch, length]. */
export function checkGraph(bytes, length, nSteps = null, options = {}) {
  let model;
  try {
    model = readModel(bytes);
  } catch (e) {
    if (!(e instanceof ProtoError)) throw e;
    return { ok: false, code: 'rows-format', message: `the graph cannot be read unambiguously: ${e.message}`, node: null, trace: [] };
  }
  return checkModel(model, length, nSteps, options);
}
