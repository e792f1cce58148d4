// The first-token player (issue 52, §9.4–9.5) in headless Chromium against
// the release build: it opens on the hedge strategy's first key moment with
// the page's outcome the CLI's (`lblab first-token --json`), its frames those
// of `lblab first-token --record hedge --json`,
// "Next key moment" walks the moments sim-core flags, and a failure past the
// commitment point under retry is narrated as a broken stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab, settled } from './harness.mjs';

const env = await useAppAndBrowser();
const outs = new Map();

function outcome(record, flags = []) {
  const key = [record, ...flags].join(' ');
  if (!outs.has(key)) outs.set(key, JSON.parse(lblab(['first-token', '--json', '--record', record, ...flags])));
  return outs.get(key);
}

/// The frames of `recovery` that sim-core flags, with each moment.
function moments(recovery) {
  const run = outcome(recovery).runs.find((r) => r.recovery === recovery);
  return {
    steps: run.timeline.length,
    all: run.timeline.map((s, t) => (s.moment ? { t, m: s.moment, lanes: s.lanes } : null)).filter(Boolean),
  };
}

const label = (page) => page.locator('#player-label').textContent().then((s) => s.trim());
const narration = (page) => page.locator('#narration').textContent();
const stepIs = (page, t) =>
  page.waitForFunction((t) => new URL(location.href).searchParams.get('step') === String(t), t);

/// "turn 2 of conversation 14" for the moment's request, as the page words it.
function who(f) {
  const req = Object.values(f.m)[0].req;
  const lane = f.lanes.find((l) => l.req === req);
  return `turn ${lane.turn + 1} of conversation ${lane.conv + 1}`;
}

test('first-token: opens on the hedge run\'s first key moment; the outcome is the CLI\'s', async () => {
  const { steps, all } = moments('hedge');
  const [first] = all;
  assert.ok(first, 'the default hedge run has key moments');
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=first-token`);
  await settled(page);
  const json = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
  // The export runs the job again without a recording, as `lblab
  // first-token --json` does; the player's frames are checked below.
  assert.deepStrictEqual(json, JSON.parse(lblab(['first-token', '--json'])));
  await page.waitForFunction((t) => document.querySelector('#player-label')?.textContent.includes(`step ${t} of`), first.t);
  assert.equal(await label(page), `step ${first.t} of ${steps - 1}`);
  const words = await narration(page);
  assert.ok(words.includes(`Key moment: `) && words.includes(who(first)), words);
  assert.equal(await page.locator('.scrub-mark').count(), all.length, 'every key moment is marked on the bar');
  const stage = page.locator('#first-token-stage');
  await stage.waitFor();
  assert.ok((await stage.boundingBox()).height > 200, 'six lanes drawn');
  console.log(`first-token opens at step ${first.t} of ${steps - 1} (${all.length} key moments): ${words.slice(0, 200)}…`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('first-token: under retry, "Next key moment" reaches a failure past the first token, narrated as a broken stream', async () => {
  const { all } = moments('retry');
  const target = all.find((f) => f.m.Failed && f.m.Failed.shown > 0 && f.m.Failed.then === 'Broken');
  assert.ok(target, 'retry breaks a stream the user was reading');
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=first-token&recovery=retry&step=0`);
  await page.locator('#narration').waitFor();
  for (const f of all) {
    await page.locator('#moment-next').click();
    await stepIs(page, f.t);
    if (f === target) break;
  }
  const words = await narration(page);
  const { shown, replica } = target.m.Failed;
  assert.ok(words.includes(`Key moment: ${who(target)} fails on replica ${replica + 1} after the user had read ${shown} tokens: past the commitment point.`), words);
  assert.match(words, /No retry or hedge can take back text already shown: the stream breaks\./);
  console.log(`first-token retry @ step ${target.t}: ${words.match(/Key moment.*/)[0]}`);
  assert.deepEqual(problems, []);
  await page.close();
});
