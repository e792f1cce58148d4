// Share, embed and export (issue 8) in real headless Chromium against dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { serve, launch, watchedPage, lblab, settled } from './harness.mjs';

const HOST = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"></head><body>
<h1>An article</h1>
<iframe id="a" src="./?lab=routing&embed=1&controls=rate" title="Routing Lab" style="width:100%;border:0" height="150"></iframe>
<p>Some text between.</p>
<iframe id="b" src="./?lab=herding&embed=1&step=7" title="Herding" style="width:360px;border:0" height="150"></iframe>
<script>
window.addEventListener('message', function (e) {
  var d = e.data;
  if (!d || d.source !== 'lblab' || d.type !== 'resize') return;
  document.querySelectorAll('iframe').forEach(function (f) {
    if (f.contentWindow === e.source) f.style.height = d.height + 'px';
  });
});
</script></body></html>`;

let srv;
let sub;
let browser;
before(async () => {
  srv = await serve(undefined, '/', { '/host.html': HOST });
  sub = await serve(undefined, '/some/sub/path/');
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.close();
  await sub?.close();
});


test('a host page embedding two labs auto-resizes both iframes', async () => {
  const { page, problems } = await watchedPage(browser.context);
  await page.goto(`${srv.base}host.html`);
  for (const id of ['a', 'b']) {
    await page.waitForFunction((id) => parseInt(document.getElementById(id).style.height || '0', 10) > 400, id);
    const frame = page.frameLocator(`#${id}`);
    await frame.locator('#lab-root').waitFor();
    // Results arrive from the worker after the first paint and change the
    // height; compare once the frame has settled and its next height message
    // (sent within 200 ms of a change) has had time to arrive.
    const inside = page.frame({ url: id === 'a' ? /lab=routing/ : /lab=herding/ });
    await settled(inside);
    // The frame posts its height when its body's size changes: wait until
    // the host has applied the latest one.
    let inner = 0;
    let outer = -10;
    for (let tries = 0; tries < 100 && Math.abs(inner - outer) > 2; tries++) {
      inner = await inside.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(document.body.scrollHeight))));
      outer = await page.evaluate((id) => parseInt(document.getElementById(id).style.height, 10), id);
    }
    assert.ok(Math.abs(inner - outer) <= 2, `iframe ${id}: ${outer}px for ${inner}px of content`);
    assert.equal(await frame.locator('.site-header').count(), 0, 'no site header when embedded');
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('step=7 opens the players at step 7', async () => {
  const { page, problems } = await watchedPage(browser.context);
  await page.goto(`${srv.base}?lab=herding&step=7`);
  await page.locator('#tick-heading').waitFor();
  assert.equal((await page.locator('#player-label').textContent()).trim(), 'tick 7 of 89');
  assert.match(await page.locator('#tick-heading').textContent(), /^Tick 7 /);
  await page.goto(`${srv.base}?lab=prefix&step=7`);
  await page.locator('#request-heading').waitFor();
  assert.equal((await page.locator('#player-label').textContent()).trim(), 'request 7 of 12');
  assert.match(await page.locator('#request-heading').textContent(), /^Request R7 /);
  assert.deepEqual(problems, []);
  await page.close();
});

test('controls=rate shows only that control', async () => {
  const { page, problems } = await watchedPage(browser.context);
  await page.goto(`${srv.base}?lab=routing&embed=1&controls=rate`);
  await page.locator('#rate').waitFor();
  assert.equal(await page.locator('#rate').isVisible(), true);
  const visible = await page.locator('[data-control]').evaluateAll((els) => els.filter((e) => !e.hidden).map((e) => e.dataset.control));
  assert.deepEqual(visible, ['rate']);
  // Moving it keeps the embedding keys in the URL.
  await page.locator('#rate').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('rate') === '0.21');
  const params = new URL(page.url()).searchParams;
  assert.equal(params.get('embed'), '1');
  assert.equal(params.get('controls'), 'rate');
  assert.deepEqual(problems, []);
  await page.close();
});

