// Routers' own configurations in the page (article §14): pasting the
// §14.3 LiteLLM config into the providers lab runs it (two regions, simple
// shuffle: the conversations split and the cache hits fall, the CLI's
// figures for the same file), the report names the secrets it dropped and
// offers session pinning, one click that restores the hits; the settings
// go back out as LiteLLM YAML with the reproducing link and no secret; a
// configuration for another lab links there; bad input shows its line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { useAppAndBrowser, watchedPage, lblab, settled } from './harness.mjs';

const env = await useAppAndBrowser();
const fixture = (name) => new URL(`../fixtures/router-config/${name}`, import.meta.url).pathname;
const litellm = fs.readFileSync(fixture('litellm-14-3.yaml'), 'utf8');
const cli = JSON.parse(lblab(['providers', '--router-config', fixture('litellm-14-3.yaml'), '--json']));
const run = (name) => cli.runs.find((r) => r.strategy === name);
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const cardShows = (page, id, value) => page.waitForFunction(
  ([id, v]) => document.querySelector(`#${id} .card-number`)?.textContent.trim() === v,
  [id, value],
);

/** Open the panel, paste `text` and read it. */
async function paste(page, text) {
  const panel = page.locator('details.config-panel');
  if ((await panel.getAttribute('open')) === null) await panel.locator('summary').click();
  await page.locator('#router-config-text').fill(text);
  await page.locator('#router-config-go').click();
}

test('router config: the §14.3 LiteLLM config shows the cross-region cache loss; pinning is one click', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=providers`);
  await settled(page);
  await paste(page, litellm);
  await page.waitForURL((u) => u.searchParams.get('regions') === '2' && u.searchParams.get('strategy') === 'shuffle' && u.searchParams.get('reserved') === '0');
  await settled(page);
  const shuffle = run('shuffle');
  const sticky = run('sticky');
  assert.ok(shuffle.split_share > 0.4, `shuffle splits conversations (${shuffle.split_share})`);
  assert.ok(sticky.hit_share > shuffle.hit_share + 0.03, `pinning keeps more hits (${sticky.hit_share} against ${shuffle.hit_share})`);
  await cardShows(page, 'card-split', pct(shuffle.split_share));
  await cardShows(page, 'card-hits', pct(shuffle.hit_share));
  const report = await page.locator('.config-lines').textContent();
  assert.match(report, /Two regions/);
  assert.match(report, /api_key: a secret, dropped/);
  assert.ok(!page.url().includes('AZURE') && !page.url().includes('environ'), 'no secret in the link');
  // The export writes the running settings back, with the link and no secret.
  await page.locator('#router-config-format').selectOption({ label: 'LiteLLM router' });
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#router-config-export').click()]);
  const yaml = fs.readFileSync(await download.path(), 'utf8');
  assert.match(yaml, /routing_strategy: simple-shuffle/);
  assert.match(yaml, /Reproduce this run: http:\/\/[^\n]*\?lab=providers[^\n]*regions=2/);
  assert.ok(!yaml.includes('AZURE_EASTUS2_KEY') && !yaml.includes('AZURE_SWEDEN_KEY'));
  // The suggested fix: one click pins sessions.
  await page.locator('.config-fix', { hasText: 'Pin each conversation' }).click();
  await page.waitForURL((u) => u.searchParams.get('strategy') === 'sticky');
  await cardShows(page, 'card-split', pct(sticky.split_share));
  await cardShows(page, 'card-hits', pct(sticky.hit_share));
  assert.deepEqual(problems, []);
  await page.close();
});

test('router config: another lab\'s configuration links there; bad input names its line', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=providers`);
  await settled(page);
  await paste(page, fs.readFileSync(fixture('sglang-14-2.sh'), 'utf8'));
  const link = page.locator('#router-config-elsewhere');
  await link.waitFor();
  assert.match(await link.getAttribute('href'), /lab=routing.*sglang-cache-threshold=0\.5/);
  await paste(page, 'model_list:\n  - model_name: x\n    litellm_params: [\n');
  await page.locator('#router-config-error').waitFor();
  assert.match(await page.locator('#router-config-error').textContent(), /line \d+: YAML/);
  // Routing lab: §14.2 read in place, three values differ.
  await page.goto(`${env.srv.base}?lab=routing`);
  await settled(page);
  await paste(page, fs.readFileSync(fixture('sglang-14-2.sh'), 'utf8'));
  await page.waitForURL((u) => u.searchParams.get('sglang-cache-threshold') === '0.5');
  assert.equal(await page.locator('.config-lines li.differs').count(), 3);
  assert.deepEqual(problems, []);
  await page.close();
});
