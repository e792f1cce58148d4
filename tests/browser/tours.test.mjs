// Guided tours and the players that land (issue 25), in headless Chromium
// against the release build: every tour steps forward and back with the step
// in the URL, every step opens in the full lab on the same state, the home
// page moves within two seconds, key moments mean what they say, stars wait
// for the end, the keyboard works after a click, and a phone keeps the stage
// on screen under a short sticky bar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppAndBrowser, watchedPage, settled, frames } from './harness.mjs';

const env = await useAppAndBrowser();

// The tours and their step counts, as web/src/app/tours/data.rs lists them
// (tests/golden/tours.txt is the reviewed copy).
const TOURS = { why: 4, routing: 4, herding: 5, prefix: 7, batching: 5, split: 5, scaling: 5, sessions: 5, 'first-token': 5, evaluate: 6, providers: 5 };

const param = (page, key) => new URL(page.url()).searchParams.get(key);
// Read at once, not through a locator: a step without a player has no label,
// and a locator would wait its full timeout for one.
const label = (page) => page.evaluate(() => (document.querySelector('#player-label')?.textContent || '').trim());

for (const [tour, steps] of Object.entries(TOURS)) {
  test(`tour ${tour}: forward and back, the URL holds the step, each step opens in the full lab`, async () => {
    const { page, problems } = await watchedPage(env.browser.context);
    await page.goto(`${env.srv.base}?tour=${tour}&stop=1`);
    await settled(page, 10_000);
    const links = [];
    for (let i = 1; i <= steps; i++) {
      await page.waitForFunction((n) => new URL(location.href).searchParams.get('stop') === String(n), i);
      assert.equal(param(page, 'tour'), tour);
      assert.equal((await page.locator('#tour-count').textContent()).trim(), `· Step ${i} of ${steps}`);
      assert.ok((await page.locator('#tour-words').textContent()).length > 20);
      await settled(page, 10_000);
      // A step that plays moves on by itself: its link names where it starts.
      const playing = await page.evaluate(() => document.querySelector('#player-play')?.getAttribute('aria-label') === 'Pause');
      links.push({ href: await page.locator('#tour-full').getAttribute('href'), label: playing ? '' : await label(page) });
      assert.equal(await page.locator('#tour-back').isDisabled(), i === 1);
      assert.equal(await page.locator('#tour-next').isDisabled(), i === steps);
      if (i < steps) await page.locator('#tour-next').click();
    }
    // The last step is the playground: every control open.
    assert.ok((await page.locator('.tour-stop.playground').count()) === 1, 'ends in the playground');
    // Back to the start, one step at a time; then a reload keeps the step.
    for (let i = steps; i > 1; i--) {
      await page.locator('#tour-back').click();
      await page.waitForFunction((n) => new URL(location.href).searchParams.get('stop') === String(n), i - 1);
    }
    await page.goto(`${env.srv.base}?tour=${tour}&stop=2`);
    await settled(page, 10_000);
    assert.equal((await page.locator('#tour-count').textContent()).trim(), `· Step 2 of ${steps}`);
    // Each step in the full lab: the same state (the player on the same step).
    for (const [i, l] of links.entries()) {
      await page.goto(new URL(l.href, env.srv.base).href);
      await settled(page, 10_000);
      const want = new URLSearchParams(l.href.slice(1));
      assert.equal(param(page, 'lab'), want.get('lab'), `step ${i + 1}`);
      assert.equal(await page.locator('.notice').count(), 0, `step ${i + 1} opens without a notice`);
      if (l.label) assert.equal(await label(page), l.label, `step ${i + 1}: the full lab shows the same step`);
    }
    console.log(`tour ${tour}: ${steps} steps, each opened in the full lab`);
    assert.deepEqual(problems, []);
  });
}

