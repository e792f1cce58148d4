// Traces in the browser, and heavy work off the main thread (issue 15): a
// dropped file and a bundled excerpt replay under every rule exactly as the
// CLI replays them; slider drags with the knee's simulation on leave no long
// task on the main thread; Cancel stops a sweep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useAppAndBrowser, watchedPage, lblab, settled, root } from './harness.mjs';

const env = await useAppAndBrowser();
const RULES = JSON.parse(lblab(['labs', '--json'])).find((l) => l.id === 'routing').focus.options;
// The engine the trace panel sizes for real traces (web/src/labs/traces.rs).
const ENGINE = ['--replicas', '8', '--prefill-budget', '8192', '--kv-blocks', '40000', '--slots', '16', '--cache-tokens', '262144', '--slo-ttft', '50'];
const excerpt = (name) => path.join(root, 'assets', 'traces', name);

// The full trace, when it is at hand: $LBLAB_TRACES, else a `traces/` folder
// in a directory beside the repository (as the Rust tests and `lblab bench` look).
function fullTrace(name) {
  if (process.env.LBLAB_TRACES) {
    const p = path.join(process.env.LBLAB_TRACES, name);
    return fs.existsSync(p) ? p : null;
  }
  const parent = path.dirname(root);
  for (const d of fs.readdirSync(parent).sort()) {
    const p = path.join(parent, d, 'traces', name);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

async function drop(page, name, text) {
  await page.evaluate(([name, text]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], name));
    const zone = document.querySelector('#trace-drop');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [name, text]);
}

const runs = (page) => page.evaluate(() => Number(document.documentElement.dataset.runs || 0));

test('a dropped trace file replays under every rule, as the CLI replays it', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing`);
  const file = excerpt('azure_code_first500.csv');
  const text = fs.readFileSync(file, 'utf8');
  const before = await runs(page);
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'azure_code_first500.csv', { type: 'text/csv' }));
    const zone = document.querySelector('#trace-drop');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, text);
  await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, before);
  await settled(page);
  const status = await page.locator('#trace-status').textContent();
  assert.match(status, /Replaying azure_code_first500\.csv/);
  assert.match(status, /Azure LLM inference CSV: 500 of 500 rows kept/);
  assert.match(status, /not part of the page's link/);
  assert.equal(await page.locator('#compare-table tbody tr').count(), RULES.length);
  const wasm = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  const native = JSON.parse(lblab(['routing', '--trace', file, ...ENGINE, '--json']));
  assert.deepStrictEqual(wasm, native);
  assert.equal(new URL(page.url()).searchParams.get('trace'), null, 'a dropped file is not in the link');
  // Back to the generator.
  await page.locator('#trace-clear').click();
  await settled(page);
  assert.match(await page.locator('#trace-status').textContent(), /generator/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a bundled excerpt loads in one click, and its link replays it', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing&rule=prefix-aware`);
  const before = await runs(page);
  await page.locator('#trace-mooncake-conversation').click();
  await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, before);
  await settled(page);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('trace'), 'mooncake-conversation');
  assert.equal(url.searchParams.get('prefill-budget'), '8192');
  const native = JSON.parse(lblab(['routing', '--trace', excerpt('mooncake_conversation_first2000.jsonl'), ...ENGINE, '--json']));
  const wasm = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  assert.deepStrictEqual(wasm, native);
  // The prefix-aware rule never reuses more than an infinite cache could.
  const pa = wasm.rules.find((r) => r.rule === 'prefix-aware');
  assert.ok(pa.cache_hit_share <= wasm.trace.reuse_bound, `${pa.cache_hit_share} > ${wasm.trace.reuse_bound}`);
  // The link opens the same replay.
  await page.goto(page.url());
  await settled(page);
  assert.deepStrictEqual(JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json())), native);
  assert.deepEqual(problems, []);
  await page.close();
});

