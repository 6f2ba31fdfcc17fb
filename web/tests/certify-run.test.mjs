// The page's certification suite (web/certify/run.js) compares every run, not only the first:
// a model wrong only when it sees a batch of 97 views (here: the shipped reference steps as
// logits, with one view's logits favouring another step in a batch of 97) fails, with the run
// that disagreed named; the same model right at every size passes.  Mirrors
// tests/test_certify_runs.py.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { certifyInPage } from '../certify/run.js';
import { stepKey, viewKey } from '../symbols.js';
import { viewRows } from './replay.mjs';

const rows = viewRows();
const steps = [...new Map(rows.map((r) => [stepKey(r.step), r.step])).values()];
const index = new Map(steps.map((s, i) => [stepKey(s), i]));
const want = new Map(rows.map((r) => [viewKey(r.view), index.get(stepKey(r.step))]));

/** Logits of the reference step (10 over the others); in a batch of `badSize` views, the view
 *  `victim` favours the step after its own instead. */
function tableModel(badSize, victim) {
  return {
    steps,
    manifest: { 'onnx/model.json': '0'.repeat(64) },
    info: { onnxUrl: 'http://127.0.0.1/model/onnx/model.onnx', gate: 1 },
    meta: {},
    environment: { backend: 'browser' },
    rows: null,
    async logits(views) {
      const data = new Float32Array(views.length * steps.length);
      views.forEach((v, r) => {
        let k = want.get(viewKey(v));
        if (views.length === badSize && viewKey(v) === victim) k = (k + 1) % steps.length;
        data[r * steps.length + k] = 10;
      });
      return { data };
    },
  };
}

test('a model wrong only at batch size 97 fails the page suite, naming the run', async () => {
  const victim = viewKey(rows[0].view);    // the first view of V: in the first batch of 97
  const cert = await certifyInPage({ model: tableModel(97, victim), views: rows, batchSizes: [rows.length, 97] });
  const res = cert.predicate.result;
  assert.equal(res.passed, false);
  assert.equal(res.failed_views, 1);
  assert.equal(res.failures[0].view, victim);
  assert.equal(res.failures[0].got, stepKey(rows[0].step));   // the first run was right
  assert.notEqual(res.failures[0].got_by_run['batch 97'], stepKey(rows[0].step));
  assert.equal(cert.predicate.drift.max_abs_logit_diff, 10);
});

test('the same model right at every batch size passes', async () => {
  const cert = await certifyInPage({ model: tableModel(-1, ''), views: rows, batchSizes: [rows.length, 97] });
  assert.equal(cert.predicate.result.passed, true);
  assert.equal(cert.predicate.result.failed_views, 0);
  assert.equal(cert.predicate.drift.max_abs_logit_diff, 0);
});
