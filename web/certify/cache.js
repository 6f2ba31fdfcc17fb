// web/certify/cache.js — certificates this browser made for itself, in IndexedDB (the page's
// counterpart of sketchpad/certify/cache.py), keyed by model digest, environment and gate.
//
// An entry counts only if this page wrote it: each carries an HMAC-SHA256 tag made with a key
// that WebCrypto generated in this browser profile as non-extractable (no script can read its
// bytes, only ask the browser to sign or verify with it), kept in IndexedDB.  An entry without
// a valid tag — written by something else with access to the store — is ignored (console
// warning) and the page runs the suite again.  An entry that passes is still only a candidate:
// certified.js checks it with the rule.  The same key seeds the order of this device's suite.

import { canonical, manifestDigest, sha256Hex } from './policy.js';

const DB = 'sketchpad';
const VERSION = 3;             // 2: tagged certificates; 3: suite chunks (resume.js) and variant verdicts
const STORE = 'certificates';
const KEYS = 'keys';
export const CHUNKS = 'chunks';
export const VARIANTS = 'variants';
const FORMAT = 'sketchpad-cache/1';

export async function cacheKey(model) {
  const env = await sha256Hex(canonical(model.environment));
  const rows = await sha256Hex(canonical(model.rows ?? null));
  return `${await manifestDigest(model.manifest)}|${env}|${rows}|gate${model.info.gate}`;
}

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, VERSION);
    req.onupgradeneeded = (ev) => {
      const db = req.result;
      if (ev.oldVersion < 2 && db.objectStoreNames.contains(STORE)) db.deleteObjectStore(STORE);   // version 1 entries had no tag
      for (const name of [STORE, KEYS, CHUNKS, VARIANTS]) if (!db.objectStoreNames.contains(name)) db.createObjectStore(name);
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export async function transact(store, mode, fn) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(store, mode);
      const req = fn(tx.objectStore(store));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

let keyPromise = null;

/** This browser's HMAC key: made at first use, non-extractable, kept in IndexedDB. */
export function userKey() {
  keyPromise ||= (async () => {
    const have = await transact(KEYS, 'readonly', (s) => s.get('hmac'));
    if (have) return have;
    const key = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    await transact(KEYS, 'readwrite', (s) => s.add(key, 'hmac')).catch(() => {});   // another tab made one first
    return transact(KEYS, 'readonly', (s) => s.get('hmac'));
  })();
  keyPromise.catch(() => { keyPromise = null; });
  return keyPromise;
}

/** The HMAC of `bytes` under this browser's key, as hex. */
export async function hmacHex(bytes) {
  const tag = new Uint8Array(await crypto.subtle.sign('HMAC', await userKey(), bytes));
  return [...tag].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Whether `hex` is the HMAC of `bytes` under this browser's key. */
export async function hmacValid(hex, bytes) {
  const tag = typeof hex === 'string' ? Uint8Array.from(hex.match(/../g) || [], (h) => parseInt(h, 16)) : null;
  return Boolean(tag) && crypto.subtle.verify('HMAC', await userKey(), tag, bytes);
}

const signed = (slot, text) => new TextEncoder().encode(`${FORMAT}\n${slot}\n${text}`);

/** The cached certificate for this model here, or null (also when IndexedDB is unavailable). */
export async function load(model, warn = console.warn) {
  try {
    const slot = await cacheKey(model);       // before the transaction: it must not wait on anything
    const entry = await transact(STORE, 'readonly', (s) => s.get(slot));
    if (!entry) return null;
    const tag = entry && typeof entry.hmac === 'string' ? Uint8Array.from(entry.hmac.match(/../g) || [], (h) => parseInt(h, 16)) : null;
    const ok = tag && typeof entry.text === 'string'
      && await crypto.subtle.verify('HMAC', await userKey(), tag, signed(slot, entry.text));
    if (!ok) {
      warn(`sketchpad: ignoring the cached certificate ${slot}: its HMAC tag does not match this browser's key`);
      return null;
    }
    return JSON.parse(entry.text);
  } catch {
    return null;
  }
}

export async function store(model, cert) {
  const slot = await cacheKey(model);
  const text = JSON.stringify(cert);
  const tag = new Uint8Array(await crypto.subtle.sign('HMAC', await userKey(), signed(slot, text)));
  const hmac = [...tag].map((b) => b.toString(16).padStart(2, '0')).join('');
  await transact(STORE, 'readwrite', (s) => s.put({ format: FORMAT, hmac, text }, slot));
  return slot;
}

/** The seed of this browser's suite order: from its key (stable here, unknown to any model publisher). */
export async function suiteSeed() {
  try {
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await userKey(), new TextEncoder().encode('sketchpad suite order')));
    return ((mac[0] << 24) | (mac[1] << 16) | (mac[2] << 8) | mac[3]) >>> 0;
  } catch {
    return crypto.getRandomValues(new Uint32Array(1))[0];
  }
}
