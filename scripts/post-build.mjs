// Trunk post_build hook (see Trunk.toml). Two jobs:
//
// 1. Every profile: move Trunk's inline start-up script into a file of its
//    own. Why: index.html carries a Content-Security-Policy with no inline
//    script allowed (`script-src 'self'`), and Trunk always writes its loader
//    inline. The file gets a content-hashed name and an integrity hash like
//    Trunk's own assets.
// 2. Release only: minify the wasm-bindgen JavaScript glue with terser and
//    refresh its Subresource Integrity hash in index.html. Why: Trunk minifies
//    CSS and HTML but ships the glue as written (50 KB), and every kilobyte
//    counts against the page-weight budget (tests/browser/budgets.test.mjs).
//    Debug builds are left readable.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('TRUNK_STAGING_DIR is not set: run this from Trunk');
const sri = (text) => 'sha384-' + crypto.createHash('sha384').update(text).digest('base64');
const htmlPath = path.join(dir, 'index.html');
let html = fs.readFileSync(htmlPath, 'utf8');

if (process.env.TRUNK_PROFILE === 'release') {
  // terser lives with the other JS tooling (wasm-opt, playwright-core).
  const require = createRequire(new URL('../tests/browser/package.json', import.meta.url));
  const { minify } = require('terser');
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const file = path.join(dir, name);
    const source = fs.readFileSync(file, 'utf8');
    const out = await minify(source, { module: true, compress: { passes: 2 }, mangle: true });
    fs.writeFileSync(file, out.code);
    // Replace the integrity attribute inside the <link> that points at this file.
    let replaced = 0;
    html = html.replace(/<link\b[^>]*>/g, (tag) => {
      if (!tag.includes(name)) return tag;
      replaced += 1;
      return tag.replace(/integrity=("?)sha384-[A-Za-z0-9+/=]+\1/, `integrity=$1${sri(out.code)}$1`);
    });
    if (replaced === 0) throw new Error(`no <link> for ${name} in index.html`);
    console.log(`post-build: ${name} ${source.length} → ${out.code.length} bytes`);
  }
}

// The inline module script(s) Trunk wrote: each becomes start-<hash>.js.
let moved = 0;
html = html.replace(/<script\b([^>]*)>([\s\S]*?)<\/script>/g, (tag, attrs, body) => {
  if (/\bsrc=/.test(attrs) || body.trim() === '') return tag;
  if (!/type="?module"?/.test(attrs)) throw new Error(`an inline classic script in index.html: ${tag.slice(0, 80)}`);
  const name = `start-${crypto.createHash('sha256').update(body).digest('hex').slice(0, 16)}.js`;
  fs.writeFileSync(path.join(dir, name), body);
  moved += 1;
  return `<script type="module" src="./${name}" integrity="${sri(body)}" crossorigin></script>`;
});
if (moved === 0) throw new Error('no inline start-up script found in index.html (did Trunk change its loader?)');
console.log(`post-build: moved ${moved} inline script(s) out of index.html`);
fs.writeFileSync(htmlPath, html);
