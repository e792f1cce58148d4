// Load figures of the release build on a throttled connection: a benchmark
// that prints, never a test that fails on time (CI runs on a busy machine).
//
//   node scripts/load-bench.mjs [dist dir] [runs]
//
// Each run is cold: a fresh Chromium profile (no HTTP cache), dist/ served
// gzipped by a plain static server (tests/browser/harness.mjs, with
// Last-Modified), and Chrome DevTools' Slow 4G as Lighthouse defines it:
// 150 ms round trip, 1.6 Mbps down, 750 kbps up, the page's CPU slowed 4×
// (CDP Network.emulateNetworkConditions and Emulation.setCPUThrottlingRate).
// Printed, as the median of the runs with every run after it:
//   1. `?lab=routing`: first contentful paint;
//   2. the same load: the results table holding a row per rule;
//   3. an article with five embedded labs: every frame settled (an outcome
//      drawn, no run in flight), from the article's navigation.
// docs/performance.md says what each figure means and what it was.
import path from 'node:path';
import { serve, launch, dist as defaultDist, lblab } from '../tests/browser/harness.mjs';

const dist = path.resolve(process.argv[2] ?? defaultDist);
const runs = Number(process.argv[3] ?? 5);
const RULES = JSON.parse(lblab(['labs', '--json'])).find((l) => l.id === 'routing').focus.options.length;

// The article's four simulators and its first figure, each as an author
// would embed it (embed=1, the lab's own default view).
const EMBEDS = ['routing', 'herding', 'prefix', 'batching', 'knee'];
const ARTICLE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>article</title><link rel="icon" href="data:,"></head><body>
<h1>An article with five labs</h1>
${EMBEDS.map((lab) => `<p>Some prose before the ${lab} lab.</p>
<iframe src="./?lab=${lab}&embed=1" title="${lab}" style="width:100%;border:0" height="640"></iframe>`).join('\n')}
</body></html>`;

// Recorded inside every document (frames too), as absolute times
// (timeOrigin + now) so frames compare with the article: first contentful
// paint, the table's full row count, and the first settled moment.
function probe(rules) {
  const at = () => performance.timeOrigin + performance.now();
  window.lblabLoad = {};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name === 'first-contentful-paint') window.lblabLoad.fcp = performance.timeOrigin + e.startTime;
    }
  }).observe({ type: 'paint', buffered: true });
  const check = () => {
    const load = window.lblabLoad;
    const root = document.documentElement;
    if (load.table === undefined && document.querySelectorAll('#compare-table tbody tr').length === rules) load.table = at();
    if (load.settled === undefined && Number(root.dataset.runs || 0) > 0 && !root.hasAttribute('data-busy')) load.settled = at();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
}

async function throttled(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6e6 / 8),
    uploadThroughput: (750e3 / 8),
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
}

/** Load `url` in a fresh browser, wait with `wait(page)`, and return what
 *  `read(page, start)` reads (`start`: the navigation's time origin). */
async function once(url, wait, read) {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await page.addInitScript(probe, RULES);
    await throttled(browser.context, page);
    await page.goto(url, { waitUntil: 'commit' });
    const start = await page.evaluate(() => performance.timeOrigin);
    await wait(page);
    return await read(page, start);
  } finally {
    await browser.close();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (name, xs) => console.log(`load: ${name}: median ${(median(xs) / 1000).toFixed(2)} s (runs ${xs.map((x) => (x / 1000).toFixed(2)).join(' / ')})`);

const srv = await serve(dist, '/', { '/article.html': ARTICLE }, { gzip: true });
const [paint, table, embeds] = [[], [], []];
try {
  for (let i = 0; i < runs; i++) {
    const load = await once(
      `${srv.base}?lab=routing`,
      (page) => page.waitForFunction(() => window.lblabLoad.table !== undefined && window.lblabLoad.fcp !== undefined, null, { timeout: 120_000 }),
      async (page, start) => ({ ...(await page.evaluate(() => window.lblabLoad)), start }),
    );
    paint.push(load.fcp - load.start);
    table.push(load.table - load.start);
    embeds.push(await once(
      `${srv.base}article.html`,
      async (page) => {
        await page.waitForFunction((n) => document.querySelectorAll('iframe').length === n, EMBEDS.length);
        for (const frame of page.frames().slice(1)) {
          await frame.waitForFunction(() => window.lblabLoad?.settled !== undefined, null, { timeout: 120_000 });
        }
      },
      async (page, start) => {
        const times = await Promise.all(page.frames().slice(1).map((f) => f.evaluate(() => window.lblabLoad.settled)));
        return Math.max(...times) - start;
      },
    ));
  }
} finally {
  await srv.close();
}
console.log(`load: ${dist}, ${runs} cold runs each, Slow 4G (150 ms RTT, 1.6 Mbps down, 750 kbps up, CPU 4x), gzip -9`);
line('?lab=routing first contentful paint', paint);
line('?lab=routing results table (a row per rule)', table);
line(`five embeds (${EMBEDS.join(', ')}) all settled`, embeds);
