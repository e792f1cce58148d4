// Engine batching player in real headless Chromium against the release build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage } from './harness.mjs';

const env = await useAppAndBrowser();

test('switching modes and stepping to the last iteration shows each mode drained', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  // With no step in the link the player opens where the modes first
  // differ (iteration 2 of the default trace; every mode plays iteration 1
  // alike), whichever mode is chosen.
  for (const mode of ['continuous', 'chunked']) {
    await page.goto(`${env.srv.base}?lab=batching&mode=${mode}`);
    await page.waitForFunction(() => /^iteration 2 of \d+$/.test(document.querySelector('#player-label')?.textContent.trim() ?? ''));
  }
  await page.goto(`${env.srv.base}?lab=batching&step=1`);
  const label = page.locator('#player-label');
  await label.waitFor();
  // Continuous batching by default: iteration 1 prefills A and B, slot 3 idle, no output.
  assert.equal((await label.textContent()).trim(), 'iteration 1 of 19');
  assert.match(await page.locator('#iteration-heading').textContent(), /Iteration 1 · 0 output tokens/);
  assert.deepEqual(
    (await page.locator('.slot-list li').allTextContents()).map((s) => s.trim()),
    ['Slot 1: A · prefill', 'Slot 2: B · prefill', 'Slot 3: idle'],
  );
  const expected = { static: 25, continuous: 19, chunked: 14 };
  for (const [mode, n] of Object.entries(expected)) {
    await page.locator(`#mode-${mode}`).check();
    await page.waitForFunction((m) => new URL(location.href).searchParams.get('mode') === m, mode);
    await page.locator('button[aria-label="Last"]').click();
    assert.equal((await label.textContent()).trim(), `iteration ${n} of ${n}`, mode);
    assert.match(await page.locator('#iteration-lists').textContent(), /Completed: A, .*F/);
    await page.waitForFunction((n) => new URL(location.href).searchParams.get('step') === String(n), n);
    assert.equal(await page.locator('#gantt thead th').count(), n + 1, `${mode}: one column per iteration`);
  }
  // The comparison counts up to the player's iteration: at chunked
  // prefill's last (14), static batching has not drained yet.
  assert.match(await page.locator('#batching-upto').textContent(), /Iterations 1–14 so far/);
  assert.match((await page.locator('#batching-compare tbody tr').allTextContents())[0], /Static batching\s*14/);
  // At the end of the longest run (static, 25) every row is the whole run.
  await page.locator('#mode-static').check();
  await page.locator('button[aria-label="Last"]').click();
  assert.match(await page.locator('#batching-upto').textContent(), /Whole run/);
  const rows = await page.locator('#batching-compare tbody tr').allTextContents();
  assert.equal(rows.length, 3);
  assert.match(rows[0], /Static batching.*25.*6.*57%/);
  assert.match(rows[1], /Continuous batching.*19.*8.*91%/);
  assert.match(rows[2], /Chunked prefill.*14.*1.*93%/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the trace editor changes the run and the URL', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=batching&mode=chunked`);
  await page.locator('#add-request').click();
  await page.waitForFunction(() => (new URL(location.href).searchParams.get('trace') || '').split(',').length === 7);
  assert.equal(await page.locator('.trace-edit tbody tr').count(), 7);
  await page.locator('input[data-req="0"][data-field="o"]').fill('9');
  await page.locator('input[data-req="0"][data-field="o"]').press('Enter');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('trace').startsWith('0.1.9,'));
  assert.deepEqual(problems, []);
  await page.close();
});
