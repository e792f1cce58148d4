// Herding lab player in real headless Chromium against the release build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage } from './harness.mjs';

const env = await useAppAndBrowser();

const stepParam = (page) => new URL(page.url()).searchParams.get('step');

test('stepping forward and back moves the tick label, the router table and the URL', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  // With no step in the link the player opens on the stale rule's first
  // pile (tick 19 at the defaults), not on an empty tick 0.
  await page.goto(`${env.srv.base}?lab=herding`);
  await page.waitForFunction(() => document.querySelector('#player-label')?.textContent.trim() === 'tick 19 of 89');
  await page.goto(`${env.srv.base}?lab=herding&step=0`);
  const label = page.locator('#player-label');
  await label.waitFor();
  assert.equal((await label.textContent()).trim(), 'tick 0 of 89');
  assert.equal(await page.locator('#router-table tbody tr').count(), 4, 'one row per router');
  // At tick 0 every router scrapes.
  assert.match(await page.locator('#scraped').textContent(), /Router 1, Router 2, Router 3, Router 4/);
  const tableAt0 = await page.locator('#router-table tbody').textContent();

  for (let i = 0; i < 12; i++) await page.locator('#player-forward').click();
  assert.equal((await label.textContent()).trim(), 'tick 12 of 89');
  assert.match(await page.locator('#tick-heading').textContent(), /^Tick 12 /);
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '12');
  const tableAt12 = await page.locator('#router-table tbody').textContent();
  assert.notEqual(tableAt12, tableAt0, 'the routers see a newer snapshot at tick 12');

  // Keyboard: ← twice with focus outside any form control.
  await page.locator('#tick-heading').click();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal((await label.textContent()).trim(), 'tick 10 of 89');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '10');
  assert.match(await page.locator('#scraped').textContent(), /Scraped this tick: Router 1/);
  await page.locator('#player-back').click();
  assert.equal(stepParam(page) === '9' || (await label.textContent()).includes('tick 9'), true);

  // Reloading the URL restores the step.
  await page.goto(`${env.srv.base}?lab=herding&step=33&rule=both&routers=3`);
  assert.equal((await label.textContent()).trim(), 'tick 33 of 89');
  assert.equal(await page.locator('#router-table tbody tr').count(), 3);
  assert.equal(await page.locator('#rule-both').isChecked(), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the comparison table lists the four rules', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=herding`);
  await page.locator('#herding-compare tbody tr').first().waitFor();
  assert.equal(await page.locator('#herding-compare tbody tr').count(), 4);
  assert.deepEqual(problems, []);
  await page.close();
});
