// Manual helper: tour steps with live numbers, pointed at and moved.
//   node tests/browser/live-screens.mjs /tmp/live
import fs from 'node:fs';
import { serve, launch, settled, frames } from './harness.mjs';

const out = process.argv[2] || '/tmp/live';
fs.mkdirSync(out, { recursive: true });
const srv = await serve();
const b = await launch();
for (const width of [1280, 360]) {
  const page = await b.context.newPage();
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.setViewportSize({ width, height: 800 });
  for (const [tour, stop, slot] of [['herding', 2, 0], ['herding', 3, 0], ['scaling', 3, 3], ['sessions', 1, 1], ['routing', 2, 1], ['why', 2, 1]]) {
    await page.goto(`${srv.base}?tour=${tour}&stop=${stop}`);
    await settled(page, 10_000);
    await frames(page, 2);
    const nums = page.locator('#tour-words .live-num');
    console.log(tour, stop, width, await page.locator('#tour-words').textContent());
    await nums.nth(slot).hover();
    await frames(page, 3);
    await page.screenshot({ path: `${out}/${tour}-${stop}-${width}-hover.png` });
  }
  // Moving the revealed control changes the numbers.
  await page.goto(`${srv.base}?tour=herding&stop=3`);
  await settled(page, 10_000);
  const before = await page.locator('#tour-words').textContent();
  await page.locator('[data-control="stagger"] input').first().click();
  await page.waitForFunction((b) => document.querySelector('#tour-words').textContent !== b, before, { timeout: 10_000 });
  await settled(page, 10_000);
  console.log('moved:', await page.locator('#tour-words').textContent());
  await page.screenshot({ path: `${out}/herding-3-${width}-moved.png` });
  await page.close();
}
await b.close();
await srv.close();
