// Craft checks of issue 48: charts drawn at the screen's pixel density, and
// a milliseconds-mode choice that cannot run refused beside its control with
// the results and the link left as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, settled, frames, lblab } from './harness.mjs';

const env = await useAppAndBrowser();

test('at devicePixelRatio 2 every chart and stage canvas holds twice its CSS size in pixels', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 900, deviceScaleFactor: 2, mobile: false });
  const report = [];
  for (const lab of ['routing', 'goodput', 'herding', 'knee']) {
    await page.goto(`${env.srv.base}?lab=${lab}`);
    await settled(page);
    await frames(page, 3);
    const canvases = await page.evaluate(() => ({
      ratio: devicePixelRatio,
      sizes: [...document.querySelectorAll('canvas')]
        .filter((c) => c.offsetParent !== null)
        .map((c) => { const r = c.getBoundingClientRect(); return { id: c.id, css: [Math.round(r.width), Math.round(r.height)], px: [c.width, c.height] }; }),
    }));
    assert.equal(canvases.ratio, 2);
    assert.ok(canvases.sizes.length >= 1, `${lab}: a canvas`);
    for (const c of canvases.sizes) {
      for (const i of [0, 1]) {
        // The chart's drawing is at least 200 × 150 CSS px (a canvas laid
        // out smaller is drawn at that size and scaled down by CSS).
        const css = Math.max(c.css[i], i === 0 ? 200 : 150);
        assert.ok(Math.abs(c.px[i] - 2 * css) <= 4, `${lab} #${c.id}: ${c.px[i]} px for ${c.css[i]} CSS px (${['width', 'height'][i]})`);
      }
      report.push(`${lab} #${c.id} ${c.css.join('×')} → ${c.px.join('×')}`);
    }
  }
  console.log(`canvases at DPR 2: ${report.join('; ')}`);
  await cdp.detach();
  assert.deepEqual(problems, []);
});

test('milliseconds mode: a model too big for its GPU is refused beside the picker; the 8B results and the link stay', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing&gpu=h100&model=llama-3.1-8b&tp=1`);
  await settled(page);
  const before = { url: page.url(), runs: await page.evaluate(() => document.documentElement.dataset.runs) };
  const model = page.locator('[data-control="model"]');
  const picker = model.locator('select, input[value="llama-3-70b"]').first();
  if ((await picker.evaluate((e) => e.tagName)) === 'SELECT') await picker.selectOption('llama-3-70b');
  else await picker.click(); // (a refused radio goes back at once, so not `check`)
  const refusal = model.locator('.control-refusal');
  await refusal.waitFor();
  const said = (await refusal.textContent()).trim();
  console.log(`refusal beside the model picker: ${said}`);
  assert.match(said, /^Llama 3 70B in BF16 needs \d+ GB of weights, more than .*; raise tp or use fp8\. Model stays llama-3\.1-8b\.$/);
  assert.doesNotMatch(said, /must be/);
  // The picker shows the model the results are of, and nothing re-ran.
  const shown = await model.evaluate((e) => e.querySelector('select')?.value ?? e.querySelector('input:checked')?.value);
  assert.equal(shown, 'llama-3.1-8b');
  await frames(page, 3);
  assert.equal(page.url(), before.url);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.runs), before.runs);
  assert.equal(await page.locator('.controls-panel > .notice.error').count(), 0, 'no page-wide line far from the control');
  // The refusal sits beside the picker: within a screen of it.
  const [a, b] = await Promise.all([model, refusal].map((l) => l.evaluate((e) => e.getBoundingClientRect().top)));
  assert.ok(b - a < 400, `refusal ${Math.round(b - a)} px below the picker's top`);
  // A model that fits is taken, and the refusal goes.
  const fits = model.locator('select, input[value="qwen-32b"]').first();
  if ((await fits.evaluate((e) => e.tagName)) === 'SELECT') await fits.selectOption('qwen-32b');
  else await fits.check({ force: true });
  await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'qwen-32b');
  assert.equal(await model.locator('.control-refusal').count(), 0);
  assert.deepEqual(problems, []);
});

test('at 360 px every table of every lab and the validation page fits or scrolls in a box that shows it scrolls', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.setViewportSize({ width: 360, height: 800 });
  const labs = JSON.parse(lblab(['labs', '--json'])).map((l) => l.id);
  let tables = 0;
  let scrolling = 0;
  for (const id of [...labs, 'validate']) {
    await page.goto(`${env.srv.base}?lab=${id}`, { settle: id !== 'validate' });
    if (id === 'validate') await page.locator('table:visible').first().waitFor();
    const found = await page.evaluate(() => [...document.querySelectorAll('table')].filter((t) => t.offsetParent !== null).map((t) => {
      const wrap = t.closest('.table-wrap');
      const wide = t.getBoundingClientRect().width > (wrap ?? t.parentElement).clientWidth + 1;
      return {
        name: t.id || t.getAttribute('aria-labelledby') || t.className,
        wide,
        // A wide table's box scrolls, shades the side with more, and takes
        // the keyboard focus (so arrows scroll it).
        cue: !!wrap && getComputedStyle(wrap).overflowX === 'auto' && getComputedStyle(wrap).backgroundImage.includes('radial-gradient') && wrap.tabIndex === 0,
        hidden: [...t.querySelectorAll('th, td')].filter((c) => getComputedStyle(c).display === 'none' || getComputedStyle(c).visibility === 'hidden').length,
        pageWider: document.documentElement.scrollWidth > innerWidth,
      };
    }));
    for (const t of found) {
      tables += 1;
      if (t.wide) scrolling += 1;
      assert.equal(t.hidden, 0, `${id} ${t.name}: hidden cells`);
      assert.ok(!t.wide || t.cue, `${id} ${t.name}: wider than the screen without a scrolling box that shows it`);
      assert.equal(t.pageWider, false, `${id}: the page itself scrolls sideways`);
    }
  }
  console.log(`360 px: ${tables} tables, ${scrolling} of them scroll in a box with its cue, no cell hidden`);
  assert.deepEqual(problems.filter((p) => !p.includes('ERR_ABORTED')), []);
});
