// web/certify/cache.js — certificates this browser made for itself, in IndexedDB (the page's
// counterpart of sketchpad/certify/cache.py), keyed by model digest, environment and gate.
// An entry is only a candidate: certified.js checks it with the rule before it counts.

import { canonical, manifestDigest, sha256Hex } from './policy.js';

const DB = 'sketchpad';
const STORE = 'certificates';

export async function cacheKey(model) {
  const env = await sha256Hex(canonical(model.environment));
  return `${await manifestDigest(model.manifest)}|${env}|gate${model.info.gate}`;
}

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function transact(mode, fn) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** The cached certificate for this model here, or null (also when IndexedDB is unavailable). */
export async function load(model) {
  try {
    const key = await cacheKey(model);       // before the transaction: it must not wait on anything
    const text = await transact('readonly', (s) => s.get(key));
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

export async function store(model, cert) {
  const key = await cacheKey(model);
  const text = JSON.stringify(cert);
  await transact('readwrite', (s) => s.put(text, key));
  return key;
}
