// Provenance is a proof in the JavaScript runtime too (tests/test_provenance.py): every computed
// cell records the batch and the row of the stepper's output it was gathered from, and holds
// that row's symbol or flag; every input cell is a digit or sign of a number of the problem, at
// the position it claims, once.  Fault injection: a digit the runtime changes itself is caught.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SYMBOLS } from '../codes.js';
import { parse } from '../expr.js';
import { solve } from '../solve.js';
import { Sheet } from '../sheet.js';
import { referenceStepper } from './replay.mjs';

const table = referenceStepper();

function recording() {
  const outputs = [];
  const stepper = async (views) => { const steps = await table(views); outputs.push(steps); return steps; };
  return { stepper, outputs };
}

function literals(expr) {
  const out = [];
  const walk = (n) => {
    if (n[0] === 'num') out.push((n[2] ? '-' : '+') + [...(n[1].replace(/^0+/, '') || '0')].reverse().join(''));
    else if (n[0] === 'neg') walk(n[1]);
    else if (n[0] === 'bin') { walk(n[2]); walk(n[3]); } else n[2].forEach(walk);
  };
  walk(parse(expr));
  return out;
}

function errors(expr, ws, outputs) {
  const want = literals(expr), claimed = new Set(), out = [];
  const ids = new Set();
  for (const s of ws.sheets) for (const r of s.rows) { if (r.signId >= 0) ids.add(r.signId); for (const c of r.ids) if (c >= 0) ids.add(c); }
  for (const id of ids) {
    const o = ws.store.origin(id);
    const sym = SYMBOLS[ws.store.sym[id]];
    if (o.kind === 0) {
      const key = `${o.literal} ${o.row}`;
      if (!want[o.literal] || want[o.literal][o.row] !== sym || claimed.has(key)) out.push(`input cell ${id} holds ${sym}`);
      claimed.add(key);
    } else {
      const step = outputs[o.batch]?.[o.row];
      if (!step || step[o.kind - 1] !== sym) out.push(`cell ${id} holds ${sym}, batch ${o.batch} row ${o.row} is ${step}`);
    }
  }
  return out;
}

const PROBLEMS = ['987654321 + -123456789', '-1234 * 5678', '-98765 // 43', 'sqrt(123456789)', 'gcd(-462, 1071)',
  `${'1234567890'.repeat(6)} * -111222333444555666777888999000`];

for (const parallel of [true, false]) {
  test(`every cell is a stepper output row or a problem digit (${parallel ? 'parallel' : 'sequential'})`, async () => {
    for (const expr of PROBLEMS) {
      const { stepper, outputs } = recording();
      const r = await solve(expr, stepper, { parallel });
      assert.equal(outputs.length, r.batches);
      assert.deepEqual(errors(expr, r.sheet, outputs), [], expr);
    }
  });
}

test('a digit the runtime writes itself is caught', async () => {
  const original = Sheet.writeSteps;
  let done = null;
  Sheet.writeSteps = (row, cols, batch, rows, field) => {
    original(row, cols, batch, rows, field);
    if (done === null && field === 'sym' && cols.length > 3) {
      done = row.ids[cols[2]];
      row.store.sym[done] = (row.store.sym[done] + 1) % 10;
    }
  };
  try {
    const { stepper, outputs } = recording();
    const r = await solve('987654321 + 123456789', stepper);
    assert.ok(done !== null);
    assert.ok(errors('987654321 + 123456789', r.sheet, outputs).some((e) => e.startsWith(`cell ${done} holds`)));
  } finally {
    Sheet.writeSteps = original;
  }
});
