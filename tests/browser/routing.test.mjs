// Routing Lab in real headless Chromium against the release build in dist/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab } from './harness.mjs';

const env = await useAppAndBrowser();
// The registry decides which rules exist; nothing here counts them.
const REGISTRY = JSON.parse(lblab(['labs', '--json']));
const RULES = REGISTRY.find((l) => l.id === 'routing').focus.options;

const rows = (page) => page.locator('#compare-table tbody tr');

async function openRouting(page, query = '') {
  await page.goto(`${env.srv.base}?lab=routing${query}`);
  await rows(page).first().waitFor();
}


test('home and routing lab load with no console error', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(env.srv.base);
  await page.getByRole('link', { name: 'Routing Lab' }).first().waitFor();
  // The header's links come first; wait for the home page's own groups
  // (reading them at once raced the render under load).
  await page.locator('.layer h2').first().waitFor();
  // The queueing foundations first, then the layers that have labs (since
  // issue 25 a layer with no lab yet is left out: no empty boxes; L5 has one
  // since the disaggregation lab of issue 29); a card per lab.
  const groups = (await page.locator('.layer h2').allTextContents()).map((t) => t.split(' · ')[0]);
  assert.deepEqual(groups, ['Foundations', 'L1', 'L2', 'L3', 'L4', 'L5']);
  assert.equal(await page.locator('.layer .lab-card').count(), REGISTRY.length, 'one card per lab');
  await page.locator('.layer .lab-card', { hasText: 'Routing Lab' }).click();
  await rows(page).first().waitFor();
  assert.match(page.url(), /lab=routing/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the comparison table has one row per registered rule', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await openRouting(page);
  assert.equal(await rows(page).count(), RULES.length);
  const keys = await page.locator('#compare-table tbody th button').evaluateAll((els) => els.map((e) => e.dataset.key));
  assert.deepEqual(keys, RULES);
  assert.ok((await page.locator('#compare-table .best-mark').count()) >= 7, 'every column marks a best value');
  assert.deepEqual(problems, []);
  await page.close();
});

