// Trunk post_build hook (see Trunk.toml). Two jobs:
//
// 1. Every profile: move Trunk's inline start-up script into a file of its
//    own. Why: index.html carries a Content-Security-Policy with no inline
//    script allowed (`script-src 'self'`), and Trunk always writes its loader
//    inline. The file gets a content-hashed name and an integrity hash like
//    Trunk's own assets.
// 2. Release only: give the wasm module's imports short names in both the
//    module and the glue (wasm-bindgen names each `__wbg_<method>_<16 hex
//    digits of hash>`, twice per import, and random hex is what gzip cannot
//    shrink: 5 KB of the bundle), then minify the wasm-bindgen JavaScript
//    glue with terser and refresh the Subresource Integrity hashes in
//    index.html. Why: Trunk minifies CSS and HTML but ships the glue as
//    written (50 KB), and every kilobyte counts against the page-weight
//    budget (tests/browser/budgets.test.mjs). Debug builds are left readable.
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
  shortenImports(dir);
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

/// Rename the imports of the one wasm module in `dir` from the glue's module
/// (`./web_bg.js`) to `$0`, `$1`, … in the module's import section and in the
/// glue's import object, which lists each name once as a key.
function shortenImports(dir) {
  const wasmName = fs.readdirSync(dir).filter((f) => f.endsWith('.wasm'));
  const jsName = fs.readdirSync(dir).filter((f) => /^web-.*\.js$/.test(f));
  if (wasmName.length !== 1 || jsName.length !== 1) throw new Error(`one wasm module and its glue expected: ${wasmName} ${jsName}`);
  const wasmFile = path.join(dir, wasmName[0]);
  const jsFile = path.join(dir, jsName[0]);
  const bytes = fs.readFileSync(wasmFile);
  let js = fs.readFileSync(jsFile, 'utf8');
  const GLUE = './web_bg.js';
  let i = 8;
  const leb = () => {
    let r = 0, shift = 0, b;
    do { b = bytes[i++]; r += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    return r;
  };
  const out = [bytes.subarray(0, 8)];
  const encLeb = (n) => {
    const o = [];
    do { let b = n & 0x7f; n = Math.floor(n / 128); if (n) b |= 0x80; o.push(b); } while (n);
    return Buffer.from(o);
  };
  const name = (s) => { const b = Buffer.from(s, 'utf8'); return Buffer.concat([encLeb(b.length), b]); };
  let renamed = 0;
  while (i < bytes.length) {
    const start = i;
    const id = bytes[i++];
    const size = leb();
    const end = i + size;
    if (id !== 2) { out.push(bytes.subarray(start, end)); i = end; continue; }
    const count = leb();
    const parts = [encLeb(count)];
    for (let k = 0; k < count; k++) {
      const str = () => { const n = leb(); const s = bytes.subarray(i, i + n).toString('utf8'); i += n; return s; };
      const module = str();
      const field = str();
      const descStart = i;
      const kind = bytes[i++];
      const limits = () => { const flag = bytes[i++]; leb(); if (flag & 1) leb(); };
      if (kind === 0) leb();
      else if (kind === 1) { i++; limits(); }
      else if (kind === 2) limits();
      else if (kind === 3) i += 2;
      else if (kind === 4) { i++; leb(); }
      else throw new Error(`unknown import kind ${kind}`);
      const desc = bytes.subarray(descStart, i);
      if (module !== GLUE) { parts.push(name(module), name(field), desc); continue; }
      const short = '$' + renamed.toString(36);
      renamed += 1;
      // The glue names each import once, as a key of its import object.
      const key = new RegExp(`(?<![\\w$])${field.replace(/\$/g, '\\$')}(?=\\s*:)`, 'g');
      const found = js.match(key);
      if (!found || found.length !== 1) throw new Error(`import ${field} is a key of the glue ${found ? found.length : 0} times, not once`);
      js = js.replace(key, short);
      parts.push(name('a'), name(short), desc);
    }
    if (i !== end) throw new Error('import section misread');
    const body = Buffer.concat(parts);
    out.push(Buffer.from([2]), encLeb(body.length), body);
  }
  const modules = js.split(`"${GLUE}":`).length - 1;
  if (modules !== 1) throw new Error(`the glue names ${GLUE} ${modules} times, not once`);
  js = js.replace(`"${GLUE}":`, 'a:');
  const wasm = Buffer.concat(out);
  fs.writeFileSync(wasmFile, wasm);
  fs.writeFileSync(jsFile, js);
  let replaced = 0;
  html = html.replace(/<link\b[^>]*>/g, (tag) => {
    if (!tag.includes(wasmName[0])) return tag;
    replaced += 1;
    return tag.replace(/integrity=("?)sha384-[A-Za-z0-9+/=]+\1/, `integrity=$1${sri(wasm)}$1`);
  });
  if (replaced === 0) throw new Error(`no <link> for ${wasmName[0]} in index.html`);
  console.log(`post-build: ${renamed} imports renamed, ${wasmName[0]} ${bytes.length} → ${wasm.length} bytes`);
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
