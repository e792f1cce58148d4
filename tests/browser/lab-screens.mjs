// Manual helper: what a newcomer sees first, a screenshot of every lab's
// opening view (the first screen, no scrolling) at 1280 × 900 and 360 × 800,
// light theme, for review before a lab changes.
//   node tests/browser/lab-screens.mjs /tmp/labs
import fs from 'node:fs';
import { serve, launch, settled, frames, lblab } from './harness.mjs';

const out = process.argv[2] || '/tmp/labs';
fs.mkdirSync(out, { recursive: true });
const LABS = JSON.parse(lblab(['labs', '--json'])).map((l) => l.id);
const srv = await serve();
const b = await launch();
for (const [width, height] of [[1280, 900], [360, 800]]) {
  const page = await b.context.newPage();
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
  await page.setViewportSize({ width, height });
  for (const lab of [...LABS, 'validate']) {
    await page.goto(`${srv.base}?lab=${lab}`);
    await settled(page, 30_000).catch(() => {});
    await frames(page, 2);
    const file = `${out}/${lab}-${width}.png`;
    await page.screenshot({ path: file });
    console.log('wrote', file);
  }
  await page.close();
}
await b.close();
await srv.close();
