// Shared helpers for the browser tests: a tiny static file server for dist/ and a
// headless Debian Chromium driven by playwright-core (it never downloads a browser).
import http from 'node:http';
import zlib from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const dist = path.join(root, 'dist');

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/**
 * Serve `dir` at `prefix` (e.g. '/some/sub/path/') on a free loopback port.
 * `options.gzip`: answer a client that accepts gzip with the file gzipped
 * (level 9, cached per file), as a production host would.
 */
export function serve(dir = dist, prefix = '/', extra = {}, options = {}) {
  const zipped = new Map();
  // Long links are part of what is tested (a 100 KB URL value): allow a
  // request line of up to a megabyte (Node's default is 16 KB).
  const server = http.createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (extra[url.pathname]) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(extra[url.pathname]);
      return;
    }
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    let rel = decodeURIComponent(url.pathname.slice(prefix.length));
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = path.join(dir, rel);
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    const type = types[path.extname(file)] || 'application/octet-stream';
    if (options.gzip) {
      // As a plain static host (nginx, `python3 -m http.server`) answers:
      // Last-Modified, and 304 to a request that already holds the file.
      const modified = fs.statSync(file).mtime.toUTCString();
      if (req.headers['if-modified-since'] === modified) {
        res.writeHead(304, { 'last-modified': modified });
        res.end();
        return;
      }
      res.setHeader('last-modified', modified);
    }
    if (options.gzip && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
      if (!zipped.has(file)) zipped.set(file, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
      res.writeHead(200, { 'content-type': type, 'content-encoding': 'gzip', vary: 'accept-encoding' });
      res.end(zipped.get(file));
      return;
    }
    res.writeHead(200, { 'content-type': type });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ base: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** Launch headless Chromium with the flags that work on this machine. */
export async function launch() {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lblab-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** A new page that records console errors, page errors and failed requests. */
export async function watchedPage(context) {
  const page = await context.newPage();
  const problems = [];
  // The page runs under a Content-Security-Policy (index.html): a violation
  // (an inline script, a style, a worker or a fetch it does not allow) is a
  // problem in every test.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  // A download the page cancels (net::ERR_ABORTED: the test navigated on while the
  // worker was still fetching its wasm) is not a failure; a blocked or broken one is
  // (CSP blocks, refused connections; a missing file shows as the http line below).
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText ?? '';
    if (why !== 'net::ERR_ABORTED') problems.push(`requestfailed (${why}): ${r.url()}`);
  });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`http ${r.status()}: ${r.url()}`); });
  // Simulations run in a worker, so a lab's first results arrive a moment after
  // the page: navigating to a lab waits for them (briefly; a page that never
  // runs, e.g. an unknown lab, is left to the test's own checks).
  const goto = page.goto.bind(page);
  // (`{ settle: false }` skips the wait: for a link whose run is refused.)
  page.goto = async (url, options = {}) => {
    const { settle = true, ...rest } = options;
    const response = await goto(url, rest);
    if (settle && /[?&]lab=/.test(url)) {
      await settled(page, 10_000).catch(() => {});
    }
    return response;
  };
  return { page, problems };
}

/**
 * Register before/after hooks that serve dist/ and launch Chromium for a test
 * file; the returned object's `srv` and `browser` are set once the hooks ran.
 */
export async function useAppAndBrowser() {
  const { before, after } = await import('node:test');
  const env = {};
  before(async () => {
    env.srv = await serve();
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.srv?.close();
  });
  return env;
}

/** Run the native CLI (release build if present) and return its stdout. */
export function lblab(args) {
  const bin = path.join(root, 'target', 'release', 'lblab');
  if (fs.existsSync(bin)) return execFileSync(bin, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return execFileSync('cargo', ['run', '--quiet', '--release', '-p', 'lblab', '--', ...args], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/** Wait `n` animation frames of the page (what is drawn is on screen). */
export async function frames(page, n = 2) {
  await page.evaluate((k) => new Promise((resolve) => {
    const next = (left) => (left === 0 ? resolve() : requestAnimationFrame(() => next(left - 1)));
    next(k);
  }), n);
}

/**
 * Wait until the page has shown at least one outcome and no simulation is in
 * the worker (`<html data-runs>` and `data-busy`, set by the app): runs are
 * asynchronous, so read results only after this.
 */
export async function settled(page, timeout = 30_000) {
  await page.waitForFunction(() => {
    const root = document.documentElement;
    return Number(root.dataset.runs || 0) > 0 && !root.hasAttribute('data-busy');
  }, null, { timeout });
}
