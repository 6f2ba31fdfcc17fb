// The golden comparison must be able to fail: a trace altered in any one place (a step, a
// view, a position, a counter, a sheet cell, the result) no longer matches the JS replay,
// and a stepper that answers from an altered trace makes the runtime write something else.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StepperFault } from '../errors.js';
import { stepFromKey, viewKey } from '../symbols.js';
import { differences, goldenFiles, loadTrace, referenceStepper, replay } from './replay.mjs';

const pick = (expr, mode) => {
  const file = goldenFiles().find((f) => { const t = loadTrace(f); return t.expr === expr && t.mode === mode; });
  assert.ok(file, `no golden trace for ${expr} (${mode})`);
  return loadTrace(file);
};
const clone = (x) => JSON.parse(JSON.stringify(x));

/** A stepper that answers each batch from a trace, checking the views are the trace's: the
 *  runtime asks each distinct view of a batch once (in the order of their codes). */
function traceStepper(trace) {
  let k = 0;
  return async (views) => {
    const b = trace.batches[k++];
    if (!b) throw new StepperFault(`the trace has no batch ${k - 1}`);
    const first = new Map();
    b.views.forEach((v, i) => { if (!first.has(v)) first.set(v, i); });
    assert.deepEqual(views.map(viewKey).sort(), [...first.keys()].sort(), `batch ${k - 1} views`);
    assert.equal(new Set(views.map(viewKey)).size, views.length, `batch ${k - 1}: a view asked twice`);
    return views.map((v) => stepFromKey(b.steps[first.get(viewKey(v))]));
  };
}

test('an unaltered trace replays equal, with the table stepper and answered from the trace', async () => {
  const t = pick('999 * 99', 'sequential');
  assert.deepEqual(differences(t, await replay(t)), []);
  assert.deepEqual(differences(t, await replay(t, traceStepper(t))), []);
});

test('one changed step symbol in a trace fails the comparison', async () => {
  const t = pick('999 * 99', 'sequential');
  const altered = clone(t);
  const k = altered.batches.findIndex((b) => /^[0-8]/.test(b.steps[0]));
  const s = altered.batches[k].steps[0];
  altered.batches[k].steps[0] = String(Number(s[0]) + 1) + s.slice(1);
  const diffs = differences(altered, await replay(t));
  assert.ok(diffs.some((d) => d.startsWith(`batch ${k} steps[0]`)), diffs.join('\n'));
});

test('a runtime fed the altered step writes a different sheet and result', async () => {
  const t = pick('-12 * 34', 'sequential');
  const altered = clone(t);
  // The first MUL step writes a product digit; change that digit.
  const k = altered.batches.findIndex((b) => b.views[0].startsWith('MUL') && /^[0-8]/.test(b.steps[0]));
  const s = altered.batches[k].steps[0];
  altered.batches[k].steps[0] = String(Number(s[0]) + 1) + s.slice(1);
  const got = await replay(t, traceStepper(altered));
  const diffs = differences(t, got);
  assert.ok(diffs.some((d) => d.startsWith('result')), diffs.join('\n'));
  assert.ok(diffs.some((d) => d.startsWith('worksheet')), diffs.join('\n'));
  assert.notEqual(got.result, t.result);
});

test('changing a step\'s next operation changes the path the runtime takes', async () => {
  const t = pick('5 - 8', 'sequential');
  const altered = clone(t);
  altered.batches[0].steps[0] = altered.batches[0].steps[0].replace(/ \S+$/, ' ADD');   // CMP -> ADD
  // The runtime adds instead of comparing, so its next batch is not the trace's next batch.
  await assert.rejects(replay(t, traceStepper(altered)), { message: /batch 1 views/ });
});

for (const [what, alter] of [
  ['a view', (t) => { t.batches[1].views[0] = t.batches[1].views[0].replace(/.$/, '9'); }],
  ['a position', (t) => { t.batches[1].where[0][0][2] += 1; }],
  ['a counter', (t) => { t.counters.forward_passes += 1; }],
  ['a batch', (t) => { t.batches.pop(); }],
  ['a sheet cell', (t) => { const r = t.worksheet[0].rows.at(-1); r.text = r.text.replace(/\d/, (d) => String((+d + 1) % 10)); }],
  ['a cell origin', (t) => { const r = t.worksheet[0].rows.at(-1); r.origins = r.origins.replace('s', 'i'); }],
  ['the result', (t) => { t.result = `${t.result}0`; }],
]) {
  test(`changing ${what} fails the comparison`, async () => {
    const t = pick('1234 * 5', 'parallel');
    const altered = clone(t);
    alter(altered);
    assert.notDeepEqual(differences(altered, await replay(t)), []);
  });
}

test('the table stepper refuses a view that is not in the table', async () => {
  const stepper = referenceStepper();
  assert.deepEqual(await stepper([['ADD', '1', '2', '_']]), [['3', '_', 'ADD']]);
  await assert.rejects(stepper([['ADD', '1', '2', '7']]), StepperFault);
  await assert.rejects(stepper([['NOPE', '_', '_', '_']]), /not in the view table/);
});
