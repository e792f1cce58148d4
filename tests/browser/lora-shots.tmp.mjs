import { serve, launch, settled, frames } from '/work/main/tests/browser/harness.mjs';
const srv = await serve();
const b = await launch();
const errors = [];
for (const scheme of ['dark', 'light']) {
for (const [width, height] of [[1280, 900], [360, 800]]) {
  const page = await b.context.newPage();
  page.on('console', m => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
  page.on('pageerror', e => errors.push(String(e)));
  await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  await page.setViewportSize({ width, height });
  await page.goto(`${srv.base}?lab=lora`);
  await settled(page, 60_000).catch(e => console.log('settle', e.message));
  await frames(page, 2);
  await page.screenshot({ path: `/tmp/lora-${scheme}-${width}.png` });
  await page.screenshot({ path: `/tmp/lora-${scheme}-${width}-full.png`, fullPage: true });
  await page.close();
}
}
console.log('errors', errors);
await b.close(); await srv.close();
