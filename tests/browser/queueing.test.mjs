// The queueing and overload explorables (issue 7) in headless Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab, settled } from './harness.mjs';

const env = await useAppAndBrowser();

/** Set a range input's value and fire `input`, as dragging it does. */
async function slide(page, id, value) {
  await page.locator(`#${id}`).evaluate((el, v) => {
    el.value = v;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, String(value));
}

const readoffs = (page) =>
  page.locator('#readoff-0 .card-number, #readoff-1 .card-number, #readoff-4 .card-number').allTextContents();

test('moving the tolerable-wait control updates the three read-offs', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=knee`);
  await page.locator('#readoff-4').waitFor();
  assert.deepEqual(await readoffs(page), ['0.86', '0.75', '0.55']);
  // Usable utilisation is w / (w + k) with k = 0.5, 1 and 2.5.
  await slide(page, 'wait', 5);
  await page.waitForFunction(() => document.querySelector('#readoff-0 .card-number')?.textContent === '0.91');
  assert.deepEqual(await readoffs(page), ['0.91', '0.83', '0.67']);
  assert.equal(new URL(page.url()).searchParams.get('wait'), '5');
  assert.equal((await page.locator('#wait-out').textContent()).trim(), '5.0 service times');
  await slide(page, 'wait', 1);
  await page.waitForFunction(() => document.querySelector('#readoff-0 .card-number')?.textContent === '0.67');
  assert.deepEqual(await readoffs(page), ['0.67', '0.50', '0.29']);
  // The chart's text alternative follows too.
  assert.match(await page.locator('#queueing-chart-summary').textContent(), /0\.67 for CV² 0, 0\.50 for CV² 1, 0\.29 for CV² 4/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the knee simulation lands within its band of the formula and reloads from the URL', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=knee&simulate=1&cv2=4&seed=3`);
  await page.locator('#simulated').waitFor();
  assert.equal(await page.locator('#simulate').isChecked(), true);
  assert.equal(await page.locator('#simulated tbody tr').count(), 5);
  const json = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  assert.deepStrictEqual(json, JSON.parse(lblab(['knee', '--simulate', '--cv2', '4', '--seed', '3', '--json'])));
  for (const p of json.simulated.filter((p) => p.rho <= 0.7)) {
    assert.ok(Math.abs(p.mean_wait - p.formula) / p.formula < 0.1, `ρ ${p.rho}: ${p.mean_wait} vs ${p.formula}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('every explorable computes what its CLI subcommand prints', async () => {
  const cases = [
    { query: '?lab=knee&wait=2.5&cv2=3&ca2=2', args: ['knee', '--wait', '2.5', '--cv2', '3', '--ca2', '2', '--json'] },
    { query: '?lab=little&kv-blocks=50000&prompt=16000&output=200&prefill-rate=512&cache-hit=0.9&seed=6', args: ['little', '--kv-blocks', '50000', '--prompt', '16000', '--output', '200', '--prefill-rate', '512', '--cache-hit', '0.9', '--seed', '6', '--json'] },
    { query: '?lab=retries&attempts=2,3,2&budget=0.2&incident-failure=0.8&seed=5', args: ['retries', '--attempts', '2,3,2', '--budget', '0.2', '--incident-failure', '0.8', '--seed', '5', '--json'] },
    { query: '?lab=hedging&hedge-at=99&slow-share=0.1&slow-factor=8&ttft-share=0.2&seed=2', args: ['hedging', '--hedge-at', '99', '--slow-share', '0.1', '--slow-factor', '8', '--ttft-share', '0.2', '--seed', '2', '--json'] },
    { query: '?lab=cascade&escalate=0.25&seed=9', args: ['cascade', '--escalate', '0.25', '--seed', '9', '--json'] },
  ];
  const { page, problems } = await watchedPage(env.browser.context);
  for (const c of cases) {
    await page.goto(env.srv.base + c.query);
    await page.locator('#headline .card, #headline table').first().waitFor();
    const json = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
    assert.deepStrictEqual(json, JSON.parse(lblab(c.args)), c.query);
    // The view reads back into the URL unchanged.
    const params = new URL(page.url()).searchParams;
    for (const [k, v] of new URLSearchParams(c.query)) assert.equal(params.get(k), v, `${c.query}: ${k}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('editing the retry stack updates the worst case, and bad input is explained', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=retries`);
  await page.locator('#card-upstream').waitFor();
  assert.equal(await page.locator('#card-upstream .card-number').textContent(), '144');
  assert.deepEqual(await page.locator('#stack .stack-product').allTextContents(), ['×3', '×12', '×48', '×144']);
  const peak = async (id) => Number(await page.locator(`#${id} .card-number`).textContent());
  assert.ok((await peak('card-budget')) <= 1.1, 'the budget caps calls near one per action');
  assert.ok((await peak('card-every')) > 50, 'retrying everywhere amplifies');
  await page.locator('#attempts').fill('2,2');
  await page.locator('#attempts').press('Enter');
  await page.waitForFunction(() => document.querySelector('#card-upstream .card-number')?.textContent === '4');
  assert.equal(new URL(page.url()).searchParams.get('attempts'), '2,2');
  await page.locator('#attempts').fill('3,0');
  await page.locator('#attempts').press('Enter');
  await page.locator('.notice.error').waitFor();
  assert.match(await page.locator('.notice.error').textContent(), /attempts must be 1–8 comma-separated/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('malformed URL values fall back to the defaults with a notice', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=hedging&hedge-at=100&slow-share=abc`);
  await page.locator('#strategies').waitFor();
  const notice = await page.locator('.notice').first().textContent();
  assert.match(notice, /hedge-at=100/);
  assert.match(notice, /slow-share=abc/);
  assert.equal(await page.locator('#hedge-at').inputValue(), '95');
  await page.goto(`${env.srv.base}?lab=retries&attempts=9,x`);
  await page.locator('#card-upstream').waitFor();
  assert.match(await page.locator('.notice').first().textContent(), /attempts=9,x/);
  assert.equal(await page.locator('#card-upstream .card-number').textContent(), '144');
  assert.deepEqual(problems, []);
  await page.close();
});

test('slow explorables recompute when a slider is released, while its label follows the drag', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=hedging`);
  await page.locator('#strategies').waitFor();
  const threshold = await page.locator('#threshold').textContent();
  await slide(page, 'hedge-at', 80);
  assert.equal((await page.locator('#hedge-at-out').textContent()).trim(), '80.0');
  assert.equal(await page.locator('#threshold').textContent(), threshold, 'no recomputation mid-drag');
  assert.equal(new URL(page.url()).searchParams.get('hedge-at'), null, 'still the default');
  await page.locator('#hedge-at').dispatchEvent('change');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('hedge-at') === '80');
  await settled(page);
  assert.notEqual(await page.locator('#threshold').textContent(), threshold);
  // The knee's read-offs follow the wait slider with the simulation on (the
  // worker simulates again; the page stays responsive meanwhile).
  await page.goto(`${env.srv.base}?lab=knee&simulate=1`);
  await page.locator('#simulated').waitFor();
  await slide(page, 'wait', 5);
  await page.waitForFunction(() => document.querySelector('#readoff-0 .card-number')?.textContent === '0.91');
  assert.deepEqual(problems, []);
  await page.close();
});
