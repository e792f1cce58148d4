// Manual helper: screenshots of each player's panel caught mid-animation (a
// step is taken, and the picture is taken while its marks are still moving),
// light and dark, 1200 and 360 px wide.
//   node tests/browser/player-screens.mjs /tmp
import { serve, launch, settled, frames } from './harness.mjs';

const out = process.argv[2] || '/tmp';
const PLAYERS = [
  ['routing', '?lab=routing&rule=least-outstanding&vs=round-robin&step=200'],
  ['herding', '?lab=herding&step=9'],
  ['prefix', '?lab=prefix&step=4'],
  ['batching', '?lab=batching&mode=static&step=8'],
];
const srv = await serve();
const b = await launch();
for (const width of [1200, 360]) {
  for (const scheme of ['light', 'dark']) {
    const page = await b.context.newPage();
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'no-preference' });
    await page.setViewportSize({ width, height: 900 });
    for (const [lab, query] of PLAYERS) {
      await page.goto(srv.base + query);
      await settled(page);
      await frames(page, 2);
      const panel = page.locator('[data-panel="player"]').first();
      await panel.scrollIntoViewIfNeeded();
      // Slow the tween down so the shot lands inside it, then step.
      await page.selectOption('.player-speed select', '1');
      await page.locator('#player-forward').click();
      // About 150 ms into the tween (nine frames at 60 Hz).
      await frames(page, 9);
      const file = `${out}/player-${lab}-${width}-${scheme}.png`;
      await panel.screenshot({ path: file });
      console.log('wrote', file);
      if (width < 700) {
        // On a phone the panel scrolls inside itself: the stage on its own.
        await page.locator('#player-forward').click();
        await page.locator('canvas.stage').scrollIntoViewIfNeeded();
        await frames(page, 7);
        const stage = `${out}/player-${lab}-${width}-${scheme}-stage.png`;
        await page.locator('canvas.stage').screenshot({ path: stage });
        console.log('wrote', stage);
      }
    }
    await page.close();
  }
}
await b.close();
await srv.close();
