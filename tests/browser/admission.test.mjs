// The admission-control player (issue 28) in real headless Chromium against
// the release build: it opens on its point, stepping changes the narration,
// and "Next key moment" lands on the first 429, the first drop and the
// breaker tripping where sim-core flags them (read from `lblab admission --json`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab } from './harness.mjs';

const env = await useAppAndBrowser();
const out = JSON.parse(lblab(['admission', '--json']));
const ticks = out.config.ticks;

/// Ticks of `policy` that sim-core flags, with the moment's kind.
function moments(policy) {
  const run = out.policies.find((p) => p.policy === policy);
  return run.timeline
    .map((s, t) => (s.moment ? { t, kind: Object.keys(s.moment)[0] } : null))
    .filter(Boolean);
}

const label = (page) => page.locator('#player-label').textContent().then((s) => s.trim());
const narration = (page) => page.locator('#narration').textContent();
const stepIs = (page, t) =>
  page.waitForFunction((t) => new URL(location.href).searchParams.get('step') === String(t), t);

test('admission: opens on the tick no control loses the SLO, and stepping changes the narration', async () => {
  const [first] = moments('none');
  assert.equal(first.kind, 'SloLost');
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=admission`);
  await page.locator('#narration').waitFor();
  await page.waitForFunction((t) => document.querySelector('#player-label')?.textContent.includes(`tick ${t} of`), first.t);
  assert.equal(await label(page), `tick ${first.t} of ${ticks - 1}`);
  assert.match(await narration(page), /Key moment: a request that waited \d+ ticks just reached a server/);
  const seen = new Set([await narration(page)]);
  for (let i = 0; i < 3; i++) {
    const before = await narration(page);
    await page.locator('#player-forward').click();
    await page.waitForFunction((b) => document.querySelector('#narration').textContent !== b, before);
    seen.add(await narration(page));
  }
  assert.equal(seen.size, 4, [...seen].join(' | '));
  console.log(`admission opens at tick ${first.t}: ${[...seen][0].slice(0, 120)}…`);
  assert.deepEqual(problems, []);
  await page.close();
});

const CASES = [
  { policy: 'queue-cap', kind: 'FirstRefusal', words: /the queue holds 16, the cap, so the next arrival is refused at once/ },
  { policy: 'deadline', kind: 'FirstDrop', words: /Key moment: the first drop/ },
  { policy: 'breaker', kind: 'Trip', words: /replica 1 failed 5 requests within 50 ticks, so the breaker takes it out of rotation for 200 ticks/ },
];

for (const c of CASES) {
  test(`admission: "Next key moment" lands on the ${c.kind} of ${c.policy}`, async () => {
    const all = moments(c.policy);
    const target = all.find((m) => m.kind === c.kind);
    assert.ok(target, `${c.policy} has a ${c.kind} at the defaults`);
    const { page, problems } = await watchedPage(env.browser.context);
    await page.goto(`${env.srv.base}?lab=admission&policy=${c.policy}&step=0`);
    await page.locator('#narration').waitFor();
    for (const m of all) {
      await page.locator('#moment-next').click();
      await stepIs(page, m.t);
      if (m === target) break;
    }
    assert.equal(await label(page), `tick ${target.t} of ${ticks - 1}`);
    assert.match(await narration(page), c.words);
    if (c.kind === 'Trip') {
      // A tick later the replica is still out, and the stage says so.
      await page.locator('#player-forward').click();
      await stepIs(page, target.t + 1);
      assert.match(await narration(page), /Replica 1 is out of rotation/);
    }
    assert.equal(await page.locator('.scrub-mark').count(), all.length, 'every key moment is marked on the bar');
    console.log(`admission ${c.policy}: ${c.kind} at tick ${target.t} (${all.length} key moments)`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('admission: a row of the comparison plays that policy', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=admission`);
  await page.locator('#admission-compare').waitFor();
  await page.locator('#admission-compare button[data-key="queue-cap"]').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('policy') === 'queue-cap');
  await page.waitForFunction(() => /Queue cap over the whole run/.test(document.body.textContent));
  const refused = await page.locator('#admission-compare tr.selected').textContent();
  assert.match(refused, /Queue cap/);
  assert.deepEqual(problems, []);
  await page.close();
});
