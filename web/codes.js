// The alphabets as small integers (a port of sketchpad/codes.py), so that a batch of views is
// one Int32Array.  A cell symbol is a code below 256: 0-17 are CELL_SYMBOLS (0-9 the digits
// themselves).  A view (op, a, b, c) of those symbols is ((op * 18 + a) * 18 + b) * 18 + c,
// a step (sym, flag, next) (sym * 18 + flag) * 21 + next (next: index in NEXT_WORDS, whose
// first entries are the operations).  What a wrong stepper emits outside the alphabet (a
// symbol, a next word, a step, a view reading such a symbol) gets a code after the base ones,
// given out as it is met.  View and step arrays of strings stay the interface's vocabulary.

import C from './generated/constants.json' with { type: 'json' };
import { StepperFault } from './errors.js';

export const CELL_SYMBOLS = C.cell_symbols;
export const OPS = C.op_order;
export const NSYM = CELL_SYMBOLS.length;
export const NNEXT = C.next_words.length;
export const N_BASE_VIEWS = OPS.length * NSYM ** 3;
export const N_BASE_STEPS = NSYM * NSYM * NNEXT;
export const N_VIEWS = N_BASE_VIEWS + 4096;
export const N_STEPS = N_BASE_STEPS + 4096;

export const SYMBOLS = [...CELL_SYMBOLS];           // symbol code -> symbol (grows, at most 256)
export const NEXTS = [...C.next_words];            // next code -> word (grows)
const SYM = new Map(CELL_SYMBOLS.map((s, i) => [s, i]));
export const OP = new Map(OPS.map((o, i) => [o, i]));
const NEXT = new Map(C.next_words.map((w, i) => [w, i]));
export const BLANK_CODE = SYM.get(C.symbols.BLANK);

export const STEP_SYM = new Uint8Array(N_STEPS);
export const STEP_FLAG = new Uint8Array(N_STEPS);
export const STEP_NEXT = new Uint8Array(N_STEPS);
export const STEPS = [];                           // step code -> [sym, flag, next]
const STEP_CODE = new Map();                      // "sym flag next" -> code
for (let k = 0; k < N_BASE_STEPS; k++) {
  STEP_SYM[k] = Math.floor(k / (NSYM * NNEXT));
  STEP_FLAG[k] = Math.floor(k / NNEXT) % NSYM;
  STEP_NEXT[k] = k % NNEXT;
  const step = [CELL_SYMBOLS[STEP_SYM[k]], CELL_SYMBOLS[STEP_FLAG[k]], C.next_words[STEP_NEXT[k]]];
  STEPS.push(step);
  STEP_CODE.set(step.join(' '), k);
}
export const SCAN_NEXT = new Uint8Array(256);       // next code -> a column operation?
for (const w of C.scan_ops) SCAN_NEXT[NEXT.get(w)] = 1;
const OTHER_VIEWS = [];                            // view codes N_BASE_VIEWS + k
const OTHER_VIEW_CODE = new Map();
const STATE_TABLES = new Map();

/** A symbol's code; one outside the alphabet gets the next free code. */
export function symCode(s) {
  let code = SYM.get(s);
  if (code === undefined) {
    if (typeof s !== 'string' || !s) throw new StepperFault(`stepper emitted ${JSON.stringify(s)}, which is not a symbol`);
    if (SYMBOLS.length >= 256) throw new StepperFault('the stepper emitted too many symbols outside the alphabet');
    code = SYMBOLS.length;
    SYM.set(s, code);
    SYMBOLS.push(s);
  }
  return code;
}

function nextCode(w) {
  let code = NEXT.get(w);
  if (code === undefined) {
    if (typeof w !== 'string' || !w) throw new StepperFault(`stepper named ${JSON.stringify(w)} as its next operation`);
    if (NEXTS.length >= 256) throw new StepperFault('the stepper named too many next operations outside the alphabet');
    code = NEXTS.length;
    NEXT.set(w, code);
    NEXTS.push(w);
  }
  return code;
}

