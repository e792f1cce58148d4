// Manual helper: three embeds in an article-like host page, screenshotted at
// 640 and 360 px wide in light and dark (issue 14's review screenshots).
// node embed-screens.mjs [out-dir]
import { serve, launch, frames } from './harness.mjs';

const out = process.argv[2] ?? '/tmp';
const HOST = `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>host</title>
<style>body{font-family:Georgia,serif;max-width:680px;margin:0 auto;padding:0 10px;line-height:1.5} @media (prefers-color-scheme: dark){body{background:#111;color:#ddd}} iframe{width:100%;border:0;display:block;margin:1em 0}</style></head><body>
<h1>Why round robin fails for LLM traffic</h1><p>An article paragraph before the first lab. Move the rate and watch the queues.</p>
<iframe src="./?lab=routing&rule=round-robin&embed=1&controls=rate" title="Routing Lab"></iframe>
<p>Stale signals make routers stampede. Step through the ticks:</p>
<iframe src="./?lab=herding&embed=1&step=12" title="Herding"></iframe>
<p>And the knee of the queueing curve:</p>
<iframe src="./?lab=knee&embed=1&controls=wait" title="Knee"></iframe>
<p>End of article.</p>
<script>window.addEventListener('message',function(e){var d=e.data;if(!d||d.source!=='lblab'||d.type!=='resize')return;document.querySelectorAll('iframe').forEach(function(f){if(f.contentWindow===e.source)f.style.height=d.height+'px';});});</script>
</body></html>`;
const srv = await serve(undefined, '/', { '/host.html': HOST });
const b = await launch();
for (const width of [640, 360]) {
  for (const scheme of ['light', 'dark']) {
    const page = await b.context.newPage();
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
    await page.goto(srv.base + 'host.html');
    // Every frame has reported its height, and the host has drawn it.
    await page.waitForFunction(() => [...document.querySelectorAll('iframe')].every((f) => f.style.height), null, { timeout: 30_000 });
    await frames(page, 2);
    const hs = await page.evaluate(() => [...document.querySelectorAll('iframe')].map((f) => f.style.height));
    const file = `${out}/host-${width}-${scheme}.png`;
    await page.screenshot({ path: file, fullPage: true });
    console.log(`${file}: frames ${hs.join(', ')}`);
    await page.close();
  }
}
await b.close();
await srv.close();