test('every tour step keeps Next on screen at 360 × 800 and 1280 × 800, at the top and at the end of the page; at 1280 it stands beside the figure', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  const report = [];
  // Where #tour-next is, and whether a tap at its centre reaches it (not a
  // bar or a panel drawn over it).
  const where = () => page.evaluate(() => {
    const b = document.querySelector('#tour-next');
    const r = b.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    // The step's figure: its stage, chart or table, the first one drawn.
    const fig = [...document.querySelectorAll('.tour-figure canvas, .tour-figure table')].find((p) => p.getBoundingClientRect().height > 0);
    const f = fig ? fig.getBoundingClientRect() : null;
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, reached: !!hit && b.contains(hit), h: innerHeight, w: innerWidth, figLeft: f ? f.left : null };
  });
  for (const [width, height] of [[360, 800], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    let worst = 0;
    let beside = 0;
    for (const [tour, steps] of Object.entries(TOURS)) {
      await page.goto(`${env.srv.base}?tour=${tour}&stop=1`);
      for (let i = 1; i <= steps; i++) {
        await page.waitForFunction((n) => new URL(location.href).searchParams.get('stop') === String(n), i);
        await settled(page, 10_000);
        for (const end of [false, true]) {
          await page.evaluate((e) => window.scrollTo(0, e ? document.body.scrollHeight : 0), end);
          await frames(page, 2);
          const r = await where();
          const at = `${tour} step ${i} at ${width} px, ${end ? 'end' : 'top'} of the page`;
          assert.ok(r.top >= 0 && r.bottom <= r.h && r.left >= 0 && r.right <= r.w, `${at}: Next at ${Math.round(r.top)}–${Math.round(r.bottom)} px`);
          assert.ok(r.reached, `${at}: something covers Next`);
          if (width >= 1100) {
            // Beside the figure, not under it: Next ends left of where the
            // figure begins.
            assert.ok(r.figLeft !== null && r.right <= r.figLeft, `${at}: Next's right edge ${Math.round(r.right)} px against the figure's left ${r.figLeft}`);
            beside += 1;
          }
          worst = Math.max(worst, r.bottom);
        }
        if (i < steps) await page.locator('#tour-next').click();
      }
    }
    report.push(`${width} px: lowest Next bottom ${Math.round(worst)} of ${height} px${width >= 1100 ? `, beside the figure in ${beside} views` : ''}`);
  }
  console.log(`tour Next on screen on all ${Object.values(TOURS).reduce((a, b) => a + b)} steps; ${report.join('; ')}`);
  assert.deepEqual(problems, []);
});

test('the numbers in a step are its run: pointing at one lights its replica, moving the control changes it', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?tour=herding&stop=3`);
  await settled(page, 10_000);
  const num = page.locator('#tour-words .live-num').first();
  assert.equal((await num.textContent()).trim(), '10', 'the busiest replica with staggered scrapes');
  // Pointing at the number lights the busiest replica's column on the stage.
  await num.hover();
  await page.waitForFunction(() => globalThis.lblabLit === 1);
  await page.mouse.move(0, 0);
  await page.waitForFunction(() => globalThis.lblabLit === 0);
  // Keyboard: the number takes the focus and lights the same column.
  await num.focus();
  await page.waitForFunction(() => globalThis.lblabLit === 1);
  await num.blur();
  // Unticking stagger brings the pile back, and the sentence says so.
  await page.locator('[data-control="stagger"] input').first().click();
  await page.waitForFunction(() => document.querySelector('#tour-words .live-num')?.textContent.trim() === '22');
  // The next step starts from its own written numbers, then its run's.
  await page.locator('#tour-next').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('stop') === '4');
  await settled(page, 10_000);
  assert.equal((await page.locator('#tour-words .live-num').first().textContent()).trim(), '2');
  console.log('live numbers: herding 3 reads 10, lights 1 column when pointed at, reads 22 once stagger is off');
  assert.deepEqual(problems, []);
});

test('the home page opens on the first tour step, requests moving within two seconds', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  const t0 = Date.now();
  await page.goto(env.srv.base);
  await page.locator('#start-tour').waitFor();
  assert.match(await page.locator('.tour-start').textContent(), /Start here/);
  // Playing: once the run is in, the tick moves on by itself.
  // (The page's policy forbids evaluating strings: functions only.)
  const tickAbove = (n) => Number((document.querySelector('#player-label')?.textContent || '').match(/tick (\d+) of [1-9]/)?.[1] ?? -1) > n;
  await page.waitForFunction(tickAbove, -1, { timeout: 10_000 });
  const first = await label(page);
  await page.waitForFunction(tickAbove, Number(first.match(/tick (\d+)/)[1]), { timeout: 10_000 });
  // The time is reported, not asserted (a busy machine must not fail it).
  const moved = Date.now() - t0;
  console.log(`home: requests moving ${moved} ms after navigation (target 2,000; ${first} → ${await label(page)})`);
  assert.equal(await page.locator('text=No lab at this layer yet').count(), 0, 'no empty boxes');
  assert.equal(await page.locator('#start-tour').getAttribute('href'), '?tour=why&stop=1');
  assert.deepEqual(problems, []);
});

test('the Routing Lab opens side by side on a decision where the two rules differ', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing`);
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') !== null && /Key moment/.test(document.querySelector('#narration')?.textContent || ''));
  assert.equal(param(page, 'vs'), 'round-robin');
  assert.equal(param(page, 'rule'), 'least-outstanding');
  const text = await page.locator('#narration').textContent();
  // The moment names both rules' choices for one request, and they differ.
  const m = text.match(/Key moment: Round robin sent request (\d+) to replica (\d+).*Least outstanding sent it to replica (\d+)\./);
  assert.ok(m, text);
  assert.notEqual(m[2], m[3], 'the two rules chose different replicas');
  console.log(`routing opens at tick ${param(page, 'step')}: ${m[0]}`);
  // One rule, by choice: the link says so and keeps it.
  await page.locator('#vs-rule').selectOption('');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('vs') === 'none');
  assert.deepEqual(problems, []);
});

