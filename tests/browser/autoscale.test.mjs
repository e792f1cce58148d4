// The autoscaling player (issue 29) in real headless Chromium against the
// release build: it opens on its point (the scaler's first order for the
// surge), stepping changes the narration, and "Next key moment" lands on a
// fresh replica flooded, the surge ending with replicas still starting, the
// busy fraction pinned and a fresh replica passed over, where sim-core flags
// them (read from `lblab autoscale --json`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab } from './harness.mjs';

const env = await useAppAndBrowser();
const runs = new Map();

/// Seconds of `scaler` that sim-core flags under `flags`, with the moment's kind.
function moments(scaler, flags = []) {
  const key = flags.join(' ');
  if (!runs.has(key)) runs.set(key, JSON.parse(lblab(['autoscale', '--json', ...flags])));
  const out = runs.get(key);
  const run = out.runs.find((r) => r.scaler === scaler);
  return {
    ticks: out.config.ticks,
    all: run.timeline.map((s, t) => (s.moment ? { t, kind: Object.keys(s.moment)[0] } : null)).filter(Boolean),
  };
}

const label = (page) => page.locator('#player-label').textContent().then((s) => s.trim());
const narration = (page) => page.locator('#narration').textContent();
const stepIs = (page, t) =>
  page.waitForFunction((t) => new URL(location.href).searchParams.get('step') === String(t), t);

test('autoscale: opens on the KV scaler ordering for the surge, and stepping changes the narration', async () => {
  const { ticks, all } = moments('kv');
  const [first] = all;
  assert.equal(first.kind, 'Ordered');
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=autoscale`);
  await page.locator('#narration').waitFor();
  await page.waitForFunction((t) => document.querySelector('#player-label')?.textContent.includes(`second ${t} of`), first.t);
  assert.equal(await label(page), `second ${first.t} of ${ticks - 1}`);
  assert.match(await narration(page), /Key moment: the scaler orders \d+ replicas? for the surge\. With a cold start of 240 s/);
  const seen = new Set([await narration(page)]);
  for (let i = 0; i < 3; i++) {
    const before = await narration(page);
    await page.locator('#player-forward').click();
    await page.waitForFunction((b) => document.querySelector('#narration').textContent !== b, before);
    seen.add(await narration(page));
  }
  assert.equal(seen.size, 4, [...seen].join(' | '));
  console.log(`autoscale opens at second ${first.t}: ${[...seen][0].slice(0, 140)}…`);
  assert.deepEqual(problems, []);
  await page.close();
});

const CASES = [
  { scaler: 'kv', kind: 'Flooded', words: /Key moment: fresh replica \d+ took \d+ requests in its first \d+ s\. It has nothing outstanding, so least outstanding sends it everything/ },
  { scaler: 'kv', kind: 'SurgeOver', words: /Key moment: the surge is over, and \d+ replicas? ordered for it (is|are) still starting/ },
  { scaler: 'busy', kind: 'Pinned', words: /Key moment: the busy fraction reads \d+%, so the scaler orders a replica, yet only \d+% of the slots are in use/ },
  { scaler: 'predictive', flags: ['--router', 'prefix-aware'], query: '&router=prefix-aware', kind: 'Ignored', words: /Key moment: fresh replica \d+ took \d+ requests in its first minute against a fair share of \d+/ },
];

for (const c of CASES) {
  test(`autoscale: "Next key moment" lands on the ${c.kind} of ${c.scaler}`, async () => {
    const { ticks, all } = moments(c.scaler, c.flags);
    const target = all.find((m) => m.kind === c.kind);
    assert.ok(target, `${c.scaler} has a ${c.kind} at the defaults`);
    const { page, problems } = await watchedPage(env.browser.context);
    await page.goto(`${env.srv.base}?lab=autoscale&scaler=${c.scaler}${c.query ?? ''}&step=0`);
    await page.locator('#narration').waitFor();
    for (const m of all) {
      await page.locator('#moment-next').click();
      await stepIs(page, m.t);
      if (m === target) break;
    }
    assert.equal(await label(page), `second ${target.t} of ${ticks - 1}`);
    assert.match(await narration(page), c.words);
    assert.equal(await page.locator('.scrub-mark').count(), all.length, 'every key moment is marked on the bar');
    console.log(`autoscale ${c.scaler}: ${c.kind} at second ${target.t} (${all.length} key moments)`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('autoscale: a row of the comparison plays that scaler', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=autoscale`);
  await page.locator('#autoscale-compare').waitFor();
  await page.locator('#autoscale-compare button[data-key="predictive"]').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('scaler') === 'predictive');
  await page.waitForFunction(() => /Predictive over the whole run/.test(document.body.textContent));
  assert.match(await page.locator('#autoscale-compare tr.selected').textContent(), /Predictive/);
  assert.deepEqual(problems, []);
  await page.close();
});
