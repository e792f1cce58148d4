// Prefix-affinity player in real headless Chromium against the release build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage } from './harness.mjs';

const env = await useAppAndBrowser();

test('stepping to request 12 shows the article totals', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=prefix`);
  const label = page.locator('#player-label');
  await label.waitFor();
  assert.equal((await label.textContent()).trim(), 'request 1 of 12');
  assert.match(await page.locator('#panel-load .routed').textContent(), /replica 1.*cache miss/);
  assert.match(await page.locator('#panel-prefix-aware .reason').textContent(), /First sight of P1/);
  for (let i = 0; i < 11; i++) await page.locator('#player-forward').click();
  assert.equal((await label.textContent()).trim(), 'request 12 of 12');
  assert.equal((await page.locator('#panel-load .cumulative').textContent()).trim(), '29,180 tokens');
  assert.equal((await page.locator('#panel-prefix-aware .cumulative').textContent()).trim(), '21,180 tokens');
  assert.equal((await page.locator('#panel-load .hits').textContent()).trim(), '4 of 12');
  assert.equal((await page.locator('#panel-prefix-aware .hits').textContent()).trim(), '6 of 12');
  assert.match(await page.locator('#reduction').textContent(), /27\.4%/);
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '12');
  assert.deepEqual(problems, []);
  await page.close();
});

test('an escape shows its reason in plain words, and the trace is editable', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=prefix&step=8`);
  await page.locator('#panel-prefix-aware').waitFor();
  assert.match(await page.locator('#panel-prefix-aware .reason').textContent(), /Affinity dropped: replica 1 holds P1 but is 3 requests ahead of replica 2, over the threshold of 2/);
  await page.locator('#add-request').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('trace') === '1,2,1,3,1,1,3,1,2,1,1,1,1');
  assert.equal(await page.locator('#trace-list li').count(), 13);
  assert.match(await page.locator('#player-label').textContent(), /of 13/);
  assert.deepEqual(problems, []);
  await page.close();
});
