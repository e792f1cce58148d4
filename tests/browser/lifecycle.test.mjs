// Labs come and go without leaving anything behind, and an idle embed does
// nothing (issue 49): mounting and leaving the player labs 100 times keeps
// the JS heap, the live animation callbacks and the event listeners flat,
// and an embed at rest runs no timer and no frame callback for ten seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, settled } from './harness.mjs';

const env = await useAppAndBrowser();

/** Collect garbage, then read the JS heap, the DOM counters and the stages' live callbacks. */
async function measure(page, cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  const dom = await cdp.send('Memory.getDOMCounters');
  const frames = await page.evaluate(() => window.wasmBindings.lblab_live_frames());
  return { heap: heap.usedSize, nodes: dom.nodes, listeners: dom.jsEventListeners, frames };
}

const stop = (page) => new URL(page.url()).searchParams.get('stop');

test('mounting and leaving the player labs 100 times leaves the heap and the animation callbacks flat', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  const cdp = await page.context().newCDPSession(page);
  // The routing tour: each step mounts the Routing Lab's player afresh (a
  // new stage, charts and tables) and unmounts the one before.
  const steps = 3;
  await page.goto(`${env.srv.base}?tour=routing&stop=1`);
  await settled(page, 10_000);
  // One move: to the next step, or back from the last one.
  let forward = true;
  const move = async () => {
    const from = Number(stop(page));
    if (from === steps) forward = false;
    if (from === 1) forward = true;
    await page.locator(forward ? '#tour-next' : '#tour-back').click();
    const to = String(forward ? from + 1 : from - 1);
    await page.waitForFunction((want) => new URL(location.href).searchParams.get('stop') === want, to);
    await settled(page, 10_000);
  };
  // Warm up (caches, compiled code, the first runs), then measure.
  for (let i = 0; i < 10; i++) await move();
  const before = await measure(page, cdp);
  for (let i = 0; i < 100; i++) await move();
  const after = await measure(page, cdp);
  const mb = (b) => (b / 1048576).toFixed(1);
  console.log(`100 mounts: JS heap ${mb(before.heap)} → ${mb(after.heap)} MB, live animation callbacks ${before.frames} → ${after.frames}, ` +
    `event listeners ${before.listeners} → ${after.listeners}, DOM nodes ${before.nodes} → ${after.nodes}`);
  // One stage is mounted at a time: the callbacks of the 100 left behind are gone.
  assert.equal(after.frames, before.frames, 'live animation callbacks');
  assert.ok(after.frames <= 2, `${after.frames} live animation callbacks for one mounted player`);
  assert.ok(after.listeners <= before.listeners + 20, `event listeners ${before.listeners} → ${after.listeners}`);
  // Flat: a leak of one stage per mount (its canvas, closures and scene)
  // would add megabytes over 100 mounts.
  assert.ok(after.heap < before.heap * 1.25 + 2 * 1048576, `heap ${mb(before.heap)} → ${mb(after.heap)} MB`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an idle embed runs no timer and no frame callback for ten seconds', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  // Count every timer and frame callback the page runs (wrapped before any
  // of the page's scripts load).
  await page.addInitScript(() => {
    const ran = { timeout: 0, interval: 0, frame: 0 };
    globalThis.lblabCallbacks = ran;
    const wrap = (name, kind) => {
      const original = globalThis[name].bind(globalThis);
      globalThis[name] = (f, ...rest) => original(typeof f === 'function' ? (...a) => { ran[kind]++; return f(...a); } : f, ...rest);
    };
    wrap('setTimeout', 'timeout');
    wrap('setInterval', 'interval');
    wrap('requestAnimationFrame', 'frame');
  });
  for (const lab of ['routing', 'herding']) {
    await page.goto(`${env.srv.base}?lab=${lab}&embed=1`);
    await settled(page, 10_000);
    // At rest: the first run drawn, its tween and the URL's write done
    // (the counts stop moving). Polled from here, not from the page, so the
    // checks themselves add no timer to what is counted.
    const count = () => page.evaluate(() => Object.values(globalThis.lblabCallbacks).reduce((a, b) => a + b, 0));
    for (let last = -1, now = await count(); now !== last; last = now, now = await count()) {
      await new Promise((r) => setTimeout(r, 500));
    }
    const start = await page.evaluate(() => ({ ...globalThis.lblabCallbacks }));
    // The observation window itself: ten seconds in which nothing may run.
    await new Promise((r) => setTimeout(r, 10_000));
    const end = await page.evaluate(() => ({ ...globalThis.lblabCallbacks }));
    const ran = { timeout: end.timeout - start.timeout, interval: end.interval - start.interval, frame: end.frame - start.frame };
    console.log(`idle ${lab} embed, 10 s: ${ran.timeout} timeouts, ${ran.interval} interval ticks, ${ran.frame} frame callbacks`);
    assert.deepEqual(ran, { timeout: 0, interval: 0, frame: 0 }, `${lab}: nothing runs while the embed is idle`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