// Issue 53: the evaluate lab replays a trace too, sized by its own settings,
// and says what the trace holds (its reuse bound and the conversations found
// in its prefix chains) beside what the import kept.
const EVALUATE = ['--replicas', '8', '--slots', '16', '--prefill', '8192', '--cache', '262144', '--slo', '50', '--warm', '1000', '--measure', '5000', '--outage-at', '1200', '--outage-for', '800'];
test('the evaluate lab replays a bundled excerpt and shows its statistics, as the CLI does', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=evaluate`);
  await settled(page);
  const before = await runs(page);
  await page.locator('#trace-mooncake-conversation').click();
  await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, before);
  await settled(page);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('trace'), 'mooncake-conversation');
  assert.equal(url.searchParams.get('prefill'), '8192');
  const status = await page.locator('#trace-status').textContent();
  assert.match(status, /Mooncake JSONL: 2000 of 2000 rows kept/);
  assert.match(status, /1,590 conversations, found by following its prefix chains/);
  assert.match(status, /reuse bound 28\.9% of prompt tokens/);
  const native = JSON.parse(lblab(['evaluate', '--trace', excerpt('mooncake_conversation_first2000.jsonl'), ...EVALUATE, '--json']));
  const wasm = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  assert.deepStrictEqual(wasm, native);
  assert.equal(wasm.replay.conversations, 1590);
  assert.deepEqual(problems, []);
  await page.close();
});

// Issue 47: the worker parses a loaded trace once per file; every change of
// the settings after that replays the parsed rows (it used to parse the
// file again on each one).
test('a loaded trace is parsed once, not on every slider move', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing`);
  await settled(page);
  let before = await runs(page);
  await page.locator('#trace-mooncake-conversation').click();
  await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, before);
  await settled(page);
  const parses = () => page.evaluate(() => window.wasmBindings.lblab_trace_parses());
  assert.equal(await parses(), 1, 'the file was parsed once on load');
  await page.locator('#replicas').focus();
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowLeft']) {
    before = await runs(page);
    await page.keyboard.press(key);
    await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, before);
  }
  await settled(page);
  console.log(`trace parses after loading it and three slider moves: ${await parses()}`);
  assert.equal(await parses(), 1, 'three moves later, still parsed once');
  assert.deepEqual(problems, []);
  await page.close();
});

// Long main-thread tasks are reported, not asserted (issue 24): their length
// on a busy two-core CI machine is noise. What is asserted is that the
// simulations ran off the page (the worker answered every change).
test('main-thread tasks while the knee sliders move with Simulate on (reported; target none over 50 ms)', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=knee&simulate=1`);
  await page.locator('#simulated').waitFor();
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask' });
  });
  const before = await runs(page);
  for (const key of ['cv2', 'ca2', 'wait', 'mean', 'wait']) {
    await page.locator(`#${key}`).focus();
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press(i % 3 === 2 ? 'ArrowLeft' : 'ArrowRight');
      // A drag's pace: one key per frame.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
    }
  }
  await settled(page);
  const after = await runs(page);
  const long = await page.evaluate(() => window.__longTasks);
  console.log(`long tasks during the drags: ${long.length ? long.join(', ') + ' ms' : 'none'}; ${after - before} simulations ran`);
  assert.ok(after > before, 'the simulation reran');
  assert.deepEqual(problems, []);
  await page.close();
});

