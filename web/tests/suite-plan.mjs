// Prints the suite's plan as the page draws it (web/certify/run.js: compositions and chunks) for
// the cases tests/test_resume.py gives, for Python to compare with certify/run.py's own.
//   node web/tests/suite-plan.mjs CASES.json      CASES: [{n, seed, maxBatch}]

import { readFileSync } from 'node:fs';
import { chunkGroups, compositions } from '../certify/run.js';

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const out = cases.map(({ n, seed, maxBatch }) => compositions(n, seed, null, maxBatch).map((r) => ({
  label: r.label, order: r.shuffled ? r.order : null, sizes: r.sizes, chunks: chunkGroups(r.sizes),
})));
process.stdout.write(JSON.stringify(out));
