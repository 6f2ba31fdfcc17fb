// The Python runtime's golden traces (derive/golden.py), replayed by the JavaScript
// runtime with the reference table: every batch's views, steps and sheet positions, the final
// worksheet cell by cell (symbol and origin), the counters and the result must be equal.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { viewKey } from '../symbols.js';
import { differences, goldenFiles, GOLDEN_DIR, loadTrace, referenceStepper, replay, viewRows } from './replay.mjs';

const files = goldenFiles();
const stepper = referenceStepper();

test('the golden directory holds the traces its index lists', () => {
  const index = JSON.parse(readFileSync(`${GOLDEN_DIR}index.json`, 'utf8'));
  assert.deepEqual(index.map((e) => e.file), files);
  assert.ok(files.length >= 100, `only ${files.length} traces`);
  const modes = new Set(index.map((e) => e.mode));
  assert.deepEqual([...modes].sort(), ['parallel', 'sequential']);
});

for (const file of files) {
  const trace = loadTrace(file);
  test(`${file}: ${trace.mode} ${trace.expr.slice(0, 50)}`, async () => {
    const got = await replay(trace, stepper);
    const diffs = differences(trace, got);
    assert.deepEqual(diffs, [], diffs.join('\n'));
    assert.deepEqual(got, trace);      // and nothing the difference list does not look at
  });
}

// Witness problems chosen so that, with the traces above, every view of V is replayed.
const witnesses = JSON.parse(readFileSync(`${GOLDEN_DIR}witnesses.json`, 'utf8'));

test(`${witnesses.length} witness traces replay equal`, async () => {
  for (const trace of witnesses) {
    const diffs = differences(trace, await replay(trace, stepper));
    assert.deepEqual(diffs, [], `${trace.expr}\n${diffs.join('\n')}`);
  }
});

test('the golden traces together present every view of V, and no other', () => {
  const V = new Set(viewRows().map((r) => viewKey(r.view)));
  const seen = new Set();
  for (const t of [...files.map(loadTrace), ...witnesses]) for (const b of t.batches) b.views.forEach((v) => seen.add(v));
  assert.deepEqual([...seen].filter((v) => !V.has(v)), []);
  assert.deepEqual([...V].filter((v) => !seen.has(v)), []);
  assert.equal(seen.size, V.size);
});
