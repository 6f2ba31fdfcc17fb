// Replays the tampering matrix that tests/test_policy.py writes (one JSON file: the view set
// rows and the cases) through the page's rule, web/certify/policy.js, and prints
// {case name: [reason codes]} for the Python test to compare with its own rule's.
//   node web/tests/policy-matrix.mjs MATRIX.json

import { readFileSync } from 'node:fs';
import { check, viewSetOf } from '../certify/policy.js';

const { rows, cases } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const viewSet = await viewSetOf(rows);
const out = {};
for (const c of cases) out[c.name] = check(c.cert, c.expect, viewSet).reasons.map(([code]) => code);
console.log(JSON.stringify(out));
