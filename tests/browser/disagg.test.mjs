// The disaggregation lab (issue 29, §7.3) in headless Chromium: the page
// shows the crossover the CLI computes, and a faster link moves it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab, settled } from './harness.mjs';

const env = await useAppAndBrowser();

const crossover = async (page) => (await page.locator('#card-crossover .card-number').textContent()).trim();

test('the crossover card, the chart and the table match lblab disagg, and a faster link lowers the crossover', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=disagg`);
  await settled(page);
  const json = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  assert.deepStrictEqual(json, JSON.parse(lblab(['disagg', '--json'])));
  const at = json.crossover.At;
  assert.ok(at > 256 && at < 32768, `the default crossover lies inside the sweep: ${JSON.stringify(json.crossover)}`);
  assert.equal(await crossover(page), Math.round(at).toLocaleString('en-US'));
  // The split's lead is a window: the card gives where it ends too (the
  // prefill GPUs fall behind), as the chart's shaded band does.
  assert.ok(json.until > at && json.until < 32768, `the window closes inside the sweep: ${json.until}`);
  assert.equal(
    (await page.locator('#card-crossover .card-unit').textContent()).trim(),
    `to ${Math.round(json.until).toLocaleString('en-US')} tokens`,
  );
  assert.equal(await page.locator('#disagg-compare tbody tr').count(), 5, 'one row per setup');
  assert.match(await page.locator('#latency-chart-summary').textContent(), /split pool's latency is below the colocated pool's from about \d+ prompt tokens/);
  console.log(`disagg: crossover ${await crossover(page)} tokens at 25 GB/s`);

  await page.goto(`${env.srv.base}?lab=disagg&bandwidth=100`);
  await settled(page);
  const fast = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  assert.ok(fast.crossover.At < at, `100 GB/s: ${JSON.stringify(fast.crossover)} against ${at}`);
  assert.equal(await crossover(page), Math.round(fast.crossover.At).toLocaleString('en-US'));
  console.log(`disagg: crossover ${await crossover(page)} tokens at 100 GB/s`);
  assert.deepEqual(problems, []);
  await page.close();
});
