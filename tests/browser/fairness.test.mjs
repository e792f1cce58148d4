// The fairness player (issue 28) in real headless Chromium against the
// release build: it opens on its point, stepping changes the narration, and
// "Next key moment" lands on the overtake, the preemption and the shared
// prompt's cache miss where sim-core flags them (read from
// `lblab fairness --scheduler=… --json`, which records that scheduler).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab } from './harness.mjs';

const env = await useAppAndBrowser();

/// Iterations (0-based) that sim-core flags for `scheduler`, with the kind
/// and the numbers the CLI's `--detail` prints for each (the recording is
/// the page's alone: JSON carries it as null).
function moments(scheduler) {
  const ticks = JSON.parse(lblab(['fairness', '--json'])).config.ticks;
  const text = lblab(['fairness', `--scheduler=${scheduler}`, '--detail']);
  const KINDS = [
    [/ served before /, 'Overtake'],
    [/ preempted a /, 'Preemption'],
    [/^shared prompt evicted /, 'PrefixMiss'],
  ];
  const all = [...text.matchAll(/^ {2}iteration +(\d+): (.*)$/gm)].map((m) => ({
    i: Number(m[1]) - 1,
    kind: KINDS.find(([re]) => re.test(m[2]))?.[1],
    words: m[2],
  }));
  return { all, ticks };
}

const label = (page) => page.locator('#player-label').textContent().then((s) => s.trim());
const narration = (page) => page.locator('#narration').textContent();
const stepIs = (page, s) =>
  page.waitForFunction((s) => new URL(location.href).searchParams.get('step') === String(s), s);

test('fairness: opens on VTC passing an older request, and stepping changes the narration', async () => {
  const { all, ticks } = moments('vtc');
  const [first] = all;
  assert.equal(first.kind, 'Overtake');
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=fairness`);
  await page.locator('#narration').waitFor();
  await page.waitForFunction((n) => document.querySelector('#player-label')?.textContent.includes(`iteration ${n} of`), first.i + 1);
  assert.equal(await label(page), `iteration ${first.i + 1} of ${ticks}`);
  assert.match(await narration(page), /Key moment: chat was served although long prompts had a request waiting \d+ iterations longer/);
  assert.match(await narration(page), /the least weighted service \(the lowest counter\); the others: long prompts counter [\d,]+/);
  const seen = new Set([await narration(page)]);
  for (let k = 0; k < 3; k++) {
    const before = await narration(page);
    await page.locator('#player-forward').click();
    await page.waitForFunction((b) => document.querySelector('#narration').textContent !== b, before);
    seen.add(await narration(page));
  }
  assert.equal(seen.size, 4, [...seen].join(' | '));
  console.log(`fairness opens at iteration ${first.i + 1}: ${[...seen][0].slice(0, 120)}…`);
  assert.deepEqual(problems, []);
  await page.close();
});

const CASES = [
  { scheduler: 'priority', kind: 'Preemption', words: /Key moment: a chat request arrived with every slot busy, so the newest long prompts sequence was evicted\. The \d+ tokens it had computed are thrown away/ },
  { scheduler: 'tpm', kind: 'PrefixMiss', words: /Key moment: a shared-prompt request found its 1200-token system prompt gone from the cache/ },
];

for (const c of CASES) {
  test(`fairness: "Next key moment" lands on the ${c.kind} of ${c.scheduler}`, async () => {
    const { all, ticks } = moments(c.scheduler);
    const target = all.find((m) => m.kind === c.kind);
    assert.ok(target, `${c.scheduler} has a ${c.kind} at the defaults`);
    const { page, problems } = await watchedPage(env.browser.context);
    await page.goto(`${env.srv.base}?lab=fairness&scheduler=${c.scheduler}&step=1`);
    await page.locator('#narration').waitFor();
    for (const m of all) {
      await page.locator('#moment-next').click();
      await stepIs(page, m.i + 1);
      if (m === target) break;
    }
    assert.equal(await label(page), `iteration ${target.i + 1} of ${ticks}`);
    assert.match(await narration(page), c.words);
    if (c.kind === 'Preemption') {
      assert.match(await narration(page), /Strict priority evicted a long prompts sequence to free a slot for chat/);
      assert.match(target.words, /\((\d+) tokens of work start over\)/);
      assert.ok(Number(target.words.match(/\((\d+) tokens/)[1]) > 0, target.words);
    }
    assert.equal(await page.locator('.scrub-mark').count(), all.length, 'every key moment is marked on the bar');
    console.log(`fairness ${c.scheduler}: ${c.kind} at iteration ${target.i + 1} (${all.length} key moments)`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('fairness: a row of the comparison plays that scheduler, and its tenants table follows', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=fairness`);
  await page.locator('#fairness-compare').waitFor();
  await page.locator('#fairness-compare button[data-key="rpm"]').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('scheduler') === 'rpm');
  await page.waitForFunction(() => /Tenants under Request fairness \(RPM\)/.test(document.body.textContent));
  assert.match(await page.locator('#fairness-compare tr.selected').textContent(), /Request fairness/);
  // Under RPM the long-prompt tenant's GPU share is far above its request share.
  const cells = await page.locator('#fairness-tenants tr', { hasText: 'long prompts' }).locator('td').allTextContents();
  const [req, gpu] = cells.slice(1, 3).map((c) => Number(c.replace('%', '')));
  assert.ok(gpu >= 2 * req, `long prompts: ${req}% of requests, ${gpu}% of GPU time`);
  console.log(`fairness rpm: long prompts ${req}% of requests, ${gpu}% of GPU time`);
  assert.deepEqual(problems, []);
  await page.close();
});
