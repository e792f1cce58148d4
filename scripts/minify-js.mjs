// Trunk post_build hook (see Trunk.toml): in release builds, minify the
// wasm-bindgen JavaScript glue with terser and refresh its Subresource
// Integrity hash in index.html. Why: Trunk minifies CSS and HTML but ships the
// glue as written (50 KB), and every kilobyte counts against the page-weight
// budget (tests/browser/budgets.test.mjs). Debug builds are left readable.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);
const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('TRUNK_STAGING_DIR is not set: run this from Trunk');
// terser lives with the other JS tooling (wasm-opt, playwright-core).
const require = createRequire(new URL('../tests/browser/package.json', import.meta.url));
const { minify } = require('terser');

const htmlPath = path.join(dir, 'index.html');
let html = fs.readFileSync(htmlPath, 'utf8');
for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.js'))) {
  const file = path.join(dir, name);
  const source = fs.readFileSync(file, 'utf8');
  const out = await minify(source, { module: true, compress: { passes: 2 }, mangle: true });
  fs.writeFileSync(file, out.code);
  const sri = 'sha384-' + crypto.createHash('sha384').update(out.code).digest('base64');
  // Replace the integrity attribute inside the <link> that points at this file.
  let replaced = 0;
  html = html.replace(/<link\b[^>]*>/g, (tag) => {
    if (!tag.includes(name)) return tag;
    replaced += 1;
    return tag.replace(/integrity=("?)sha384-[A-Za-z0-9+/=]+\1/, `integrity=$1${sri}$1`);
  });
  if (replaced === 0) throw new Error(`no <link> for ${name} in index.html`);
  console.log(`minify-js: ${name} ${source.length} → ${out.code.length} bytes`);
}
fs.writeFileSync(htmlPath, html);