/** The code of a step [sym, flag, next] (or {sym, flag, next}). */
export function stepCode(s) {
  const step = Array.isArray(s) && s.length === 3 ? s : s && typeof s === 'object' && 'sym' in s ? [s.sym, s.flag, s.next] : null;
  if (!step) throw new StepperFault(`stepper returned ${JSON.stringify(s)}, not a step [sym, flag, next]`);
  const key = step.join(' ');
  let code = STEP_CODE.get(key);
  if (code !== undefined && step.every((x) => typeof x === 'string')) return code;
  const sym = symCode(step[0]), flag = symCode(step[1]), nxt = nextCode(step[2]);
  if (sym < NSYM && flag < NSYM && nxt < NNEXT) return (sym * NSYM + flag) * NNEXT + nxt;
  code = STEPS.length;
  if (code >= N_STEPS) throw new StepperFault('the stepper emitted too many steps outside the alphabet');
  STEP_SYM[code] = sym; STEP_FLAG[code] = flag; STEP_NEXT[code] = nxt;
  STEPS.push([...step]);
  STEP_CODE.set(key, code);
  STATE_TABLES.clear();
  return code;
}

/** A view code from the codes of its operation and cells. */
export function code4(op, a, b, c) {
  if (a < NSYM && b < NSYM && c < NSYM) return ((op * NSYM + a) * NSYM + b) * NSYM + c;
  return otherView([OPS[op], SYMBOLS[a], SYMBOLS[b], SYMBOLS[c]]);
}

/** The code of a view [op, a, b, c] of strings. */
export function viewCode(v) {
  return code4(OP.get(v[0]), symCode(v[1]), symCode(v[2]), symCode(v[3]));
}

function otherView(v) {
  const key = v.join(' ');
  let code = OTHER_VIEW_CODE.get(key);
  if (code === undefined) {
    if (OTHER_VIEWS.length >= N_VIEWS - N_BASE_VIEWS) throw new StepperFault('the stepper led the runtime to too many views outside the alphabet');
    code = N_BASE_VIEWS + OTHER_VIEWS.length;
    OTHER_VIEW_CODE.set(key, code);
    OTHER_VIEWS.push(v);
  }
  return code;
}

/** Whether any cell anywhere may hold a symbol outside the alphabet (a wrong stepper's). */
export function anyOtherSymbols() { return SYMBOLS.length > NSYM; }

export function viewOf(code) {
  if (code >= N_BASE_VIEWS) return [...OTHER_VIEWS[code - N_BASE_VIEWS]];
  const c = code % NSYM, b = Math.floor(code / NSYM) % NSYM, a = Math.floor(code / (NSYM * NSYM)) % NSYM;
  return [OPS[Math.floor(code / NSYM ** 3)], CELL_SYMBOLS[a], CELL_SYMBOLS[b], CELL_SYMBOLS[c]];
}

export const HALTS = -1, OUTSIDE = -2;

/** step code -> the index in `states` ([op, carry] pairs) of the state the step moves a scan
 *  to; HALTS when its next word is not a column operation, OUTSIDE when the state is not one
 *  of `states` (codes.py's state_table). */
export function stateTable(states, carry) {
  const key = `${states.map((s) => s.join(' ')).join('|')}/${carry}`;
  let t = STATE_TABLES.get(key);
  if (!t) {
    t = new Int8Array(N_STEPS).fill(HALTS);
    const index = new Map(states.map(([o, c], k) => [`${OP.get(o)} ${SYM.get(c)}`, k]));
    for (let code = 0; code < STEPS.length; code++) {
      const nxt = STEP_NEXT[code];
      if (!SCAN_NEXT[nxt]) continue;
      const k = index.get(`${nxt} ${carry ? STEP_FLAG[code] : BLANK_CODE}`);
      t[code] = k === undefined ? OUTSIDE : k;
    }
    STATE_TABLES.set(key, t);
  }
  return t;
}
