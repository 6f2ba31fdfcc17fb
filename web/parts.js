// What a batch is made of (a port of sketchpad/parts.py): the parts a procedure yields, and
// the runtime's modes.  A procedure yields a list of parts and receives one result per part:
// Ask one view (its result: the StepRow it received), Presented a block of views (its result:
// the stepper output row of each of its distinct views), and scans.js's carry-select scan (its
// followed, written run).  A part says how many views it presents (size, repeats included)
// and which distinct views those are (distinct(), view codes); codes() lists them all in
// order, and probes() where each was read, only for traces and for dedup = false runs.

import C from './generated/constants.json' with { type: 'json' };
import { viewOf } from './codes.js';
import { StepRow } from './sheet.js';

// The states each scan family can pass between columns: [operation, carry] (parts.py's FAMILIES).
export const FAMILIES = C.families;
// A partial-product row a x d: the carries that can enter a column (parts.py's MUL_CARRIES).
export const MUL_CARRIES = C.mul_carries;

// Parallel (carry-select) mode and the speculative batch being followed: procedure code runs
// only inside gen.next(), which the runtime calls synchronously right after setting these, so
// interleaved solves (each awaiting its stepper) cannot see each other's.
export const MODE = { parallel: true, speculation: null, run: null };

/** Python's repr of a string or a tuple of strings, for messages that match the Python ones. */
export function pyRepr(x) {
  if (Array.isArray(x)) return `(${x.map(pyRepr).join(', ')}${x.length === 1 ? ',' : ''})`;
  return `'${x}'`;
}

/** A view plus where its cells were read: null or three entries, each null or [row, column]
 *  (column: an int, "sign" or null), as Python's Probe.where. */
export class Probe {
  constructor(view, where) { this.view = view; this.where = where; }
}

export class Ask {
  constructor(code, where = null) { this.code = code; this.where = where; }
  get size() { return 1; }
  distinct() { return Int32Array.of(this.code); }
  codes() { return Int32Array.of(this.code); }
  probes() { return [new Probe(viewOf(this.code), this.where)]; }
  lastWhere() { return this.where; }
  static distinctAll(parts) { return Int32Array.from(parts, (p) => p.code); }
  static resolve(parts, batch, lookup) { return parts.map((p) => new StepRow(batch, lookup[p.code])); }
}

export class Presented {
  /** distinct: the block's distinct view codes; size: how many it presents; codes(), where():
   *  every presented code and where each was read, in order (for traces and drawing). */
  constructor(distinct, size = null, codes = null, where = null) {
    this.distinctCodes = Int32Array.from(distinct);
    this.size = size ?? this.distinctCodes.length;
    this.codesOf = codes;
    this.whereOf = where;
  }

  distinct() { return this.distinctCodes; }
  codes() { return this.codesOf ? this.codesOf() : this.distinctCodes; }

  probes() {
    const wheres = this.whereOf ? this.whereOf() : [];
    return Array.from(this.codes(), (c, i) => new Probe(viewOf(c), wheres[i] ?? null));
  }

  lastWhere() { return this.whereOf && this.size ? this.whereOf()[this.size - 1] : null; }

  static distinctAll(parts) {
    const out = new Int32Array(parts.reduce((n, p) => n + p.distinctCodes.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p.distinctCodes, at); at += p.distinctCodes.length; }
    return out;
  }

  static resolve(parts, batch, lookup) {
    return parts.map((p) => ({ batch, codes: p.distinctCodes, rows: Int32Array.from(p.distinctCodes, (c) => lookup[c]) }));
  }
}
