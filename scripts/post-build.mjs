// Trunk post_build hook (see Trunk.toml). Three jobs:
//
// 1. Every profile: preload the simulation worker's files from index.html.
//    Trunk builds the worker crate (`data-type="worker"`) but, by design,
//    links nothing to it; the page finds the worker's glue, wasm and first
//    script (assets/worker-boot.js) through these <link data-worker> tags,
//    and the browser starts downloading them while it still fetches the
//    page's own module.
// 2. Every profile: move Trunk's inline start-up script into a file of its
//    own. Why: index.html carries a Content-Security-Policy with no inline
//    script allowed (`script-src 'self'`), and Trunk always writes its loader
//    inline. The file gets a content-hashed name and an integrity hash like
//    Trunk's own assets.
// 3. Release only: minify the wasm-bindgen JavaScript glue with terser and
//    refresh the Subresource Integrity hashes in index.html. Trunk minifies
//    CSS and HTML but cannot parse the glue (it warns "Failed to minify JS"
//    and ships it as written).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('TRUNK_STAGING_DIR is not set: run this from Trunk');
const sri = (text) => 'sha384-' + crypto.createHash('sha384').update(text).digest('base64');
const htmlPath = path.join(dir, 'index.html');
let html = fs.readFileSync(htmlPath, 'utf8');
const files = fs.readdirSync(dir);

// 1. The worker's glue and wasm. Trunk writes them unhashed (worker.js,
// worker_bg.wasm); they get content-hashed names here like every other
// asset, so a host may cache them for good. The glue never names its wasm:
// the page compiles the module and posts it to the worker.
const hashed = (name, ext, prefix = 'worker-') => {
  const file = path.join(dir, name);
  const out = `${prefix}${crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16)}${ext}`;
  fs.renameSync(file, path.join(dir, out));
  return out;
};
if (!files.includes('worker.js') || !files.includes('worker_bg.wasm')) throw new Error(`worker.js and worker_bg.wasm expected in ${dir}`);
const glue = [hashed('worker.js', '.js')];
const wasm = [hashed('worker_bg.wasm', '_bg.wasm')];
// The worker's first script (assets/worker-boot.js, copied by Trunk).
if (!files.includes('worker-boot.js')) throw new Error(`worker-boot.js expected in ${dir}`);
const boot = hashed('worker-boot.js', '.js', 'worker-boot-');
files.splice(0, files.length, ...fs.readdirSync(dir));
const links =
  `<link rel="modulepreload" href="./${glue[0]}" crossorigin="anonymous" integrity="${sri(fs.readFileSync(path.join(dir, glue[0])))}" data-worker="glue">` +
  `<link rel="preload" href="./${wasm[0]}" as="fetch" type="application/wasm" crossorigin="anonymous" data-worker="wasm">` +
  `<link rel="modulepreload" href="./${boot}" crossorigin="anonymous" integrity="${sri(fs.readFileSync(path.join(dir, boot)))}" data-worker="boot">`;
if (!html.includes('</head>')) throw new Error('index.html has no </head>');
html = html.replace('</head>', `${links}</head>`);

// 3. Minify every JS glue file and refresh its integrity hash.
if (process.env.TRUNK_PROFILE === 'release') {
  // terser lives with the other JS tooling (wasm-opt, playwright-core).
  const require = createRequire(new URL('../tests/browser/package.json', import.meta.url));
  const { minify } = require('terser');
  // The two wasm-bindgen glue files (Trunk minifies the shell's script itself).
  for (const name of files.filter((f) => /^(web|worker)-[0-9a-f]+\.js$/.test(f))) {
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

// 2. The inline module script(s) Trunk wrote: each becomes start-<hash>.js.
let moved = 0;
html = html.replace(/<script\b([^>]*)>([\s\S]*?)<\/script>/g, (tag, attrs, body) => {
  if (/\bsrc=/.test(attrs) || body.trim() === '' || /application\/json/.test(attrs)) return tag;
  if (!/type="?module"?/.test(attrs)) throw new Error(`an inline classic script in index.html: ${tag.slice(0, 80)}`);
  const name = `start-${crypto.createHash('sha256').update(body).digest('hex').slice(0, 16)}.js`;
  fs.writeFileSync(path.join(dir, name), body);
  moved += 1;
  return `<script type="module" src="./${name}" integrity="${sri(body)}" crossorigin></script>`;
});
if (moved === 0) throw new Error('no inline start-up script found in index.html (did Trunk change its loader?)');
console.log(`post-build: worker files preloaded; moved ${moved} inline script(s) out of index.html`);
fs.writeFileSync(htmlPath, html);
