// Size and speed budgets of the release build (issue 3), measured in headless
// Chromium on this machine. Each test prints the figure it measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { useAppAndBrowser, watchedPage, dist, lblab } from './harness.mjs';

const env = await useAppAndBrowser();
const RULES = JSON.parse(lblab(['labs', '--json'])).find((l) => l.id === 'routing').focus.options;

// The limit was 250 KB for four labs (issue 3) and 350 KB for nine (issue 12).
// It is 500 KB since the simulations moved to a Web Worker (issue 15): the page
// now reads every lab's outcome back from JSON, and the Deserialize code for
// all outcome types costs about 77 KB gzipped (measured by building without
// it); trace import, the goodput lab, the worker and the trace panel about
// 40 KB more. Since issue 13 the page reads postcard-encoded outcomes instead
// (no field skipped, no internally tagged enum), which took about 55 KB off
// while the players' motion views, narration and chart read-outs were added.
test('all wasm + JS + CSS of the release build is at most 500 KB gzipped', () => {
  const files = fs.readdirSync(dist).filter((f) => /\.(wasm|js|css)$/.test(f));
  assert.ok(files.some((f) => f.endsWith('.wasm')), 'dist/ holds a wasm bundle');
  let total = 0;
  for (const f of files) {
    const gz = zlib.gzipSync(fs.readFileSync(path.join(dist, f)), { level: 9 }).length;
    console.log(`  ${f}: ${gz} bytes gzipped`);
    total += gz;
  }
  // 1 KB = 1,000 bytes here: the stricter reading of the budget.
  console.log(`budget: bundle ${total} bytes = ${(total / 1000).toFixed(1)} KB gzipped (limit 500 KB = 500,000 bytes)`);
  assert.ok(total <= 500_000, `bundle is ${(total / 1000).toFixed(1)} KB gzipped`);
});

// Leptos pulls in wasm-streams through server_fn; its #[wasm_bindgen] classes
// are exports, so nothing can drop them or the code they reach (about 6 KB
// gzipped). The root Cargo.toml patches in a stub (vendor/wasm-streams): this
// app has no server functions. A glue file that exports them again means the
// patch stopped applying (server_fn asking for another version, say).
test('the JS glue exports no wasm-streams classes (vendor/wasm-streams stubs them)', () => {
  const glue = fs.readdirSync(dist).filter((f) => f.endsWith('.js'));
  assert.ok(glue.length > 0, 'dist/ holds the JS glue');
  for (const f of glue) {
    const text = fs.readFileSync(path.join(dist, f), 'utf8');
    assert.ok(!text.includes('IntoUnderlying'), `${f} exports wasm-streams' IntoUnderlying* classes`);
  }
});

// Speed targets are reported, not asserted (issue 24): wall-clock figures on
// a busy two-core CI machine would make the suite flaky. `lblab bench` holds
// the native simulation to its targets.
// Core's float formatting (Grisu with Dragon4, big integers, tables of
// cached powers) is about 8 KB gzipped; the page writes numbers through
// sim_core::decimal (Fixed, Shortest) and the patched plotters-canvas
// instead. One `{}` or `{:.1}` on an f64 anywhere the page reaches brings it
// all back, so look for the first entry of Grisu's table of cached powers of
// ten (0xe61acf033d1a45df, little-endian) in the wasm.
test('the wasm carries no core float formatter (numbers go through sim_core::decimal)', () => {
  const grisu = Buffer.from('df451a3d03cf1ae6', 'hex');
  for (const f of fs.readdirSync(dist).filter((f) => f.endsWith('.wasm'))) {
    const at = fs.readFileSync(path.join(dist, f)).indexOf(grisu);
    assert.equal(at, -1, `${f} holds core's float formatter (Grisu's cached powers at byte ${at}): an f64 is written with {} or {:.N} somewhere the page reaches; use sim_core::decimal::Fixed or Shortest`);
  }
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

test('recomputing every rule after a slider change: the worker\'s time in wasm (reported; target 8 ms)', async () => {
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
  console.log(`budget: recompute median ${median(after).toFixed(2)} ms over moves 12–31, max ${Math.max(...after).toFixed(2)} ms (target 8); first 11 moves median ${median(first).toFixed(2)} ms, max ${Math.max(...first).toFixed(2)} ms`);
  const seen = moves.slice(11);
  console.log(`budget: slider key to results on screen, median over moves 12–31: outcome read back ${median(seen.map((m) => m[0])).toFixed(1)} ms, next frame painted ${median(seen.map((m) => m[1])).toFixed(1)} ms (reported, not a target)`);
  assert.equal(moves.length, 31, 'every move published one outcome');
  assert.ok(samples.every((s) => Number.isFinite(s)), 'the page publishes its compute time');
  assert.deepEqual(problems, []);
  await page.close();
});