test('main-thread tasks while any lab\'s sliders move (reported; target none over 50 ms)', async () => {
  const labs = JSON.parse(lblab(['labs', '--json']));
  const report = [];
  const { page, problems } = await watchedPage(env.browser.context);
  for (const lab of labs) {
    await page.goto(`${env.srv.base}?lab=${lab.id}`);
    await page.locator('.lab-header h1').waitFor();
    await settled(page);
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
      }).observe({ type: 'longtask' });
    });
    // The first three sliders of the panel, dragged by keyboard (a step per key).
    const sliders = await page.locator('.controls-panel input[type="range"]').evaluateAll((els) => els.slice(0, 3).map((e) => e.id));
    for (const id of sliders) {
      await page.locator(`#${id}`).focus();
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press(i % 3 === 2 ? 'ArrowLeft' : 'ArrowRight');
        // A drag's pace: one key per frame.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
      }
    }
    await settled(page);
    const long = await page.evaluate(() => window.__longTasks);
    report.push(`${lab.id} ${long.length ? long.join('/') + ' ms' : 'none'}`);
    assert.ok(sliders.length > 0, `${lab.id} has sliders`);
  }
  console.log(`long tasks while dragging (target: none over 50 ms): ${report.join('; ')}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Cancel stops a sweep and keeps the previous results', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=goodput`);
  const previous = await page.evaluate(() => window.wasmBindings.lblab_outcome_json());
  const before = await runs(page);
  // A heavy sweep, just inside the work bound: 4,200 requests at every
  // rate under every rule (about a second natively, more in the worker).
  await page.locator('.more-settings summary').first().click();
  await page.locator('#requests').fill('4200');
  await page.locator('#requests').press('Enter');
  await page.locator('#run-progress').waitFor({ state: 'visible' });
  await page.waitForFunction(() => /Computing… \d+ of \d+ runs/.test(document.querySelector('#run-status')?.textContent ?? ''));
  await page.locator('#run-cancel').click();
  await page.locator('#run-cancelled').waitFor();
  // Cancelling terminates the worker, so no reply can follow; the page is no
  // longer busy.
  await page.waitForFunction(() => !document.documentElement.hasAttribute('data-busy'));
  assert.equal(await runs(page), before, 'no outcome arrived after the cancel');
  assert.equal(await page.evaluate(() => document.documentElement.hasAttribute('data-busy')), false);
  assert.equal(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()), previous);
  assert.equal(await page.locator('#run-progress').count(), 0);
  // A new setting runs again.
  await page.locator('#requests').fill('200');
  await page.locator('#requests').press('Enter');
  await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, before);
  await settled(page);
  assert.equal(await page.locator('#run-cancelled').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

// The benchmark of issue 15 (a figure, reported; the budget is generous for
// this 2-core machine): the worker's compute time for the full 12,031-request
// trace on 16 replicas under every rule, import included.
test('benchmark: the full Mooncake conversation trace replays on 16 replicas under every rule (wasm time reported; target 1 s)', async (t) => {
  const file = fullTrace('mooncake_conversation_trace.jsonl');
  if (!file) {
    t.skip('skipped: mooncake_conversation_trace.jsonl not found (set LBLAB_TRACES to its directory)');
    return;
  }
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing`);
  let before = await runs(page);
  await drop(page, 'mooncake_conversation_trace.jsonl', fs.readFileSync(file, 'utf8'));
  await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, before);
  await settled(page);
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
  const times = [];
  for (const [key, value] of [['replicas', '16'], ['seed', '2'], ['seed', '3']]) {
    before = await runs(page);
    await page.locator(`#${key}`).fill(value);
    await page.locator(`#${key}`).press('Enter');
    await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, before, { timeout: 20000 });
    await settled(page);
    times.push(await page.evaluate(() => window.wasmBindings.lblab_last_compute_ms()));
  }
  const o = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  assert.equal(o.config.replicas, 16);
  assert.equal(o.rules.length, RULES.length);
  assert.ok(o.rules.every((r) => r.completed === 12031));
  times.sort((a, b) => a - b);
  console.log(`benchmark: full Mooncake conversation trace, 16 replicas, ${RULES.length} rules: wasm median ${times[1].toFixed(0)} ms (runs ${times.map((x) => x.toFixed(0)).join(', ')}; target < 1000)`);
  assert.ok(times.every((x) => Number.isFinite(x) && x > 0), 'every replay timed');
  assert.deepEqual(problems, []);
  await page.close();
});
