// The page highlights the cells a view was read from (runtime.positions).  Check that what is
// drawn at those positions is what the view holds: for every probe of every batch, the first
// two cells (the operands; the third may be a carry-select state rather than a sheet cell).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { positions, rowIndex, solve } from '../solve.js';
import { referenceStepper } from './replay.mjs';

const stepper = referenceStepper();
const PROBLEMS = ['-98765 + 12345', '5 - 8', '31415926 * -2718', '98765432 // -1234', '-9876 % 123',
  'sqrt(123456789)', 'gcd(1071, 462)', '-(3 * 4)', '(12 + 34) * -(56 - 78) // 9'];

for (const parallel of [true, false]) {
  test(`highlighted cells hold the symbols their view read (${parallel ? 'parallel' : 'sequential'})`, async () => {
    let checked = 0;
    for (const expr of PROBLEMS) {
      const onBatch = (probes, steps, run) => {
        const ws = run.worksheet;
        const index = rowIndex(ws);
        for (const p of probes) {
          const pos = positions(ws, p.where, index);
          for (const k of [0, 1]) {
            if (!pos[k] || pos[k].col === null) continue;     // a whole row (DQ reads a row's final borrow)
            const row = ws.sheets[pos[k].block].rows[pos[k].row];
            const drawn = pos[k].col === 'sign' ? row.sign.sym : row.sym(pos[k].col);
            assert.equal(drawn, p.view[k + 1], `${expr}: view ${p.view.join(' ')} cell ${k + 1} drawn as ${drawn}`);
            checked++;
          }
        }
      };
      await solve(expr, stepper, { parallel, onBatch });
    }
    assert.ok(checked > 500, `only ${checked} cells checked`);
  });
}

test('positions of a probe without a place are empty', () => {
  assert.deepEqual(positions({ sheets: [] }, null), [null, null, null]);
});