test('moving the arrival-rate slider changes the TTFT P95 card and the URL', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await openRouting(page);
  const card = page.locator('#card-ttft-p95 .card-number');
  const before = await card.textContent();
  const slider = page.locator('#rate');
  await slider.focus();
  for (let i = 0; i < 15; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('rate') === '0.35');
  assert.equal(await slider.inputValue(), '0.35');
  assert.notEqual(await card.textContent(), before, 'TTFT P95 should move with the load');
  assert.equal((await page.locator('output[for=rate]').textContent()).trim(), '0.35 req/tick');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a URL restores every control', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await openRouting(page, '&replicas=7&rate=0.42&mean-prompt=1500&prompt-cv=1.25&long-share=0.35&seed=99&rule=prefix-aware');
  assert.equal(await page.locator('#replicas').inputValue(), '7');
  assert.equal(await page.locator('#rate').inputValue(), '0.42');
  assert.equal(await page.locator('#mean-prompt').inputValue(), '1500');
  assert.equal(await page.locator('#prompt-cv').inputValue(), '1.25');
  assert.equal(await page.locator('#long-share').inputValue(), '0.35');
  assert.equal((await page.locator('output[for=long-share]').textContent()).trim(), '35%');
  assert.equal(await page.locator('#seed').inputValue(), '99');
  assert.equal(await page.locator('#rule-prefix-aware').isChecked(), true);
  assert.equal(await page.locator('#replica-table tbody tr').count(), 7);
  assert.equal(await page.locator('.notice').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('malformed URL values fall back to defaults with a visible notice', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await openRouting(page, '&replicas=0&rate=lots&prompt-cv=9&rule=magic');
  assert.equal(await page.locator('#replicas').inputValue(), '4');
  assert.equal(await page.locator('#rate').inputValue(), '0.2');
  const notice = await page.locator('.notice').textContent();
  assert.match(notice, /replicas=0/);
  assert.match(notice, /rate=lots/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the wasm outcome equals `lblab routing --json`, number for number', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  const cases = [
    { query: '', args: [] },
    {
      query: '&replicas=6&rate=0.35&mean-prompt=1200&prompt-cv=1.1&long-share=0.3&seed=4242',
      args: ['--replicas', '6', '--rate', '0.35', '--mean-prompt', '1200', '--prompt-cv', '1.1', '--long-share', '0.3', '--seed', '4242'],
    },
    {
      // A heterogeneous pool, a replica joining under slow start, and every
      // rule's counterfactuals: the real routers' policies, bit for bit.
      query: '&speeds=2,1,1,1&scale-up-at=400&envoy-slow-start=100&dynamo-temperature=0.5&counterfactuals=1',
      args: ['--speeds', '2,1,1,1', '--scale-up-at', '400', '--envoy-slow-start', '100', '--dynamo-temperature', '0.5', '--counterfactuals'],
    },
  ];
  for (const c of cases) {
    await openRouting(page, c.query);
    const wasm = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
    const native = JSON.parse(lblab(['routing', ...c.args, '--json']));
    assert.deepStrictEqual(wasm, native);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('the decision explorer shows where every rule would send a request, as the CLI does', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  const rule = 'sglang-cache-aware';
  await openRouting(page, `&rule=${rule}&scale-up-at=300`);
  await page.locator('#decisions > summary').click();
  const summary = page.locator('#decision-summary');
  await summary.waitFor();
  assert.match(await summary.textContent(), /^Request 1 of 160 arrived at tick/);
  assert.equal(await page.locator('#decision-prev').isDisabled(), true, 'nothing before the first request');
  // Keyboard: type a request number and commit it.
  await page.locator('#decision-request').fill('37');
  await page.locator('#decision-request').press('Enter');
  await page.waitForFunction(() => document.querySelector('#decision-summary').textContent.startsWith('Request 37 '));
  await page.locator('#decision-next').click();
  await page.waitForFunction(() => document.querySelector('#decision-summary').textContent.startsWith('Request 38 '));
  const shown = await page.locator('#decision-table tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [tr.querySelector('th').textContent, tr.querySelectorAll('td')[0].textContent]),
  );
  assert.equal(shown.length, RULES.length, 'the rule in focus and every other rule');
  const native = JSON.parse(lblab(['routing', '--rule', rule, '--scale-up-at', '300', '--counterfactuals', '--json']));
  const d = native.rules[0].counterfactuals[37];
  const expected = [d.decision.replica, ...d.others.map((o) => o.decision.replica)].map((r) => `Replica ${r + 1}`);
  assert.deepEqual(shown.map((r) => r[1]), expected);
  // The last request has no Next.
  await page.locator('#decision-request').fill('999');
  await page.locator('#decision-request').press('Enter');
  await page.waitForFunction(() => document.querySelector('#decision-summary').textContent.startsWith('Request 160 '));
  assert.equal(await page.locator('#decision-next').isDisabled(), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a GPU preset turns every time into milliseconds, as the CLI prints them, and back', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await openRouting(page, '&gpu=h100&model=llama-3.1-8b&tp=1');
  const cli = JSON.parse(lblab(['routing', '--gpu', 'h100', '--model', 'llama-3.1-8b', '--tp', '1', '--json']));
  const lo = cli.rules.find((r) => r.rule === 'least-outstanding');
  const p95 = page.locator('#card-ttft-p95');
  assert.equal((await p95.locator('.card-number').textContent()).trim(), Math.round(lo.ttft_p95).toLocaleString('en-US'));
  assert.match(await p95.textContent(), /\bms\b/, 'the TTFT card speaks milliseconds');
  assert.match(await page.locator('#card-throughput').textContent(), /tokens\/s/);
  assert.match(await page.locator('#preset-summary').textContent(), /Llama 3\.1 8B on H100 SXM 80GB in BF16: prefill about [\d,]+ tokens\/s; a decode step [\d.]+ ms at batch 1/);
  assert.match(await page.locator('#offered-load').textContent(), /req\/s/);
  // Only the controls of the mode show: requests per second, not per tick.
  assert.ok(await page.locator('#rps').isVisible(), 'rps shows in milliseconds');
  assert.ok(!(await page.locator('#rate').isVisible()), 'rate (per tick) is hidden in milliseconds');
  assert.match(await page.locator('#compare-table thead').textContent(), /TTFT P95/);
  // Back to ticks: the per-tick rate returns and the cards say ticks.
  await page.locator('#gpu-none').check();
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('gpu'));
  await page.waitForFunction(() => /ticks/.test(document.querySelector('#card-ttft-p95').textContent));
  assert.ok(await page.locator('#rate').isVisible(), 'rate shows in ticks');
  assert.ok(!(await page.locator('#rps').isVisible()), 'rps is hidden in ticks');
  assert.equal(await page.locator('#preset-summary').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('speculative decoding: the table puts TPOT and ITL side by side, as the CLI computes them, ITL about twice TPOT', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  const pairs = [['gpu', 'l4'], ['model', 'llama-3.1-8b'], ['precision', 'fp8'], ['replicas', '1'], ['requests', '40'],
    ['clients', '1'], ['think', '0'], ['mean-prompt', '512'], ['prompt-cv', '0'], ['long-share', '0'],
    ['short-output-mean', '256'], ['short-output-cv', '0.05'], ['spec-k', '3'], ['spec-accept', '0.54'], ['draft-cost', '0.05']];
  await openRouting(page, pairs.map(([k, v]) => `&${k}=${v}`).join(''));
  const cli = JSON.parse(lblab(['routing', ...pairs.flatMap(([k, v]) => [`--${k}`, v]), '--json']));
  const rr = cli.rules.find((r) => r.rule === 'round-robin');
  const head = (await page.locator('#compare-table thead th').allTextContents()).map((t) => t.trim());
  const col = (name) => head.findIndex((t) => t.startsWith(name));
  assert.ok(col('TPOT mean') > 0 && col('ITL mean') > 0, `columns: ${head.join(' | ')}`);
  const row = page.locator('#compare-table tbody tr[data-key="round-robin"], #compare-table tbody tr:has(button[data-key="round-robin"])').first();
  const cells = (await row.locator('th, td').allTextContents()).map((t) => t.trim());
  const tpot = Number(cells[col('TPOT mean')]);
  const itl = Number(cells[col('ITL mean')]);
  assert.equal(tpot, Number(rr.tpot_mean.toFixed(1)));
  assert.equal(itl, Number(rr.itl_mean.toFixed(1)));
  console.log(`speculative example on the page: TPOT ${tpot} ms, ITL ${itl} ms (CLI ${rr.tpot_mean.toFixed(2)}, ${rr.itl_mean.toFixed(2)})`);
  assert.ok(itl > 1.8 * tpot && itl < 2.2 * tpot, `ITL ${itl} against TPOT ${tpot}`);
  assert.match(await page.locator('#preset-summary').textContent(), /Speculative decoding: 3 drafts a step/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('in milliseconds the player covers the whole run, and its narration names a slower replica step', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  // A prefill chunk of 1,024 tokens is compute-bound on an H100 (the
  // default 192 hides under the weights' read): a replica prefilling steps
  // far slower than one that only decodes.
  await openRouting(page, '&gpu=h100&model=llama-3.1-8b&tp=1&prefill-budget=1024');
  const cli = JSON.parse(lblab(['routing', '--gpu', 'h100', '--model', 'llama-3.1-8b', '--tp', '1', '--prefill-budget', '1024', '--json']));
  // The player plays the rule in focus and, side by side, round robin: it
  // lasts as long as the longer of the two runs.
  const ticks = Math.max(...['least-outstanding', 'round-robin'].map((id) => cli.rules.find((r) => r.rule === id).ticks));
  const scrub = page.locator('#player-scrub');
  await scrub.waitFor();
  // The scrubber's last position is the run's last millisecond.
  await page.waitForFunction(() => Number(document.querySelector('#player-scrub').max) > 0);
  const last = Number(await scrub.getAttribute('max'));
  console.log(`milliseconds player: ${last + 1} steps for a run of ${ticks} ms`);
  assert.equal(last + 1, ticks, 'the player covers every millisecond of the run');
  assert.doesNotMatch(await page.locator('[data-panel="player"]').textContent(), /The player shows the first/);
  // Somewhere a replica with a prefill chunk in its step is seen to step
  // slower than another: the narration names both.
  let found = '';
  for (let t = 100; t < Math.min(last, 3000) && !found; t += 37) {
    await scrub.evaluate((e, v) => { e.value = String(v); e.dispatchEvent(new Event('input', { bubbles: true })); }, t);
    await page.waitForFunction((v) => document.querySelector('#narration').textContent.startsWith(`${v} ms.`), t);
    const text = await page.locator('#narration').textContent();
    const m = text.match(/replica \d+ takes ([\d.]+) ms a step, replica \d+ ([\d.]+) ms/);
    if (m) found = `${t} ms: ${m[0]}`;
  }
  console.log(`first slower step found at ${found}`);
  assert.ok(found, 'some tick names a slower replica step');
  assert.deepEqual(problems, []);
  await page.close();
});
