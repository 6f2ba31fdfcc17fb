// Shared by the golden-trace tests: load the golden files and the view table, replay a trace
// with the JavaScript runtime, and list every difference from what Python recorded.

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { solve } from '../solve.js';
import { Row } from '../sheet.js';
import { stepKey, viewKey } from '../symbols.js';
import { parseViewsJsonl, tableStepper } from '../reference.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const GOLDEN_DIR = `${HERE}../golden/`;
export const VIEWS_PATH = `${HERE}../../sketchpad/data/views.jsonl`;

export function viewRows() { return parseViewsJsonl(readFileSync(VIEWS_PATH, 'utf8')); }
export function referenceStepper() { return tableStepper(viewRows()); }

export function goldenFiles() {
  return readdirSync(GOLDEN_DIR).filter((f) => /^trace-\d+\.json$/.test(f)).sort();
}
export function loadTrace(file) { return JSON.parse(readFileSync(GOLDEN_DIR + file, 'utf8')); }

// The same serialisation as derive/golden.py: positions are [block, row, column] of rows
// drawn on the worksheet, null for anything else.
function rowMap(ws) {
  const m = new Map();
  if (ws) ws.sheets.forEach((s, b) => s.rows.forEach((r, j) => { if (!m.has(r)) m.set(r, [b, j]); }));
  return m;
}
function position(pos, rows) {
  if (!pos) return null;
  const [obj, col] = pos;
  const at = obj instanceof Row ? rows.get(obj) : undefined;
  return at ? [at[0], at[1], col] : null;
}
function origin(cell) {
  if (!cell) return '.';
  if (cell.origin === 'input') return 'i';
  return cell.field === 'sym' ? 's' : 'f';
}
export function serialiseWorksheet(ws) {
  return ws.sheets.map((s) => ({
    title: s.title,
    rows: s.rows.map((r) => ({
      name: r.name, offset: r.offset, text: r.text(),
      origins: r.origins(),
      sign: r.sign ? r.sign.sym : null, sign_origin: r.sign ? origin(r.sign) : null,
    })),
    text: s.text(),
  }));
}

/** Solve the trace's expression with the JS runtime and record it in the golden format. */
export async function replay(trace, stepper = referenceStepper()) {
  const raw = [];
  const onBatch = (probes, steps) => { raw.push(probes.map((p, i) => [p.view, p.where, steps[i]])); };
  const limits = trace.max_digits ? { maxDigits: trace.max_digits } : {};
  const out = { expr: trace.expr, mode: trace.mode };
  if (trace.max_digits) out.max_digits = trace.max_digits;
  let ws = null;
  try {
    const r = await solve(trace.expr, stepper, { parallel: trace.mode === 'parallel', onBatch, limits });
    ws = r.sheet;
    out.result = r.value;
    out.counters = { forward_passes: r.forwardPasses, views_presented: r.viewsPresented, batches: r.batches, views_used: r.distinctViews };
  } catch (e) {
    if (e.name !== 'InputError') throw e;
    out.error = e.message;
    out.counters = { forward_passes: e.counters.forwardPasses, views_presented: e.counters.viewsPresented, batches: e.counters.batches, views_used: e.counters.views.size };
  }
  const rows = rowMap(ws);
  out.batches = raw.map((b) => ({
    views: b.map(([v]) => viewKey(v)),
    steps: b.map(([, , s]) => stepKey(s)),
    where: b.map(([, w]) => (w ? w.map((p) => position(p, rows)) : null)),
  }));
  out.worksheet = ws ? serialiseWorksheet(ws) : null;
  return out;
}

/** Every difference between two traces, as readable lines (empty when they are equal). */
export function differences(want, got) {
  const diffs = [];
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  for (const key of ['expr', 'mode', 'result', 'error', 'counters']) {
    if (!same(want[key], got[key])) diffs.push(`${key}: want ${JSON.stringify(want[key])}, got ${JSON.stringify(got[key])}`);
  }
  if (want.batches.length !== got.batches.length) diffs.push(`batches: want ${want.batches.length}, got ${got.batches.length}`);
  const n = Math.min(want.batches.length, got.batches.length);
  for (let k = 0; k < n; k++) {
    for (const f of ['views', 'steps', 'where']) {
      const a = want.batches[k][f], b = got.batches[k][f];
      if (same(a, b)) continue;
      const i = a.findIndex((x, j) => !same(x, b[j]));
      diffs.push(`batch ${k} ${f}[${i < 0 ? a.length : i}]: want ${JSON.stringify(a[i])}, got ${JSON.stringify(b[i])}`);
    }
    if (diffs.length > 5) break;
  }
  if (!same(want.worksheet, got.worksheet)) {
    const ws = want.worksheet || [], gs = got.worksheet || [];
    if (!want.worksheet || !got.worksheet || ws.length !== gs.length) diffs.push(`worksheet: want ${ws.length} blocks, got ${gs.length}`);
    else {
      ws.forEach((s, b) => {
        if (!same(s, gs[b])) diffs.push(`worksheet block ${b} (${s.title}):\nwant\n${s.text}\ngot\n${gs[b].text}\n${JSON.stringify(s.rows.find((r, j) => !same(r, gs[b].rows[j])))}`);
      });
    }
  }
  return diffs;
}
