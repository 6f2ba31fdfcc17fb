// Screenshot the page in Debian's headless chromium (no browser download), e.g. for the README:
//   node web/tools/screenshot.mjs URL OUT.png [mid|done|load] [--expr "..."] [--batches N]
// `mid` waits until N batches (default 12) have been drawn and shoots while the view moves.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i < 0 ? dflt : args.splice(i, 2)[1]; };
const expr = opt('--expr', null);
const batches = Number(opt('--batches', 12));
const [url, out, when = 'mid'] = args;
if (!url || !out) { console.error('usage: screenshot.mjs URL OUT.png [mid|done|load] [--expr E] [--batches N]'); process.exit(2); }

const context = await chromium.launchPersistentContext(mkdtempSync(`${tmpdir()}/sketchpad-chromium-`), {
  executablePath: '/usr/bin/chromium', viewport: { width: 1200, height: 1250 },
  ignoreDefaultArgs: ['--headless', '--disable-gpu'],
  args: ['--headless=new', '--no-sandbox', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-quic', '--disable-dev-shm-usage'],
});
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(url);
  await page.waitForFunction(() => ['ready', 'failed'].includes(document.body.dataset.state), null, { timeout: 60000 });
  if (expr !== null) await page.fill('#expr', expr);
  if (when !== 'load') {
    await page.click('#solve');
    if (when === 'mid') {
      await page.waitForFunction((n) => Number(document.getElementById('c-batches').textContent.replace(/,/g, '')) >= n,
        batches, { timeout: 60000 });
    } else {
      await page.waitForFunction(() => ['done', 'error', 'failed'].includes(document.body.dataset.state), null, { timeout: 120000 });
    }
  }
  await page.screenshot({ path: out, fullPage: true });
  const text = async (sel) => (await page.textContent(sel)).replace(/\s+/g, ' ').trim();
  console.log(`state ${await page.evaluate(() => document.body.dataset.state)} · answer ${(await text('#answer')).slice(0, 60)} · `
    + `error ${await text('#error')} · ${await text('#counters')} · ${await text('#cert-status')}`);
} finally {
  await context.close();
}
