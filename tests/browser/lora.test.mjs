// The LoRA and cache-tiers lab (issue 51, §6.3) in headless Chromium
// against the release build: the player opens on residency-only affinity's
// hot spot and explains each decision, picking a rule's row plays that rule
// and its cards are the CLI's (`lblab lora --json`), and the tier chart is
// drawn with its words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab, settled } from './harness.mjs';

const env = await useAppAndBrowser();
const cli = JSON.parse(lblab(['lora', '--json']));
const narration = (page) => page.locator('#narration').textContent();
const card = async (page, id) => (await page.locator(`#${id} .card-number`).textContent()).trim();

test('lora: opens on residency\'s hot spot; a row plays its rule with the CLI\'s figures; the tier chart is drawn', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=lora`);
  await settled(page);
  const json = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  assert.deepStrictEqual(json, cli);
  await page.waitForFunction(() => /Key moment: hot spot: \d+ requests wait on replica \d/.test(document.querySelector('#narration')?.textContent || ''));
  const words = await narration(page);
  assert.match(words, /its adapter is already here; the least loaded of the replicas holding it/);
  const residency = cli.runs.find((r) => r.rule === 'residency');
  assert.equal(await card(page, 'card-ttft-p95'), residency.ttft_p95.toFixed(0));
  assert.equal(await card(page, 'card-hottest'), `${(residency.hottest_share * 100).toFixed(1)}%`);
  assert.equal(await page.locator('#lora-compare tbody tr').count(), 5, 'one row per rule');
  // Pick llm-d's row: its figures replace residency's, and the player plays it.
  await page.locator('#lora-compare button[data-key="llm-d"]').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('rule') === 'llm-d');
  const llmd = cli.runs.find((r) => r.rule === 'llm-d');
  await page.waitForFunction((v) => document.querySelector('#card-ttft-p95 .card-number')?.textContent.trim() === v, llmd.ttft_p95.toFixed(0));
  assert.ok(llmd.ttft_p95 < residency.ttft_p95, 'llm-d has the shorter tail at the defaults');
  // The player's recording of llm-d comes with the new run.
  await page.waitForFunction(() => /requests arrived this tick/.test(document.querySelector('#narration')?.textContent || ''));
  assert.doesNotMatch(await narration(page), /routed by residency/);
  // The tier chart and its words.
  await page.locator('#lora-tier-chart').scrollIntoViewIfNeeded();
  const none = cli.tiers[0];
  const said = `With no shared tier, least load reaches ${none.least_p95.toFixed(0)} ms against prefix-aware's ${none.prefix_p95.toFixed(0)} ms`;
  assert.ok((await page.content()).includes(said), said);
  assert.match(await page.locator('#lora-twin').textContent(), /hottest replica gets 13\.3% of requests/);
  assert.deepEqual(problems, []);
  await page.close();
});
