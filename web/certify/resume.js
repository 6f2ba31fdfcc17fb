// web/certify/resume.js — per-chunk results of the page's certification suite, kept in this
// browser's IndexedDB so that a suite interrupted by a reload, a closed tab or a crash resumes
// where it stopped (sketchpad/certify/resume.py does the same in Python's cache).
//
//   const journal = await openJournal(model, runs);      // null where IndexedDB cannot be used
//   const kept = await journal.get(run, chunk);           // {logits: Float32Array, seconds} or null
//   await journal.put(run, chunk, logits, seconds);
//   await journal.finish();                               // the certificate is made: the chunks go
//
// A journal is named by the cache slot of this model here (cache.js's cacheKey: every file's
// digest, the environment, the graph verdict, the gate) and a digest of the suite's plan (each
// run's order and batch sizes, from this browser's seed): only the same suite on the same bytes
// reuses a chunk.  Each chunk carries an HMAC of this browser's non-extractable key over its
// journal, run, chunk, shape, seconds and the sha256 of its logits; one without a valid tag is
// ignored (console warning) and run again.

import { CHUNKS, cacheKey, hmacHex, hmacValid, transact } from './cache.js';
import { canonical, sha256Hex } from './policy.js';

const FORMAT = 'sketchpad-suite-chunk/1';

/** What the suite will compute, run by run: labels, orders and batch sizes. */
export async function planDigest(runs) {
  return sha256Hex(canonical(runs.map((r) => [r.label, r.order, r.sizes])));
}

const signed = (id, run, chunk, shape, seconds, digest) =>
  new TextEncoder().encode(`${FORMAT}\n${id}\n${run}\n${chunk}\n${JSON.stringify(shape)}\n${seconds}\n${digest}`);

export async function openJournal(model, runs, warn = console.warn) {
  let id;
  try {
    id = await sha256Hex(`${await cacheKey(model)}|${await planDigest(runs)}`);
    await transact(CHUNKS, 'readonly', (s) => s.count());
  } catch {
    return null;
  }
  const startKey = `${id}|started`;
  let started = await transact(CHUNKS, 'readonly', (s) => s.get(startKey)).catch(() => null);
  if (!started) {
    started = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
    await transact(CHUNKS, 'readwrite', (s) => s.put(started, startKey)).catch(() => {});
  }
  const key = (run, chunk) => `${id}|r${run}|c${chunk}`;
  const journal = {
    started, resumedChunks: 0, resumedViews: 0,
    async get(run, chunk) {
      const entry = await transact(CHUNKS, 'readonly', (s) => s.get(key(run, chunk))).catch(() => null);
      if (!entry) return null;
      const data = entry.data instanceof ArrayBuffer ? new Uint8Array(entry.data) : null;
      const ok = data && entry.format === FORMAT && Array.isArray(entry.shape)
        && await hmacValid(entry.hmac, signed(id, run, chunk, entry.shape, entry.seconds, await sha256Hex(data)));
      if (!ok) {
        warn(`sketchpad: ignoring a kept chunk of the certification suite (run ${run}, chunk ${chunk}): its HMAC tag does not match this browser's key`);
        return null;
      }
      journal.resumedChunks += 1;
      journal.resumedViews += entry.shape[0];
      return { logits: new Float32Array(entry.data), seconds: entry.seconds };
    },
    async put(run, chunk, logits, seconds) {
      const data = new Uint8Array(logits.buffer.slice(logits.byteOffset, logits.byteOffset + logits.byteLength));
      const shape = [logits.length / model.steps.length, model.steps.length];
      const hmac = await hmacHex(signed(id, run, chunk, shape, seconds, await sha256Hex(data)));
      await transact(CHUNKS, 'readwrite', (s) => s.put({ format: FORMAT, shape, seconds, hmac, data: data.buffer }, key(run, chunk)))
        .catch(() => {});
    },
    async finish() {
      const range = IDBKeyRange.bound(`${id}|`, `${id}|\uffff`);
      await transact(CHUNKS, 'readwrite', (s) => s.delete(range)).catch(() => {});
    },
  };
  return journal;
}
