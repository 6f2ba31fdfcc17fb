// The reference stepper as a table: every view of V with its step, as Python's reference
// stepper answers it (sketchpad/data/views.jsonl, or GET /api/views).  A view outside the
// table is an error, never a guess: it would be a hole in the view set.

import { StepperFault } from './errors.js';
import { viewKey } from './symbols.js';

/** rows: [{view: [op,a,b,c], step: [sym,flag,next]}] -> async stepper(views) -> steps. */
export function tableStepper(rows) {
  const table = new Map(rows.map((r) => [viewKey(r.view), r.step]));
  const stepper = async (views) => views.map((v) => {
    const s = table.get(viewKey(v));
    if (!s) throw new StepperFault(`view ${viewKey(v)} is not in the view table`);
    return s;
  });
  stepper.size = table.size;
  return stepper;
}

/** Parse views.jsonl text (one {view, step, witness} object a line). */
export function parseViewsJsonl(text) {
  return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}