test('CSV and JSON downloads equal what the CLI prints', async () => {
  const { page, problems } = await watchedPage(browser.context);
  const cases = [
    { query: '?lab=routing&replicas=5&rate=0.3&seed=11', args: ['routing', '--replicas', '5', '--rate', '0.3', '--seed', '11', '--json'] },
    // Milliseconds from a preset: wasm and native agree bit for bit here too.
    { query: '?lab=routing&gpu=h100&model=llama-3.1-8b&tp=1', args: ['routing', '--gpu', 'h100', '--model', 'llama-3.1-8b', '--tp', '1', '--json'] },
    { query: '?lab=goodput&gpu=a100&model=qwen-32b&tp=2&sweep-points=4', args: ['goodput', '--gpu', 'a100', '--model', 'qwen-32b', '--tp', '2', '--sweep-points', '4', '--json'] },
    { query: '?lab=herding&routers=3&stagger=1&seed=4', args: ['herding', '--routers', '3', '--stagger', '--seed', '4', '--json'] },
    { query: '?lab=prefix&threshold=inf&slots=2', args: ['prefix', '--threshold', 'inf', '--slots', '2', '--json'] },
    { query: '?lab=batching&chunk-budget=2&order=prefill', args: ['batching', '--chunk-budget', '2', '--order', 'prefill', '--json'] },
    { query: '?lab=hedging&hedge-at=90', args: ['hedging', '--hedge-at', '90', '--json'] },
    { query: '?lab=knee&simulate=1&seed=4', args: ['knee', '--simulate', '--seed', '4', '--json'] },
  ];
  for (const c of cases) {
    await page.goto(srv.base + c.query);
    await page.locator('#export-json').waitFor();
    // An outcome is published (the export's JSON is written on request, by
    // the worker running the job again).
    await settled(page);
    const [json] = await Promise.all([page.waitForEvent('download'), page.locator('#export-json').click()]);
    const text = fs.readFileSync(await json.path(), 'utf8');
    assert.ok(text.length > 100);
    assert.deepStrictEqual(JSON.parse(text), JSON.parse(lblab(c.args)), c.query);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.locator('#export-csv').click()]);
    const csvText = fs.readFileSync(await csv.path(), 'utf8');
    assert.equal(csvText, lblab([...c.args.filter((a) => a !== '--json'), '--csv']), `${c.query}: CSV`);
    assert.ok(csvText.split('\n').length >= 2 && !csvText.includes('★'), 'a header and rows, no marks');
    const [png] = await Promise.all([page.waitForEvent('download'), page.locator('#export-png').click()]);
    assert.ok(fs.statSync(await png.path()).size > 1000, 'the chart PNG has content');
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('the app under a sub-path loads with no failed request and no console error', async () => {
  const { page, problems } = await watchedPage(browser.context);
  const urls = [];
  page.on('request', (r) => urls.push(r.url()));
  for (const q of ['', '?lab=routing', '?lab=herding', '?lab=prefix', '?lab=batching', '?lab=knee&simulate=1', '?lab=little', '?lab=retries', '?lab=hedging', '?lab=cascade']) {
    await page.goto(sub.base + q);
    await page.locator('main').waitFor();
    await page.waitForLoadState('networkidle');
  }
  assert.ok(urls.length > 4);
  // Everything, the simulation worker's first script included, comes from under the sub-path.
  const own = (u) => u.startsWith(sub.base);
  for (const u of urls) assert.ok(own(u), `request outside the app: ${u}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('malformed values in every lab fall back with a visible notice, without a panic', async () => {
  const { page, problems } = await watchedPage(browser.context);
  for (const q of ['?lab=herding&routers=99&scrape-interval=abc', '?lab=prefix&trace=1,9&threshold=-3', '?lab=routing&prompt-cv=-1', '?lab=nope&theme=pink',
    '?lab=knee&wait=0&simulate=maybe', '?lab=little&kv-blocks=-5', '?lab=retries&attempts=0', '?lab=hedging&ttft-share=100', '?lab=cascade&escalate=0']) {
    await page.goto(srv.base + q);
    await page.locator('.notice').first().waitFor();
    assert.ok((await page.locator('.notice').count()) >= 1, q);
  }
  assert.equal(await page.locator('#routers').count(), 0);
  await page.goto(`${srv.base}?lab=herding&routers=99`);
  assert.equal(await page.locator('#routers').inputValue(), '4');
  assert.deepEqual(problems, []);
  await page.close();
});

test('theme, autoplay and reduced motion', async () => {
  const { page, problems } = await watchedPage(browser.context);
  await page.goto(`${srv.base}?lab=herding&theme=dark`);
  await page.locator('#player-label').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(21, 23, 26)');
  await page.goto(`${srv.base}?lab=herding&autoplay=1`);
  await page.waitForFunction(() => /tick [1-9]/.test(document.getElementById('player-label').textContent));
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${srv.base}?lab=herding&autoplay=1&step=3`);
  // Under reduced motion autoplay does not start: the player shows Play.
  await page.waitForFunction(() => document.querySelector('#player-play')?.getAttribute('aria-label') === 'Play');
  assert.equal((await page.locator('#player-label').textContent()).trim(), 'tick 3 of 89');
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  assert.deepEqual(problems, []);
  await page.close();
});