test('herding: the first key moment is the pile at tick 19, none with staggered scrapes', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=herding&step=0`);
  await page.locator('#moment-next').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') !== '0');
  assert.equal(param(page, 'step'), '19');
  assert.match(await page.locator('#narration').textContent(), /The pile: since tick 10, all 4 routers sent all 20 requests to replica 4.*holds 22/);
  await page.goto(`${env.srv.base}?lab=herding&step=0&stagger=1`);
  assert.equal(await page.locator('#moment-next').isDisabled(), true);
  assert.deepEqual(problems, []);
});

test('stars: none on figures of a run under way unless the column says so far, and on the better side', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  // Herding at tick 0: nothing is decided yet.
  await page.goto(`${env.srv.base}?lab=herding&step=0`);
  assert.equal(await page.locator('#herding-compare .best-mark').count(), 0);
  await page.goto(`${env.srv.base}?lab=herding&step=89`);
  assert.ok((await page.locator('#herding-compare .best-mark').count()) > 0, 'the whole run has its best');
  // Batching at iteration 14: chunked prefill has finished the most so far.
  await page.goto(`${env.srv.base}?lab=batching&mode=chunked&step=14`);
  const finished = await page.locator('#batching-compare tbody tr').evaluateAll((rows) => rows.map((r) => ({
    mode: r.querySelector('th').textContent.trim(),
    cell: r.querySelectorAll('td')[1].textContent.trim(),
  })));
  const starred = finished.filter((f) => f.cell.includes('★'));
  const most = Math.max(...finished.map((f) => parseInt(f.cell, 10)));
  assert.ok(starred.length > 0, JSON.stringify(finished));
  for (const s of starred) assert.equal(parseInt(s.cell, 10), most, JSON.stringify(finished));
  console.log(`batching at iteration 14, finished so far: ${finished.map((f) => `${f.mode} ${f.cell}`).join(', ')}`);
  // Columns that do not say "so far" carry no star before the end.
  const early = await page.locator('#batching-compare tbody tr').evaluateAll((rows) => rows.flatMap((r) =>
    [...r.querySelectorAll('td')].filter((_, i) => i >= 2).map((td) => td.textContent.includes('★'))));
  assert.ok(early.every((x) => !x));
  assert.deepEqual(problems, []);
});

test('keyboard shortcuts work after a player button was clicked', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=herding&step=0`);
  await page.locator('#player-forward').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '1');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'player-forward');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '2');
  await page.keyboard.press(']');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '19');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === '18');
  // No moment before tick 18: the player says so, and '[' leaves the step.
  assert.equal(await page.locator('#moment-previous').isDisabled(), true);
  await page.keyboard.press('[');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.equal(param(page, 'step'), '18');
  assert.deepEqual(problems, []);
});

test('skip link first, then the player: the lab early in tab order', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing`);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  const first = await page.evaluate(() => document.activeElement.closest('[data-panel]')?.dataset.panel);
  assert.equal(first, 'player', 'after the skip link, the first stop is in the player');
  // Sliders speak their value with its unit.
  const texts = await page.locator('input[type=range]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-valuetext')));
  assert.ok(texts.length > 3 && texts.every((t) => t && t.length > 0), JSON.stringify(texts));
  assert.ok(texts.some((t) => /%$/.test(t)), 'a share is read as a percentage');
  assert.deepEqual(problems, []);
});

test('on a 360 x 800 phone the stage stays on screen while stepping, under a sticky bar of at most 200 px', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.setViewportSize({ width: 360, height: 800 });
  for (const lab of ['routing', 'herding', 'prefix', 'batching']) {
    await page.goto(`${env.srv.base}?lab=${lab}`);
    const stage = page.locator(`#${lab}-stage`);
    await stage.waitFor();
    await page.evaluate((id) => window.scrollBy(0, document.getElementById(id).getBoundingClientRect().top - 8), `${lab}-stage`);
    for (let i = 0; i < 3; i++) {
      const before = await page.locator('#player-label').textContent();
      await page.locator('#player-forward').click();
      await page.waitForFunction((b) => document.querySelector('#player-label').textContent !== b, before);
      const r = await page.evaluate((id) => {
        const s = document.getElementById(id).getBoundingClientRect();
        const bar = document.querySelector('.player').getBoundingClientRect();
        return { top: s.top, bottom: s.bottom, barTop: bar.top, barBottom: bar.bottom, barH: bar.height, vh: innerHeight, sticky: getComputedStyle(document.querySelector('.player')).position };
      }, `${lab}-stage`);
      assert.ok(r.top >= 0 && r.bottom <= r.barTop + 1, `${lab}: stage ${r.top}–${r.bottom}, bar from ${r.barTop}`);
      assert.ok(r.barH <= 200, `${lab}: bar ${r.barH} px`);
      assert.equal(r.sticky, 'sticky');
      if (i === 2) console.log(`phone ${lab}: stage ${Math.round(r.top)}–${Math.round(r.bottom)} px, bar ${Math.round(r.barH)} px tall`);
    }
    // Scrolled down to the tables, the bar stays at the bottom of the screen.
    await page.evaluate((id) => window.scrollBy(0, document.getElementById(id).getBoundingClientRect().height * 0.8), `${lab}-stage`);
    const bar = await page.evaluate(() => document.querySelector('.player').getBoundingClientRect());
    assert.ok(bar.bottom <= 800 + 1 && bar.height <= 200, `${lab}: bar ${bar.top}–${bar.bottom}`);
  }
  assert.deepEqual(problems, []);
});

