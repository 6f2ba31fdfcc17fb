// Copies Swagger UI's files from node_modules into web/vendor/swagger-ui/ (npm runs this after
// `npm ci`, see package.json), so that the server's /docs page loads them from this server and
// works offline: no CDN.  Only what /docs uses: the bundle, its stylesheet and the favicon.
// swagger-ui-dist is pinned in package.json and package-lock.json.

import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, '..', '..', 'node_modules', 'swagger-ui-dist');
const out = join(here, '..', 'vendor', 'swagger-ui');
const FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'LICENSE', 'NOTICE'];

if (!existsSync(src)) {
  console.error(`vendor-swagger-ui: ${src} is missing (npm ci installs swagger-ui-dist)`);
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const f of FILES) copyFileSync(join(src, f), join(out, f));
console.log(`vendor-swagger-ui: ${readdirSync(out).length} files into ${out}`);
