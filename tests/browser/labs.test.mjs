// Every lab of the registry (`lblab labs --json`), loaded in headless Chromium:
// a smoke test per lab, and the injection test (a script/HTML payload in every
// query key and in every text field must stay text).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab, settled } from './harness.mjs';

const env = await useAppAndBrowser();
const LABS = JSON.parse(lblab(['labs', '--json']));

// Runs if it is ever parsed as HTML or script: as an attribute break-out, an
// element, a script, and a javascript: URL.
const PAYLOAD = `"'><img src=x onerror="window.__pwned=(window.__pwned||0)+1"><script>window.__pwned=(window.__pwned||0)+1</script><svg onload="window.__pwned=1">javascript:window.__pwned=1`;

/** Fail if the payload ran or left an element behind. */
async function assertInert(page, where) {
  // An element the payload made is counted below whether or not its
  // handler has fired yet, so nothing needs to wait for handlers.
  const state = await page.evaluate(() => ({
    pwned: window.__pwned,
    imgs: document.querySelectorAll('img[src="x"]').length,
    svgs: document.querySelectorAll('svg[onload]').length,
    scripts: [...document.scripts].filter((s) => s.textContent.includes('__pwned')).length,
  }));
  assert.deepEqual(state, { pwned: undefined, imgs: 0, svgs: 0, scripts: 0 }, where);
}

for (const lab of LABS) {
  test(`${lab.id}: loads with its parameters as controls, and exports what the CLI prints`, async () => {
    const { page, problems } = await watchedPage(env.browser.context);
    await page.goto(`${env.srv.base}?lab=${lab.id}`);
    await page.locator('.lab-header h1').waitFor();
    assert.equal(await page.title(), 'LLM Load-Balancing Lab');
    // An outcome is published (the export's JSON is written on request, by
    // the worker running the job again).
    await settled(page);
    // One control per parameter (and the focus picker), found by its key.
    for (const p of lab.params) {
      assert.equal(await page.locator(`[data-control="${p.key}"]`).count() >= 1, true, `${lab.id}: ${p.key}`);
    }
    if (lab.focus) {
      const checked = await page.locator(`input[name="${lab.focus.key}"]:checked`).getAttribute('value');
      assert.equal(checked, lab.focus.default, `${lab.id}: the focus opens on its default`);
    }
    const json = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json()));
    assert.deepStrictEqual(json, JSON.parse(lblab([lab.id, '--json'])), `${lab.id}: JSON`);
    assert.ok((await page.locator('canvas').count()) >= 1, `${lab.id}: a chart`);
    assert.equal(await page.locator('.notice[role="status"], .notice.error').count(), 0, `${lab.id}: no warning at the defaults`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('a payload in every query key of every lab stays text', async () => {
  const problems = [];
  // A fresh tab every few loads: each load starts two wasm instances (the page
  // and its worker), and hundreds of loads in one tab outrun the collection of
  // old instances' address space ("Cannot allocate Wasm memory").
  let page = null;
  let loads = 0;
  const open = async (url, options = {}) => {
    if (!page || loads++ % 12 === 0) {
      await page?.close();
      const w = await watchedPage(env.browser.context);
      page = w.page;
      w.problems.push = (...p) => problems.push(...p);
    }
    await page.goto(url, options);
    // The app has mounted (it removes the static shell as it does).
    await page.waitForFunction(() => !document.getElementById('shell') && document.querySelector('.lab-header h1'));
    return page;
  };
  const shell = ['embed', 'controls', 'autoplay', 'theme', 'step', 'view', 'trace', 'vs'];
  const unread = [];
  for (const lab of LABS) {
    const keys = [...lab.params.map((p) => p.key), ...(lab.focus ? [lab.focus.key] : []), ...shell];
    // Every key at once. The page reads each key on its own and names each
    // refused value in a notice, so a key named there had its own path run
    // (one load, where a load per key took over three minutes).
    const all = new URLSearchParams([['lab', lab.id], ...keys.map((k) => [k, PAYLOAD])]);
    await open(`${env.srv.base}?${all}`);
    await assertInert(page, `${lab.id}: all keys`);
    const said = (await page.locator('.notice').allTextContents()).join('\n');
    for (const k of lab.params.map((p) => p.key)) {
      assert.ok(said.includes(`“${k}=`), `${lab.id}: the refused ${k}= is named in a notice`);
    }
    // Keys this lab does not name (a shell key it has no use for, such as
    // step= without a player) are tried again without the others, so no
    // refusal elsewhere can stand in front of their path.
    const quiet = keys.filter((k) => !said.includes(`“${k}=`));
    if (quiet.length) {
      unread.push(`${lab.id}: ${quiet.join(', ')}`);
      const some = new URLSearchParams([['lab', lab.id], ...quiet.map((k) => [k, PAYLOAD])]);
      await open(`${env.srv.base}?${some}`, { settle: false });
      await assertInert(page, `${lab.id}: ${quiet.join(', ')}`);
    }
  }
  console.log(`keys no notice named (loaded again on their own): ${unread.join('; ')}`);
  // An unknown lab id is echoed in a notice, as text.
  await page.goto(`${env.srv.base}?${new URLSearchParams([['lab', PAYLOAD]])}`);
  await page.locator('.notice').first().waitFor();
  assert.match(await page.locator('.notice').first().textContent(), /There is no lab called/);
  await assertInert(page, 'unknown lab');
  assert.deepEqual(problems.filter((p) => !p.includes('/x')), []);
  await page.close();
});

test('a payload typed into every text field (traces, retry stack) stays text', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  for (const lab of LABS) {
    await page.goto(`${env.srv.base}?lab=${lab.id}`);
    await page.locator('.lab-header h1').waitFor();
    const fields = await page.locator('.controls-panel input[type="text"]').evaluateAll((els) => els.map((e) => e.id));
    for (const id of fields) {
      // A field under "More settings" is typed into as a reader would: with
      // its section opened.
      await page.locator(`#${id}`).evaluate((e) => {
        const d = e.closest('details');
        if (d) d.open = true;
      });
      await page.locator(`#${id}`).fill(PAYLOAD);
      await page.locator(`#${id}`).press('Enter');
      // The refusal names the value, as text.
      await page.locator('.controls-panel .notice.error').waitFor();
      await assertInert(page, `${lab.id}: #${id}`);
    }
  }
  assert.deepEqual(problems, []);
  await page.close();
});
