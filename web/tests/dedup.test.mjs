// Each distinct view of a batch goes through the stepper once (web/runtime.js): with the
// deduplication on and off the sheets, answers and presented views are identical; the stepper
// is only ever asked distinct views; and the parallel quotient and root digits write exactly
// the sequential run's sheet.  Fault injection: a stepper wrong on one view leads a speculative
// block outside its batch, and the run then equals the sequential run all the same.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { solve } from '../solve.js';
import { viewKey, stepKey, stepFromKey } from '../symbols.js';
import { referenceStepper, serialiseWorksheet } from './replay.mjs';

const table = referenceStepper();

function spy(inner) {
  const calls = [];
  const stepper = async (views) => {
    calls.push(views.map(viewKey));
    return inner(views);
  };
  return { stepper, calls };
}

async function run(expr, opts, inner = table) {
  const { stepper, calls } = spy(inner);
  const presented = [];
  const onBatch = (probes, steps) => { presented.push(probes.map((p, i) => `${viewKey(p.view)}>${stepKey(steps[i])}`)); };
  try {
    const r = await solve(expr, stepper, { ...opts, onBatch });
    return { value: r.value, sheet: serialiseWorksheet(r.sheet), presented, calls, r };
  } catch (e) {
    return { value: `${e.name}: ${e.message}`, sheet: e.sheet ? serialiseWorksheet(e.sheet) : null, presented, calls,
      r: e.counters ? { fallbacks: e.counters.fallbacks } : null };
  }
}

const PROBLEMS = ['98765432109876 // -1234567', '-98765432109876 % 1234567', 'sqrt(98765432109876543)',
  'gcd(12200160415121876738, 7540113804746346429)', '31415926535 * -2718281828', '-99999 + 99999',
  '123456789 - 987654321', '(12 + 34) * (56 - 78) // 9', 'gcd(0, 17)', 'sqrt(0)', '3 // 7'];

for (const parallel of [true, false]) {
  test(`dedup on and off: same sheets, answers and presented views (${parallel ? 'parallel' : 'sequential'})`, async () => {
    for (const expr of PROBLEMS) {
      const on = await run(expr, { parallel, dedup: true });
      const off = await run(expr, { parallel, dedup: false });
      assert.equal(on.value, off.value, expr);
      assert.deepEqual(on.sheet, off.sheet, expr);
      assert.deepEqual(on.presented, off.presented, expr);
      for (const batch of on.calls) assert.equal(new Set(batch).size, batch.length, `${expr}: a view asked twice in one batch`);
      assert.equal(on.r.forwardPasses, on.calls.reduce((n, b) => n + b.length, 0));
      assert.equal(on.r.viewsPresented, off.r.forwardPasses);
      assert.equal(on.r.viewsPresented, on.presented.reduce((n, b) => n + b.length, 0));
      assert.equal(on.r.fallbacks, 0, expr);
    }
  });
}

test('the parallel quotient and root digits write the sequential run\'s sheet', async () => {
  for (const expr of PROBLEMS.filter((e) => !e.includes('*'))) {
    const par = await run(expr, { parallel: true });
    const seq = await run(expr, { parallel: false });
    assert.equal(par.value, seq.value, expr);
    assert.deepEqual(par.sheet, seq.sheet, expr);
    assert.ok(par.r.batches < seq.r.batches, expr);
  }
});

test('a stepper wrong on some views: the parallel run falls back and equals the sequential run', async () => {
  // wrong(view key, right step) -> a wrong step, or null where the stepper is right
  const wrongWhere = (wrong) => async (views) => {
    const steps = await table(views);
    return views.map((v, i) => { const w = wrong(viewKey(v), stepKey(steps[i])); return w ? stepFromKey(w) : steps[i]; });
  };
  const cases = [
    ['98765432109876 // 1234567', (v, s) => (v === 'SUB 94_' ? '0_ SUB' : null)],     // a wrong trial digit
    ['98765432109876 // 1234567', (v, s) => (v.startsWith('SUB') && s[0] === '5' ? '_' + s.slice(1) : null)],  // blanks: outside the batch
    ['98765432109876 // 1234567', (v) => (v === 'DQ __' ? '1_ HALT' : null)],          // a digit declared final too early
    ['sqrt(98765432109876543)', (v) => (v === 'ADD2 9__' ? '1_ HALT' : null)],         // the odd number goes wrong
    ['sqrt(98765432109876543)', (v, s) => (v.startsWith('INC') ? s[0] + '_ INC' : null)],  // carries past the tens: outside the batch
    ['gcd(1071, 462)', (v) => (v === 'DQ 1_' ? '0_ SUB' : null)],                       // a count that never ends
  ];
  let fellBack = 0;
  for (const [expr, wrong] of cases) {
    const par = await run(expr, { parallel: true }, wrongWhere(wrong));
    const seq = await run(expr, { parallel: false }, wrongWhere(wrong));
    assert.equal(par.value, seq.value, `${expr} ${wrong}`);
    assert.deepEqual(par.sheet, seq.sheet, `${expr} ${wrong}`);
    if (par.r && par.r.fallbacks > 0) fellBack++;
  }
  assert.ok(fellBack >= 2, `${fellBack} cases fell back`);
});
