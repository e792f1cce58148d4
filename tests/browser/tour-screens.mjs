// Manual helper: a screenshot of every tour step at 1280 and 360 px wide
// (light theme; dark at 1280 too), for review before a tour changes.
//   node tests/browser/tour-screens.mjs /tmp/tours
import fs from 'node:fs';
import { serve, launch, settled, frames } from './harness.mjs';

const out = process.argv[2] || '/tmp/tours';
fs.mkdirSync(out, { recursive: true });
const TOURS = { why: 4, routing: 4, herding: 5, prefix: 4, batching: 5, split: 5, scaling: 5, sessions: 5, 'first-token': 5 };
const srv = await serve();
const b = await launch();
for (const [width, scheme] of [[1280, 'light'], [360, 'light'], [1280, 'dark']]) {
  const page = await b.context.newPage();
  await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  await page.setViewportSize({ width, height: width > 400 ? 900 : 800 });
  for (const [tour, n] of Object.entries(TOURS)) {
    for (let i = 1; i <= n; i++) {
      await page.goto(`${srv.base}?tour=${tour}&stop=${i}`);
      await settled(page, 10_000);
      await frames(page, 2);
      const file = `${out}/${tour}-${i}-${width}-${scheme}.png`;
      await page.screenshot({ path: file, fullPage: width < 400 ? false : true });
      console.log('wrote', file);
    }
  }
  await page.close();
}
await b.close();
await srv.close();
