// The providers lab (§12, §14.3–14.4) in headless Chromium against the
// release build: the page's run is the CLI's (`lblab providers --json`),
// the player opens on spillover's first spill, the cards and the table
// show the CLI's figures, picking a row plays that strategy, and the
// header's two preset links open the article's configurations with the
// CLI's figures for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab, settled } from './harness.mjs';

const env = await useAppAndBrowser();
const cli = JSON.parse(lblab(['providers', '--json']));
const regions = JSON.parse(lblab(['providers', '--reserved', '0', '--metered', '2', '--regions', '2', '--incident-region', '0', '--json']));
const priority = JSON.parse(lblab(['providers', '--rate', '4.5', '--incident-region', '0', '--breaker-429=0', '--json']));
const narration = (page) => page.locator('#narration').textContent();
const card = async (page, id) => (await page.locator(`#${id} .card-number`).textContent()).trim();
const pct = (x) => `${(x * 100).toFixed(1)}%`;
/** Wait until card `id` shows `value`. */
const cardShows = (page, id, value) => page.waitForFunction(
  ([id, v]) => document.querySelector(`#${id} .card-number`)?.textContent.trim() === v,
  [id, value],
);

test('providers: the CLI\'s run, opened on the first spill; a row plays its strategy', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=providers`);
  await settled(page);
  const json = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  assert.deepStrictEqual(json, cli);
  await page.waitForFunction(() => /Key moment: first spill/.test(document.querySelector('#narration')?.textContent || ''));
  assert.match(await narration(page), /calls? routed this tick; the bill is \$\d+\.\d\d\./);
  const spillover = cli.runs.find((r) => r.strategy === 'spillover');
  assert.equal(await card(page, 'card-cost'), spillover.cost_per_1k.toFixed(3));
  assert.equal(await card(page, 'card-hits'), pct(spillover.hit_share));
  assert.equal(await card(page, 'card-429'), String(spillover.client_429));
  assert.equal(await page.locator('#providers-compare tbody tr').count(), 9, 'one row per strategy');
  // Pick session affinity's row: the URL and the cards follow.
  await page.locator('#providers-compare button[data-key="sticky"]').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('strategy') === 'sticky');
  const sticky = cli.runs.find((r) => r.strategy === 'sticky');
  await cardShows(page, 'card-cost', sticky.cost_per_1k.toFixed(3));
  assert.deepEqual(problems, []);
  await page.close();
});

test('providers: the §14.3 and §14.4 links show the CLI\'s figures for them', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=providers`);
  await settled(page);
  // §14.3: two metered deployments in two regions, simple shuffle in focus.
  await page.locator('.lab-header a[href*="regions=2"]').click();
  await page.waitForURL((u) => u.searchParams.get('regions') === '2' && u.searchParams.get('strategy') === 'shuffle');
  await settled(page);
  const shuffle = regions.runs.find((r) => r.strategy === 'shuffle');
  assert.ok(shuffle.split_share > 0.5, `shuffle splits most conversations (${shuffle.split_share})`);
  await cardShows(page, 'card-split', pct(shuffle.split_share));
  // §14.4: a priority pool whose breaker counts only server errors.
  await page.locator('.lab-header a[href*="breaker-429=0"]').click();
  await page.waitForURL((u) => u.searchParams.get('breaker-429') === '0' && u.searchParams.get('strategy') === 'priority-pool');
  await settled(page);
  const pool = priority.runs.find((r) => r.strategy === 'priority-pool');
  await cardShows(page, 'card-429', String(pool.client_429));
  assert.deepEqual(problems, []);
  await page.close();
});