test('a player lab embeds with its player by default, and a tour embeds too', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  await page.goto(`${env.srv.base}?lab=routing&vs=round-robin&embed=1`);
  await page.locator('#routing-stage').waitFor();
  assert.ok(await page.locator('#routing-stage').isVisible(), 'the embed shows the player');
  await page.goto(`${env.srv.base}?tour=routing&embed=1`);
  await settled(page, 10_000);
  assert.equal(await page.locator('.site-header').count(), 0, 'no site header in an embed');
  assert.ok(await page.locator('#routing-stage').isVisible());
  assert.ok(await page.locator('#tour-next').isVisible());
  assert.equal(await page.locator('#tour-full').getAttribute('target'), '_blank');
  assert.deepEqual(problems, []);
});

test('tour links that cannot be used say so and run nothing they carry', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  let fired = false;
  page.on('dialog', async (d) => { fired = true; await d.dismiss(); });
  await page.goto(`${env.srv.base}?tour=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E`);
  await page.locator('.notice').first().waitFor();
  await settled(page, 10_000);
  assert.match(await page.locator('.notice').first().textContent(), /There is no tour called “<img src=x onerror=alert\(1\)>”/);
  assert.equal(await page.locator('main img').count(), 0);
  await page.goto(`${env.srv.base}?tour=herding&stop=%3Cb%3E9`);
  await settled(page, 10_000);
  assert.match(await page.locator('.notice').first().textContent(), /“stop=<b>9” is not a step of this tour \(1 to 5\)/);
  assert.equal((await page.locator('#tour-count').textContent()).trim(), '· Step 1 of 5');
  await page.goto(`${env.srv.base}?tour=herding&stop=99`);
  await settled(page, 10_000);
  assert.equal((await page.locator('#tour-count').textContent()).trim(), '· Step 1 of 5');
  assert.equal(fired, false);
  assert.deepEqual(problems, []);
});

test('every replica colour the page draws stands 3:1 against the page, panel and chart backgrounds, light and dark', async () => {
  const { page, problems } = await watchedPage(env.browser.context);
  // The replica colours as the herding lab paints its bars (16 replicas:
  // every colour of the palette), against the theme's backgrounds as the
  // browser computed them.
  const report = [];
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${env.srv.base}?lab=herding&replicas=16&step=40`);
    const { colours, backgrounds } = await page.evaluate(() => {
      const rgb = (s) => s.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
      const probe = document.createElement('div');
      document.body.append(probe);
      const resolve = (v) => { probe.style.color = v; return rgb(getComputedStyle(probe).color); };
      const root = getComputedStyle(document.documentElement);
      const backgrounds = ['--bg', '--panel', '--chart-bg'].map((v) => [v, resolve(root.getPropertyValue(v).trim())]);
      const colours = [...new Set([...document.querySelectorAll('.bar-old')].map((e) => e.style.background))].map((c) => [c, resolve(c)]);
      probe.remove();
      return { colours, backgrounds };
    });
    const lum = ([r, g, b]) => [r, g, b].map((c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; })
      .reduce((s, c, i) => s + c * [0.2126, 0.7152, 0.0722][i], 0);
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)]; return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
    assert.equal(colours.length, 16, `${scheme}: every replica of 16 in its own colour`);
    let worst = Infinity;
    for (const [name, c] of colours) {
      for (const [v, bg] of backgrounds) {
        const r = ratio(c, bg);
        worst = Math.min(worst, r);
        assert.ok(r >= 3, `${scheme}: ${name} on ${v} is ${r.toFixed(2)}:1`);
      }
    }
    report.push(`${scheme} ${colours.length} colours, lowest ${worst.toFixed(2)}:1`);
  }
  console.log(`replica colour contrast in the page: ${report.join('; ')}`);
  assert.deepEqual(problems, []);
});
