// Embeds that fit an article column (issue 14): every lab's embed height at
// 640 and 360 px, the `view=` key choosing panels, and the `controls=` lock
// (no button, link or key changes a value outside the list).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, lblab, settled, frames } from './harness.mjs';

const env = await useAppAndBrowser();
const LABS = JSON.parse(lblab(['labs', '--json']));
const LIMITS = { 640: 900, 360: 1400 };

/** The height an embedded lab reports to its host (what the resize message posts). */
const height = (page) => page.evaluate(() => Math.max(document.body.scrollHeight, document.body.offsetHeight));

test('every lab at its defaults embeds within 900 px at 640 px wide and 1,400 px at 360 px', async () => {
  const report = [];
  const over = [];
  for (const width of [640, 360]) {
    const { page, problems } = await watchedPage(env.browser.context);
    await page.setViewportSize({ width, height: 800 });
    for (const lab of LABS) {
      await page.goto(`${env.srv.base}?lab=${lab.id}&embed=1`);
      await page.locator('.lab-header h1').waitFor();
      await settled(page);
      // Laid out: two frames after the results arrived.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const h = await height(page);
      report.push(`${lab.id}@${width} ${h}`);
      if (h > LIMITS[width]) over.push(`${lab.id} at ${width} px: ${h} px (limit ${LIMITS[width]})`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  }
  console.log(`embed heights: ${report.join(', ')}`);
  assert.deepEqual(over, []);
});

/** The page's state: every query key but the player's position, and the outcome's config. */
async function state(page, allowed) {
  const q = new URL(page.url()).searchParams;
  const keys = [...q.keys()].filter((k) => k !== 'step' && !allowed.includes(k)).sort();
  const config = JSON.parse(await page.evaluate(() => window.wasmBindings.lblab_outcome_json())).config;
  for (const k of allowed) delete config[k.replaceAll('-', '_')];
  return { query: keys.map((k) => `${k}=${q.get(k)}`), config };
}

// Each lab with one control left open; everything else must stay as it was.
const LOCKS = [
  ['routing', 'rate'],
  ['goodput', 'sweep-to'],
  ['herding', 'scrape-interval'],
  ['prefix', 'threshold'],
  ['batching', 'slots'],
  ['retries', 'budget'],
];

test('controls= locks everything it does not list: every button, link and key tried', async () => {
  const report = [];
  // As an embed showing every panel, and as a full page (inside the lab only:
  // the site's navigation leaves the page, which is its job; the Routing
  // Lab's link to the validation page, #validation-link, opens a new tab as
  // #open-full does).
  const views = ['&embed=1&view=player,chart,controls,cards,table,intro', ''];
  for (const [lab, open] of LOCKS) for (const view of views) {
    const { page, problems } = await watchedPage(env.browser.context);
    await page.goto(`${env.srv.base}?lab=${lab}${view}&controls=${open}`);
    await page.locator('.lab-header h1').waitFor();
    await settled(page);
    const before = await state(page, [open]);
    // Every visible button, link, label and form control, clicked.
    // (A disabled control is left out: a click on it does nothing, and
    // Playwright waits out its timeout for it to be enabled.)
    const targets = page.locator('#lab-root').locator('button:visible:not(:disabled), summary:visible, a:visible:not(#open-full):not(#validation-link), label:visible:not(:has(:disabled)), input:visible:not(:disabled), select:visible:not(:disabled), [data-key]:visible, canvas:visible');
    const n = await targets.count();
    for (let i = 0; i < n; i++) {
      await targets.nth(i).click({ timeout: 1000 }).catch(() => {});
    }
    // Every key a page listens to, from the body and from each focusable element.
    const keys = ['ArrowRight', 'ArrowLeft', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown', ' ', 'Enter', 'n', 'r', 's', '1'];
    await page.locator('body').click({ position: { x: 2, y: 2 } }).catch(() => {});
    for (const k of keys) await page.keyboard.press(k);
    // Focus moves through the lab's own elements (Tab would also reach the
    // site navigation, whose links rightly leave the page).
    const focusable = page.locator('#lab-root').locator('button:visible, a:visible:not(#open-full):not(#validation-link), input:visible, select:visible, [tabindex]:visible');
    const f = await focusable.count();
    for (let i = 0; i < f; i++) {
      await focusable.nth(i).focus().catch(() => {});
      for (const k of keys) await page.keyboard.press(k);
    }
    await settled(page);
    const after = await state(page, [open]);
    assert.deepEqual(after, before, `${lab}${view} with controls=${open}`);
    // The open control is really open.
    assert.equal(await page.locator(`[data-control="${open}"]:visible`).count(), 1, `${lab}: ${open} shown`);
    report.push(`${lab}${view ? ' (embed)' : ''}: ${n} targets`);
    assert.deepEqual(problems, []);
    await page.close();
  }
  console.log(`lock test clicked: ${report.join(', ')}`);
});

test('a locked rule is text, not a dead button, and the trace panel stays out', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing&controls=rate`);
  await settled(page);
  assert.equal(await page.locator('#compare-table button').count(), 0);
  assert.equal(await page.locator('.trace-panel:visible').count(), 0);
  assert.equal(await page.locator('[data-control="new-seed"]:visible').count(), 0);
  // The second rule of the player is named, not offered in a disabled select.
  assert.equal(await page.locator('#vs-rule').count(), 0);
  assert.match(await page.locator('.vs-picker').textContent(), /Side by side with Round robin/);
  await page.goto(`${env.srv.base}?lab=routing&controls=rate,rule,seed`);
  await settled(page);
  assert.ok((await page.locator('#compare-table button').count()) > 0, 'an open rule keeps its buttons');
  assert.equal(await page.locator('[data-control="new-seed"]:visible').count(), 1, 'seed open: New seed shown');
  assert.equal(await page.locator('#vs-rule:enabled').count(), 1, 'rule open: the second rule can be chosen');
  assert.deepEqual(problems, []);
  await page.close();
});

test('view= chooses the panels; an unknown panel is reported', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing&embed=1&view=table`);
  await settled(page);
  assert.equal(await page.locator('#compare-table:visible').count(), 1);
  assert.equal(await page.locator('#queue-chart:visible').count(), 0);
  assert.equal(await page.locator('.controls-panel:visible').count(), 0);
  await page.goto(`${env.srv.base}?lab=herding&embed=1&view=player,chart`);
  await settled(page);
  assert.equal(await page.locator('.player:visible').count(), 1);
  assert.equal(await page.locator('#skew-chart:visible').count(), 1);
  assert.equal(await page.locator('.controls-panel:visible').count(), 0);
  // The visual comes first in an embed: the player above the chart.
  const [p, c] = await Promise.all(['.player', '#skew-chart'].map((s) => page.locator(s).evaluate((e) => e.getBoundingClientRect().top)));
  assert.ok(p < c);
  await page.goto(`${env.srv.base}?lab=knee&view=chart,nonsense`);
  await settled(page);
  assert.match(await page.locator('.notice').first().textContent(), /nonsense/);
  assert.equal(await page.locator('#queueing-chart:visible').count(), 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an embed keeps its units line and opens the same state in the full lab', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing&embed=1&controls=rate&view=chart,controls`);
  await settled(page);
  assert.match(await page.locator('.embed-footer .units').textContent(), /ticks/);
  await page.locator('#rate').focus();
  await page.keyboard.press('ArrowRight');
  await settled(page);
  await page.locator('#open-full').hover();
  const href = new URL(await page.locator('#open-full').evaluate((a) => a.href));
  assert.equal(href.searchParams.get('rate'), new URL(page.url()).searchParams.get('rate'));
  for (const k of ['embed', 'controls', 'view']) assert.equal(href.searchParams.get(k), null, k);
  assert.equal(await page.locator('#open-full').getAttribute('target'), '_blank');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the embed builder writes view= and controls=, previews the embed and shows its height', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=herding`);
  await settled(page);
  await page.locator('#share-embed').click();
  await page.locator('#embed-view-table').check();
  await page.locator('#embed-lock').check();
  await page.locator('#embed-allow-routers').check();
  const snippet = await page.locator('#embed-snippet').inputValue();
  assert.match(snippet, /embed=1/);
  assert.match(snippet, /view=player,controls,cards,table/);
  assert.match(snippet, /controls=routers/);
  await page.waitForFunction(() => /Height at this width: \d+ px/.test(document.querySelector('#embed-height')?.textContent ?? ''));
  const src = await page.locator('#embed-preview').getAttribute('src');
  assert.match(src, /controls=routers/);
  // Each tick reloads the preview; a load replaced mid-flight is aborted.
  assert.deepEqual(problems.filter((p) => !p.startsWith('requestfailed')), []);
  await page.close();
});

// Since issue 25 only the bar sticks, to the bottom of the screen (the stage
// comes first and is not covered while stepping: tours.test.mjs).
test('on a phone the player bar stays on screen, and wide tables show they scroll', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.setViewportSize({ width: 360, height: 740 });
  for (const lab of ['herding', 'prefix', 'batching']) {
    await page.goto(`${env.srv.base}?lab=${lab}`);
    await settled(page);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const bar = await page.locator('.player').evaluate((e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; });
    assert.ok(bar.top >= 0 && bar.bottom <= 740 + 1, `${lab}: player bar at ${bar.top}–${bar.bottom} px after scrolling to the end`);
  }
  await page.goto(`${env.srv.base}?lab=routing&embed=1&view=table`);
  await settled(page);
  const wide = await page.locator('.table-wrap').evaluateAll((els) => els
    .filter((e) => e.scrollWidth > e.clientWidth + 1)
    .map((e) => ({ shadow: getComputedStyle(e).backgroundImage.includes('radial-gradient'), focusable: e.tabIndex === 0 })));
  assert.ok(wide.length > 0, 'the comparison table is wider than a phone');
  assert.ok(wide.every((w) => w.shadow && w.focusable), JSON.stringify(wide));
  assert.deepEqual(problems, []);
  await page.close();
});

test('with controls= no empty "More settings" is left behind', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  for (const q of ['lab=routing&embed=1&controls=rate', 'lab=knee&embed=1&controls=wait', 'lab=routing&controls=rate']) {
    await page.goto(`${env.srv.base}?${q}`);
    await settled(page);
    assert.equal(await page.locator('details.more-settings:visible').count(), 0, q);
  }
  // A listed advanced key opens its group.
  await page.goto(`${env.srv.base}?lab=routing&embed=1&controls=rate,kv-blocks`);
  await settled(page);
  assert.equal(await page.locator('#kv-blocks:visible').count(), 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('no number in a card is clipped at either end of any main slider, full width and 360 px', async () => {
  // One page per lab: each main slider (not those under "More settings") is
  // moved to either end as a reader drags it, the cards are read at full
  // width and again at 360 px, and the slider goes back to where it was.
  // (Loading a page per end and width took three minutes of the test run.)
  const checked = [];
  const problems = [];
  const clippedCards = (page) => page.locator('.card').evaluateAll((els) => els
    .filter((e) => e.offsetParent !== null && (e.scrollWidth > e.clientWidth + 1 || [...e.querySelectorAll('.card-number')].some((n) => n.scrollWidth > n.clientWidth + 1)))
    .map((e) => e.textContent.trim().slice(0, 40)));
  for (const lab of LABS) {
    const w = await watchedPage(env.browser.context);
    const page = w.page;
    w.problems.push = (...x) => problems.push(...x);
    await page.setViewportSize({ width: 1200, height: 800 });
    await page.goto(`${env.srv.base}?lab=${lab.id}`);
    await settled(page);
    const check = async (what) => {
      for (const width of [1200, 360]) {
        await page.setViewportSize({ width, height: 800 });
        await frames(page, 2);
        assert.deepEqual(await clippedCards(page), [], `${lab.id} ${what} (${new URL(page.url()).search}) at ${width} px`);
        checked.push(1);
      }
      await page.setViewportSize({ width: 1200, height: 800 });
    };
    await check('at its defaults');
    const main = await page.locator('.controls-list > .slider input[type="range"]').evaluateAll((els) => els.map((e) => e.id));
    for (const key of lab.params.map((p) => p.key).filter((k) => main.includes(k))) {
      const slider = page.locator(`#${key}`);
      const start = await slider.inputValue();
      const ends = await slider.evaluate((e) => [e.min, e.max]);
      for (const v of ends.filter((v) => v !== start)) {
        await setRange(page, key, v);
        await check(`${key} at ${v}`);
      }
      await setRange(page, key, start);
    }
    await page.close();
  }
  console.log(`cards checked in ${checked.length} states`);
  assert.deepEqual(problems, []);
});

/**
 * Move range `#key` to `value` (not where it is now) as a drag does (input,
 * then change on release), and wait until the run that starts is shown.
 */
async function setRange(page, key, value) {
  const before = await page.evaluate(() => Number(document.documentElement.dataset.runs || 0));
  await page.locator(`#${key}`).evaluate((e, v) => {
    e.value = v;
    e.dispatchEvent(new Event('input', { bubbles: true }));
    e.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
  await page.waitForFunction((b) => {
    const root = document.documentElement;
    return !root.hasAttribute('data-busy') && Number(root.dataset.runs || 0) > b;
  }, before, { timeout: 60_000 }).catch((e) => {
    throw new Error(`#${key} = ${value}: no run was shown: ${e.message}`);
  });
}
