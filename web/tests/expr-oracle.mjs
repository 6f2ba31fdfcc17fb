// What web/expr.js says about each expression, for tests/test_expr.py to compare with Python:
// one JSON string a line on stdin -> one JSON line on stdout, {expr, tree} or {expr, error, column}
// (the shared vectors' form, under the vectors' limit of 20 digits).
//   node web/tests/expr-oracle.mjs

import { createInterface } from 'node:readline';
import { caretLines, parse } from '../expr.js';

const withCaret = (v) => (v.column === null ? v : { ...v, caret: caretLines(v.expr, v.column) });

for await (const line of createInterface({ input: process.stdin })) {
  const expr = JSON.parse(line);
  let out;
  try {
    out = { expr, tree: parse(expr, { maxDigits: 20 }) };
  } catch (e) {
    out = e.name === 'InputError' ? withCaret({ expr, error: e.message, column: e.column ?? null }) : { expr, crash: String(e.stack) };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
