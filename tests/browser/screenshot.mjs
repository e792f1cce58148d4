// Manual helper: node screenshot.mjs '<query>' out.png [width] [colorScheme] [selectors to click, comma-separated] [top of a 900 px tall slice; full page without]
import { serve, launch, settled, frames } from './harness.mjs';
const [query = '', out = '/tmp/shot.png', width = '1280', scheme = 'light', clicks = '', top = ''] = process.argv.slice(2);
const srv = await serve();
const b = await launch();
const page = await b.context.newPage();
await page.emulateMedia({ colorScheme: scheme });
await page.setViewportSize({ width: Number(width), height: 900 });
page.on('console', (m) => console.log(`[${m.type()}] ${m.text()}`));
page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
await page.goto(srv.base + query);
// A lab (or a tour's lab) has shown its results; the home page its tour step.
await settled(page, 30_000).catch(() => console.log('no results within 30 s'));
await frames(page, 2);
for (const sel of clicks.split(',').filter(Boolean)) {
  await page.click(sel);
  await frames(page, 20);
}
await page.screenshot(
  top === '' ? { path: out, fullPage: true } : { path: out, fullPage: true, clip: { x: 0, y: Number(top), width: Number(width), height: 900 } },
);
await b.close();
await srv.close();
console.log('wrote', out);
