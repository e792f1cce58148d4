// Size and speed budgets of the release build (issue 3), measured in headless
// Chromium on this machine. Each test prints the figure it measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { useAppAndBrowser, watchedPage, dist, lblab } from './harness.mjs';

const env = await useAppAndBrowser();
const LABS = JSON.parse(lblab(['labs', '--json']));
const RULES = LABS.find((l) => l.id === 'routing').focus.options;
// The page holds every lab's views, so it grows with each lab: 465 KB for
// the fifteen labs of issue 48, and 15 KB more for each lab after them. The
// first-token lab, the first of them, measured 8.5 KB for its views, 10.0 KB
// with its tour and the hedge-cost column, and its player is still to come
// (docs/performance.md). A change to what all labs share still has to fit in
// the old figure, with one stated exception: issue 54's router configuration
// panel (paste or drop a router's configuration, the worker's report shown
// line by line with its fixes, export in the router's format), which the
// issue asks of the page itself, measured 6.6 KB after its report was
// written as one escaped markup block with one click handler instead of a
// view per line; it is allowed 7 KB.
const ROUTER_CONFIG_PANEL = 7_000;
const PAGE_LIMIT = 465_000 + 15_000 * Math.max(0, LABS.length - 15) + ROUTER_CONFIG_PANEL;

// Two modules (issue 47): the page (Leptos, views, the outcome decoder),
// which every reader downloads before anything is interactive, and the
// simulation worker (sim-core's registry, built for speed), fetched beside
// it. The page's module was held to 420 KB (1 KB = 1,000 bytes, gzip -9)
// until every control, table and card became a Leptos view with its own
// handlers (issue 49), which cost 18 KB, and issue 48's refusals beside each
// control, labelled chart lines and openings added 7 KB, and the tours'
// live numbers (the claims' measures, the slots, the stage's spotlight)
// 17 KB more: it is held to 465 KB, plus 15 KB per lab beyond fifteen
// (PAGE_LIMIT above). With its
// JS and CSS it is printed against the 420 KB target, which it does not
// meet (docs/performance.md says by how much and why). The worker's size is
// printed, not held: its bytes buy speed on every slider move.
test('the page module is at most 465 KB gzipped plus 15 KB per lab beyond fifteen; with its JS and CSS, and the worker, printed', () => {
  const files = fs.readdirSync(dist).filter((f) => /\.(wasm|js|css)$/.test(f));
  // `gzip -9` itself, as the budget is stated (Node's zlib at level 9
  // compresses a wasm module about 0.5% less tightly).
  const gz = (f) => execFileSync('gzip', ['-9', '-c', path.join(dist, f)], { maxBuffer: 64 << 20 }).length;
  const worker = files.filter((f) => f.startsWith('worker-'));
  const page = files.filter((f) => !f.startsWith('worker-'));
  assert.ok(page.some((f) => f.endsWith('.wasm')), 'dist/ holds the page module');
  assert.ok(worker.some((f) => f.endsWith('.wasm')), 'dist/ holds the worker module');
  const sum = (list) => list.reduce((n, f) => {
    const size = gz(f);
    console.log(`  ${f}: ${size} bytes gzipped`);
    return n + size;
  }, 0);
  const pageTotal = sum(page);
  const workerTotal = sum(worker);
  const pageModule = page.filter((f) => f.endsWith('.wasm')).reduce((n, f) => n + gz(f), 0);
  console.log(`budget: page module ${pageModule} bytes = ${(pageModule / 1000).toFixed(1)} KB gzipped (limit ${PAGE_LIMIT / 1000} KB for ${LABS.length} labs)`);
  console.log(`budget: page module + JS + CSS ${pageTotal} bytes = ${(pageTotal / 1000).toFixed(1)} KB gzipped (target 420 KB, reported)`);
  console.log(`budget: worker module + JS ${workerTotal} bytes = ${(workerTotal / 1000).toFixed(1)} KB gzipped (reported)`);
  assert.ok(pageModule <= PAGE_LIMIT, `the page module is ${(pageModule / 1000).toFixed(1)} KB gzipped`);
});

test('the Routing Lab shows its table after navigation (time reported; target 1.5 s)', async () => {
  const times = [];
  const problems = [];
  // A fresh page per measurement, so no load is cut short by the next navigation.
  for (let i = 0; i < 3; i++) {
    const watched = await watchedPage(env.browser.context);
    await watched.page.goto(`${env.srv.base}?lab=routing&seed=${i + 1}`);
    await watched.page.waitForFunction((n) => document.querySelectorAll('#compare-table tbody tr').length === n, RULES.length);
    times.push(await watched.page.evaluate(() => performance.now()));
    problems.push(...watched.problems);
    await watched.page.close();
  }
  times.sort((a, b) => a - b);
  console.log(`budget: table visible ${times.map((t) => t.toFixed(0)).join(' / ')} ms after navigation (target 1500)`);
  assert.ok(times.every((t) => Number.isFinite(t)));
  assert.deepEqual(problems, []);
});

test('recomputing every rule after a slider change: the worker\'s time in wasm (reported; target 3 ms)', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing`);
  await page.locator('#compare-table tbody tr').first().waitFor();
  const slider = page.locator('#prompt-cv');
  await slider.focus();
  // Each move's run, as the worker timed it. The first moves run while the
  // browser is still compiling the simulation's hot functions to its
  // optimising tier (V8 does not replace a running wasm function, so a long
  // run started in baseline code finishes there); both figures are printed.
  const samples = [];
  // What the reader waits for, timed in the page: from the key's event to
  // the new outcome read back and published (`data-runs` counts it), and
  // to the first frame drawn after that (a timer queued from the next
  // animation frame runs once that frame is painted).
  await page.evaluate(() => {
    window.lblabMoves = [];
    document.addEventListener('keydown', () => { window.lblabKey = performance.now(); }, true);
    new MutationObserver(() => {
      const [key, read] = [window.lblabKey, performance.now()];
      requestAnimationFrame(() => setTimeout(() => window.lblabMoves.push([read - key, performance.now() - key]), 0));
    }).observe(document.documentElement, { attributes: true, attributeFilter: ['data-runs'] });
  });
  let last = await page.evaluate(() => document.documentElement.dataset.runs);
  for (let i = 0; i < 31; i++) {
    await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
    await page.waitForFunction((n) => document.documentElement.dataset.runs !== n, last);
    last = await page.evaluate(() => document.documentElement.dataset.runs);
    samples.push(await page.evaluate(() => window.wasmBindings.lblab_last_compute_ms()));
    await page.waitForFunction((n) => window.lblabMoves.length === n, i + 1);
  }
  const moves = await page.evaluate(() => window.lblabMoves);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [first, after] = [samples.slice(0, 11), samples.slice(11)];
  console.log(`budget: recompute median ${median(after).toFixed(2)} ms over moves 12–31, max ${Math.max(...after).toFixed(2)} ms (target 3); first 11 moves median ${median(first).toFixed(2)} ms, max ${Math.max(...first).toFixed(2)} ms`);
  const seen = moves.slice(11);
  console.log(`budget: slider key to results on screen, median over moves 12–31: outcome read back ${median(seen.map((m) => m[0])).toFixed(1)} ms, next frame painted ${median(seen.map((m) => m[1])).toFixed(1)} ms (reported; target 25 ms to the frame painted)`);
  assert.equal(moves.length, 31, 'every move published one outcome');
  assert.ok(samples.every((s) => Number.isFinite(s)), 'the page publishes its compute time');
  assert.deepEqual(problems, []);
  await page.close();
});
