// The agent-sessions player (issue 29, §13) in headless Chromium against the
// release build: it opens on a fan-out burying one replica under the prefix
// key, stepping changes the narration, "Next key moment" lands on the
// fan-outs sim-core flags for the load key and under a per-session cap, and
// the page's outcome and cards are the CLI's (`lblab agents --json`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab, settled } from './harness.mjs';

const env = await useAppAndBrowser();
const outs = new Map();

function outcome(flags = []) {
  const key = flags.join(' ');
  if (!outs.has(key)) outs.set(key, JSON.parse(lblab(['agents', '--json', ...flags])));
  return outs.get(key);
}

/// The steps of `key` that sim-core flags, with each moment.
function moments(key, flags = []) {
  const run = outcome(flags).runs.find((r) => r.key === key);
  return {
    steps: run.timeline.length,
    all: run.timeline.map((s, t) => (s.moment ? { t, m: s.moment.Burst } : null)).filter(Boolean),
  };
}

const label = (page) => page.locator('#player-label').textContent().then((s) => s.trim());
const narration = (page) => page.locator('#narration').textContent();
const card = async (page, id) => (await page.locator(`#${id} .card-number`).textContent()).trim();
const stepIs = (page, t) =>
  page.waitForFunction((t) => new URL(location.href).searchParams.get('step') === String(t), t);

test('agents: opens on a fan-out burying one replica under the prefix key; outcome and cards are the CLI\'s', async () => {
  const { steps, all } = moments('prefix');
  const [first] = all;
  assert.equal(first.m.replicas, 1, 'the prefix key sends the whole fan-out to one replica');
  assert.ok(first.m.waiting > 0 && first.m.free > 0, `calls wait while slots are free elsewhere: ${JSON.stringify(first.m)}`);
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=agents`);
  await settled(page);
  const json = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  assert.deepStrictEqual(json, outcome());
  await page.waitForFunction((t) => document.querySelector('#player-label')?.textContent.includes(`step ${t} of`), first.t);
  assert.equal(await label(page), `step ${first.t} of ${steps - 1}`);
  const words = await narration(page);
  assert.match(words, new RegExp(`Key moment: session ${first.m.session + 1} fans out to 16 subagents at once\\. All 16 go to replica ${first.m.busiest + 1}\\. They share the planner's prefix`));
  assert.match(words, new RegExp(`${first.m.waiting} calls wait in its queue for one of its 12 slots while ${first.m.free} slots are free on the other replicas`));
  const prefix = json.runs.find((r) => r.key === 'prefix');
  assert.equal(await card(page, 'card-others-ttft'), prefix.others_p95.toFixed(2));
  assert.equal(await card(page, 'card-burst'), prefix.burst_queue.toFixed(1));
  assert.equal(await page.locator('#agents-compare tbody tr').count(), 4, 'one row per key');
  const seen = new Set([words]);
  for (let i = 0; i < 3; i++) {
    const before = await narration(page);
    await page.locator('#player-forward').click();
    await page.waitForFunction((b) => document.querySelector('#narration').textContent !== b, before);
    seen.add(await narration(page));
  }
  assert.equal(seen.size, 4, [...seen].join(' | '));
  console.log(`agents opens at step ${first.t}: ${words.slice(0, 160)}…`);
  assert.deepEqual(problems, []);
  await page.close();
});

const CASES = [
  { key: 'load', nth: 1, words: /Key moment: session \d+ fans out to 16 subagents at once\. They go to \d replicas, at most \d+ to replica \d\. Load alone decides/ },
  { key: 'prefix', flags: ['--cap', '4'], query: '&cap=4', nth: 0, words: /Key moment: session \d+ fans out to 16 subagents at once\. The cap lets \d go now and holds \d+ at the gateway until they finish\. All \d go to replica \d\./ },
];

for (const c of CASES) {
  test(`agents: "Next key moment" lands on fan-out ${c.nth + 1} of the ${c.key} key${c.flags ? ' with a cap' : ''}`, async () => {
    const { steps, all } = moments(c.key, c.flags);
    const target = all[c.nth];
    assert.ok(target, `${c.key} has fan-outs at the defaults`);
    const { page, problems } = await watchedPage(env.browser.context);
    await page.goto(`${env.srv.base}?lab=agents&key=${c.key}${c.query ?? ''}&step=0`);
    await page.locator('#narration').waitFor();
    for (const m of all) {
      await page.locator('#moment-next').click();
      await stepIs(page, m.t);
      if (m === target) break;
    }
    assert.equal(await label(page), `step ${target.t} of ${steps - 1}`);
    assert.match(await narration(page), c.words);
    assert.equal(await page.locator('.scrub-mark').count(), all.length, 'every key moment is marked on the bar');
    console.log(`agents ${c.key}${c.query ?? ''}: fan-out at step ${target.t} (${all.length} key moments): ${(await narration(page)).match(/Key moment.*/)[0].slice(0, 150)}`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('agents: a row of the comparison plays that key', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=agents`);
  await page.locator('#agents-compare').waitFor();
  await page.locator('#agents-compare button[data-key="bounded"]').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('key') === 'bounded');
  await page.waitForFunction(() => /Keyed on: Prefix, load-bounded/.test(document.body.textContent));
  assert.match(await page.locator('#agents-compare tr.selected').textContent(), /load-bounded/);
  assert.deepEqual(problems, []);
  await page.close();
});
