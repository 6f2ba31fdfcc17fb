// BigInt evaluation of a parsed expression: what the property tests check the runtime against
// (tests only; the page never computes a digit itself).

import { InputError } from '../errors.js';


/** The same tree evaluated with BigInt (tests and checks only; the runtime never uses it). */
export function evaluateBigInt(tree) {
  const [kind] = tree;
  if (kind === 'num') return tree[2] ? -BigInt(tree[1]) : BigInt(tree[1]);
  if (kind === 'neg') return -evaluateBigInt(tree[1]);
  if (kind === 'bin') {
    const a = evaluateBigInt(tree[2]), b = evaluateBigInt(tree[3]);
    if (tree[1] === '+') return a + b;
    if (tree[1] === '-') return a - b;
    if (tree[1] === '*') return a * b;
    const q = floorDiv(a, b);
    return tree[1] === '//' ? q : a - q * b;
  }
  const args = tree[2].map(evaluateBigInt);
  return tree[1] === 'sqrt' ? isqrt(args[0]) : gcd(args[0], args[1]);
}

export function floorDiv(a, b) {
  if (b === 0n) throw new InputError('division by zero');
  const q = a / b;                             // BigInt division truncates toward zero
  return (a % b !== 0n) && ((a < 0n) !== (b < 0n)) ? q - 1n : q;
}

export function isqrt(n) {
  if (n < 0n) throw new InputError('square root of a negative number');
  if (n < 2n) return n;
  let x = BigInt(`1${'0'.repeat(Math.ceil(n.toString().length / 2))}`);    // >= sqrt(n)
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

export function gcd(a, b) {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}
