// Runs the page's row-independence check (web/certify/rows.js) and ONNX reader
// (web/onnx_proto.js) on the graphs tests/test_rows.py lists, and prints for each its verdict,
// its per-node trace and a summary of what the reader read, for Python to compare with its own.
//   node web/tests/rows-vectors.mjs CASES.json      CASES: [{file, length, steps}]

import { readFileSync } from 'node:fs';
import { externalFiles, readModel } from '../onnx_proto.js';
import { checkGraph } from '../certify/rows.js';

function summary(bytes) {
  let m;
  try {
    m = readModel(bytes);
  } catch (e) {
    return { error: e.message };
  }
  const g = m.graph;
  return {
    ir_version: m.ir_version, opsets: m.opsets, functions: m.functions, external: externalFiles(m),
    inputs: g.inputs, outputs: g.outputs,
    initializers: g.initializers.map((t) => [t.name, t.data_type, t.dims, t.values, t.external]),
    nodes: g.nodes.map((n) => [n.op, n.domain, n.name, n.inputs, n.outputs,
      Object.fromEntries(Object.entries(n.attrs).map(([k, a]) => [k, a.type]))]),
  };
}

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const out = cases.map((c) => {
  const bytes = new Uint8Array(readFileSync(c.file));
  return { verdict: checkGraph(bytes, c.length, c.steps, { trace: true }), summary: summary(bytes) };
});
console.log(JSON.stringify(out));
