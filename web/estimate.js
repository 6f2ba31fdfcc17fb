// How many batches a solve will take, estimated before it starts, for the page's progress bar
// (a port of sketchpad/estimate.py's expected_batches; tests/test_estimate.py holds the two
// equal on many expressions).  A model of the counts, not the counts: the page never shows
// more than 99 % before the answer.

/** Python's round(): halves to even. */
function pyRound(x) {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** Estimated batches of a solve of `tree` (from expr.js's parse); at least 1. */
export function expectedBatches(tree, parallel = true) {
  return Math.max(1, pyRound(walk(tree, parallel)[0]));
}

function walk(tree, parallel) {
  const kind = tree[0];
  if (kind === 'num') return [0, tree[1].length];
  if (kind === 'neg') { const [c, n] = walk(tree[1], parallel); return [c + 1, n]; }
  if (kind === 'bin') {
    const [ca, la] = walk(tree[2], parallel), [cb, lb] = walk(tree[3], parallel);
    const [cost, n] = binary(tree[1], la, lb, parallel);
    return [ca + cb + cost, n];
  }
  const parts = tree[2].map((a) => walk(a, parallel));
  const done = parts.reduce((s, [c]) => s + c, 0);
  if (tree[1] === 'sqrt') {
    const n = Math.floor((parts[0][1] + 1) / 2);
    return [done + (parallel ? 2 * n + 1 : 4.3 * n * n + 20 * n), n];
  }
  const [[, la], [, lb]] = parts;
  return [done + gcd(la, lb, parallel), Math.min(la, lb)];
}

function binary(op, la, lb, parallel) {
  if (op === '+' || op === '-') {
    const n = Math.max(la, lb);
    return [parallel ? (op === '+' ? 2 : 4) : (n + 2) * (op === '+' ? 1 : 2), n + 1];
  }
  if (op === '*') return [parallel ? 2 + Math.ceil(Math.log2(Math.max(1, Math.min(la, lb)))) : la * lb + la + lb, la + lb];
  return [division(la, lb, parallel), op === '//' ? Math.max(1, la - lb + 1) : lb];
}

function division(la, lb, parallel) {
  if (la < lb) return parallel ? 4 : lb + 25;
  const digits = la - lb + 1;
  return parallel ? digits + 3 : digits * 5 * (lb + 2.5) + 20;
}

function gcd(la, lb, parallel) {
  const lo = Math.min(la, lb), hi = Math.max(la, lb);
  const first = hi > lo ? division(hi, lo, parallel) : 0;
  return first + (parallel ? 4.9 * lo + 2 : 5 * lo * lo + 20);
}
