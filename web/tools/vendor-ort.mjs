// Copies the onnxruntime-web files the page loads from node_modules into web/vendor/ort/
// (npm runs this after `npm ci`, see package.json).  The server serves them at /vendor/ort/,
// and a wheel built from this checkout carries them as package data, so an installed
// `sketchpad serve` needs no node_modules.  Only what web/onnx_stepper.js imports: the wasm
// build (ort.wasm.min.mjs) and the WebGPU build (ort.webgpu.min.mjs), with the wasm binaries
// they fetch.

import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, '..', '..', 'node_modules', 'onnxruntime-web', 'dist');
const out = join(here, '..', 'vendor', 'ort');
const FILES = ['ort.wasm.min.mjs', 'ort.webgpu.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm',
  'ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'];

if (!existsSync(src)) {
  console.error(`vendor-ort: ${src} is missing (npm ci installs onnxruntime-web)`);
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const f of FILES) copyFileSync(join(src, f), join(out, f));
console.log(`vendor-ort: ${readdirSync(out).length} files into ${out}`);
