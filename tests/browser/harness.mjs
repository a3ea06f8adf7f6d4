// Shared utilities of the browser suites: a static file server for the
// repository, the browser under test (Debian's Chromium over CDP, or Firefox
// ESR over WebDriver BiDi, both through puppeteer-core), console capture and
// a page-side evaluation helper whose failures say what the page threw.
//
// Every suite runs in the browser SNAIL_BROWSER names (chromium, the default,
// or firefox); tools/test.mjs runs the browser group once per browser.
//
//   const server = await startServer();
//   const browser = await launchBrowser();
//   const page = await browser.newPage();
//   const log = collectConsole(page);
//   await page.goto(`${server.url}${BLANK_PAGE}`);
//   const value = await runInPage(page, async (arg) => { ... }, arg, { log });
//   await browser.close(); await server.close();
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import puppeteer from 'puppeteer-core';

import { handleHoldRoutes } from '../cases/http-routes.mjs';
import { CONTENT_TYPES, inside, send } from '../../tools/serve.mjs';

/** The repository root, which the server serves. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Path (from the server's root) of the page the suites navigate to. */
export const BLANK_PAGE = '/tests/browser/pages/blank.html';

/**
 * The browsers the suites can drive, as Debian installs them (nothing is
 * downloaded): the name tests print, the executable, and how to launch it.
 * @typedef {'chromium' | 'firefox'} BrowserId
 */
export const BROWSERS = Object.freeze({
  chromium: Object.freeze({
    name: 'Chromium',
    executablePath: '/usr/bin/chromium',
    /** Command-line switches for Chromium in this environment. */
    args: Object.freeze([
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ]),
  }),
  firefox: Object.freeze({
    name: 'Firefox',
    executablePath: '/usr/bin/firefox-esr',
    args: Object.freeze([]),
  }),
});

/** The browser this process tests: SNAIL_BROWSER, else Chromium. */
export const BROWSER = /** @type {BrowserId} */ (process.env.SNAIL_BROWSER ?? 'chromium');
if (!(BROWSER in BROWSERS)) {
  throw new Error(`SNAIL_BROWSER=${BROWSER}: the browsers are ${Object.keys(BROWSERS).join(', ')}`);
}

/** The name of the browser under test, for test names ("Chromium", "Firefox"). */
export const BROWSER_NAME = BROWSERS[BROWSER].name;

/** The Chromium the suites drive (Debian's package). */
export const CHROMIUM = BROWSERS.chromium.executablePath;

/** Command-line switches for Chromium in this environment. */
export const CHROMIUM_ARGS = BROWSERS.chromium.args;

/**
 * Starts a read-only static file server for the repository root on 127.0.0.1
 * with an ephemeral port. GET and HEAD only; paths that leave the root (`..`,
 * encoded or not, or a symlink pointing outside) get 403; missing files and
 * directories get 404.
 * `pageHeaders` are sent with every HTML page besides the usual ones (a
 * Content-Security-Policy that only a header can give, for one).
 * @param {{ root?: string, pageHeaders?: Record<string, string> }} [options]
 * @returns {Promise<{ url: string, port: number, requests: { method: string, path: string, status: number }[], close: () => Promise<void> }>}
 */
export async function startServer(options = {}) {
  const base = await fsp.realpath(options.root ?? root);
  /** Requests served, for diagnostics. */
  const requests = [];

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) send(res, 500, `internal error: ${error?.message ?? error}\n`);
      else res.destroy();
    });
  });

  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
  async function handle(req, res) {
    const record = (status) => requests.push({ method: req.method ?? '', path: req.url ?? '', status });
    // The fetch adapter cases' routes (/hold, /release) before the static files.
    if (handleHoldRoutes(req, res)) {
      record(200);
      return undefined;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      record(405);
      return send(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
    }
    const resolved = await resolvePath(base, req.url ?? '/');
    if (resolved.status !== 200) {
      record(resolved.status);
      return send(res, resolved.status, `${resolved.reason}\n`);
    }
    const type = CONTENT_TYPES[path.extname(resolved.file).toLowerCase()] ?? 'application/octet-stream';
    record(200);
    res.writeHead(200, {
      'content-type': type,
      'content-length': resolved.size,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...(type.startsWith('text/html') ? options.pageHeaders : undefined),
    });
    if (req.method === 'HEAD') return res.end();
    const stream = fs.createReadStream(resolved.file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(undefined);
    });
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    async close() {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * Maps a request target to a regular file under `base`.
 * @param {string} base  a real (symlink-free) absolute directory
 * @param {string} target  the request target, e.g. "/host/browser/index.mjs?x=1"
 * @returns {Promise<{ status: 200, file: string, size: number } | { status: number, reason: string }>}
 */
async function resolvePath(base, target) {
  const rawPath = target.split(/[?#]/, 1)[0];
  let decoded;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return { status: 400, reason: 'bad request: malformed percent-encoding' };
  }
  if (decoded.includes('\0')) return { status: 400, reason: 'bad request: NUL in path' };
  if (!decoded.startsWith('/')) return { status: 400, reason: 'bad request: path must start with /' };
  // Refuse any `..` segment outright (after decoding, and with either slash),
  // rather than relying on normalisation alone.
  if (decoded.split(/[\\/]/).includes('..')) return { status: 403, reason: 'forbidden: path leaves the root' };
  const candidate = path.resolve(base, `.${decoded}`);
  if (!inside(base, candidate)) return { status: 403, reason: 'forbidden: path leaves the root' };
  let real;
  try {
    real = await fsp.realpath(candidate);
  } catch {
    return { status: 404, reason: 'not found' };
  }
  if (!inside(base, real)) return { status: 403, reason: 'forbidden: path leaves the root' };
  const stat = await fsp.stat(real).catch(() => null);
  if (!stat || !stat.isFile()) return { status: 404, reason: 'not found' };
  return { status: 200, file: real, size: stat.size };
}

/**
 * @typedef {import('puppeteer-core').Page} Page
 * @typedef {object} LaunchedBrowser
 * @property {BrowserId} id
 * @property {string} name  "Chromium" or "Firefox"
 * @property {string} version  as the browser reports it ("Chrome/156.0...", "firefox/153.8.0")
 * @property {string} userDataDir  the temporary profile
 * @property {import('puppeteer-core').Browser} browser
 * @property {() => Promise<Page>} newPage
 * @property {() => Promise<void>} close  closes the browser and removes the profile
 */

/**
 * Launches the browser under test headless, with a fresh temporary profile,
 * which close() removes.
 * @param {{ browser?: BrowserId, args?: string[], prefs?: Record<string, unknown>, executablePath?: string, protocolTimeout?: number }} [options]
 *   another browser than SNAIL_BROWSER's; extra switches (Chromium) or preferences (Firefox); how long
 *   one call into the browser (a page function) may take, in milliseconds (default 180,000)
 * @returns {Promise<LaunchedBrowser>}
 */
export async function launchBrowser(options = {}) {
  const id = options.browser ?? BROWSER;
  const spec = BROWSERS[id];
  const executablePath = options.executablePath ?? spec.executablePath;
  const userDataDir = await fsp.mkdtemp(path.join(os.tmpdir(), `snail-core-${id}-`));
  /** @type {import('puppeteer-core').Browser} */
  let browser;
  try {
    browser = await puppeteer.launch(id === 'firefox' ? {
      browser: 'firefox',
      protocol: 'webDriverBiDi',
      executablePath,
      headless: true,
      userDataDir,
      args: [...spec.args, ...(options.args ?? [])],
      extraPrefsFirefox: options.prefs,
      timeout: 90_000,
      protocolTimeout: options.protocolTimeout,
    } : {
      executablePath,
      headless: true,
      userDataDir,
      args: [...spec.args, ...(options.args ?? [])],
      timeout: 60_000,
      protocolTimeout: options.protocolTimeout,
    });
  } catch (error) {
    await fsp.rm(userDataDir, { recursive: true, force: true });
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot launch ${spec.name} (${executablePath}): ${why}`, { cause: error });
  }
  const version = await browser.version();
  // The browser opens with one blank tab; it is not used.
  for (const page of await browser.pages()) await page.close().catch(() => {});
  let closed = false;
  return {
    id,
    name: spec.name,
    version,
    userDataDir,
    browser,
    newPage: () => browser.newPage(),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await browser.close();
      } finally {
        await fsp.rm(userDataDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
      }
    },
  };
}

/**
 * @typedef {object} ConsoleLog
 * @property {{ type: string, text: string, location: string }[]} messages  console messages, in order
 * @property {{ name: string, message: string, stack: string }[]} pageErrors  uncaught exceptions and rejections
 * @property {string[]} failedRequests  requests that failed or answered 4xx/5xx
 * @property {() => { type: string, text: string, location: string }[]} errors  console messages of type error
 * @property {() => boolean} hasErrors  true if there were page errors or console errors
 * @property {() => string} format  everything recorded, as text for an assertion message
 */

/**
 * Records a page's console messages, uncaught errors and failed requests so
 * that a failing test can print them.
 * @param {Page} page
 * @returns {ConsoleLog}
 */
export function collectConsole(page) {
  /** @type {ConsoleLog['messages']} */
  const messages = [];
  /** @type {ConsoleLog['pageErrors']} */
  const pageErrors = [];
  /** @type {string[]} */
  const failedRequests = [];
  let crashed = false;
  page.on('console', (msg) => {
    const loc = msg.location();
    const location = loc?.url ? `${loc.url}:${(loc.lineNumber ?? 0) + 1}:${(loc.columnNumber ?? 0) + 1}` : '';
    messages.push({ type: msg.type(), text: msg.text(), location });
  });
  page.on('pageerror', (error) => {
    const e = error instanceof Error ? error : new Error(String(error));
    pageErrors.push({ name: e.name, message: e.message, stack: e.stack ?? '' });
  });
  page.on('requestfailed', (request) => {
    failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText ?? 'failed'}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) failedRequests.push(`${response.request().method()} ${response.url()}: HTTP ${response.status()}`);
  });
  // Puppeteer's 'error' is the page crashing.
  page.on('error', () => { crashed = true; });
  const errors = () => messages.filter((m) => m.type === 'error');
  return {
    messages,
    pageErrors,
    failedRequests,
    errors,
    hasErrors: () => crashed || pageErrors.length > 0 || errors().length > 0,
    format() {
      const lines = [];
      if (crashed) lines.push('the page crashed');
      for (const e of pageErrors) lines.push(`[pageerror] ${e.stack || `${e.name}: ${e.message}`}`);
      for (const m of messages) lines.push(`[console.${m.type}] ${m.text}${m.location ? ` (${m.location})` : ''}`);
      for (const r of failedRequests) lines.push(`[request] ${r}`);
      return lines.length ? lines.join('\n') : '(the page logged nothing)';
    },
  };
}

/** An exception thrown in the page, carried back to Node with its details. */
export class PageError extends Error {
  /**
   * @param {string} message
   * @param {{ name?: string, message?: string, stack?: string, code?: unknown, causes?: string[] }} remote
   */
  constructor(message, remote) {
    super(message);
    this.name = 'PageError';
    /** What the page threw: name, message, stack, code and causes. */
    this.remote = remote;
  }
}

/**
 * Runs `fn(arg)` in the page and returns its (awaited) result. `fn` must be a
 * self-contained function expression (arrow or `function`): it is sent as
 * source text, so it cannot close over Node variables; pass data through
 * `arg` (structured like JSON). If the page throws, the error thrown here is a
 * PageError whose message has the page's error name, message, code, cause
 * chain and stack, followed by everything `log` recorded.
 * @template T
 * @param {Page} page
 * @param {(arg: any) => T | Promise<T>} fn
 * @param {unknown} [arg]
 * @param {{ log?: ConsoleLog, timeoutMs?: number, what?: string }} [options]
 * @returns {Promise<Awaited<T>>}
 */
export async function runInPage(page, fn, arg, options = {}) {
  const { log, timeoutMs = 30_000, what = 'the page function' } = options;
  const source = fn.toString();
  const evaluation = page.evaluate(async (/** @type {{ source: string, arg: unknown }} */ { source, arg }) => {
    /** @param {unknown} e */
    const describe = (e) => {
      if (e instanceof Error) {
        const causes = [];
        let c = /** @type {any} */ (e).cause;
        for (let depth = 0; c !== undefined && depth < 8; depth++) {
          causes.push(c instanceof Error ? `${c.name}: ${c.message}` : String(c));
          c = c instanceof Error ? /** @type {any} */ (c).cause : undefined;
        }
        const code = /** @type {any} */ (e).code;
        return { name: e.name, message: e.message, stack: e.stack ?? '', code: code === undefined ? undefined : String(code), causes };
      }
      return { name: typeof e, message: String(e), stack: '', causes: [] };
    };
    let fn;
    try {
      fn = (0, eval)(`(${source})`);
    } catch (e) {
      return { ok: false, error: { ...describe(e), message: `the page function does not compile: ${describe(e).message}` } };
    }
    try {
      return { ok: true, value: await fn(arg) };
    } catch (e) {
      return { ok: false, error: describe(e) };
    }
  }, { source, arg });

  // If the timeout wins, the evaluation may still reject later (page closed).
  evaluation.catch(() => {});
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${timeoutMs} ms`)), timeoutMs);
  });
  let outcome;
  try {
    outcome = await Promise.race([evaluation, timeout]);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new PageError(`${what} failed: ${why}${log ? `\n--- page log ---\n${log.format()}` : ''}`, { message: why });
  } finally {
    clearTimeout(timer);
  }
  if (outcome.ok) return outcome.value;
  const e = outcome.error;
  const lines = [`${what} threw ${e.name}${e.code ? ` [${e.code}]` : ''}: ${e.message}`];
  for (const c of e.causes ?? []) lines.push(`  caused by ${c}`);
  if (e.stack) lines.push('--- page stack ---', e.stack);
  if (log) lines.push('--- page log ---', log.format());
  throw new PageError(lines.join('\n'), e);
}

/**
 * Waits until `fn(arg)` returns a truthy value in the page, polled every
 * animation frame (a page that never gets there fails at `timeout`).
 * @param {Page} page @param {(arg: any) => unknown} fn @param {unknown} [arg]
 * @param {{ timeout?: number }} [options]
 */
export async function waitInPage(page, fn, arg, options = {}) {
  await page.waitForFunction(fn, { timeout: options.timeout ?? 30_000 }, arg);
}

/** The text of the first element `selector` finds (null if none). @param {Page} page @param {string} selector */
export function textOf(page, selector) {
  return page.evaluate((sel) => document.querySelector(sel)?.textContent ?? null, selector);
}

/** Whether the element `selector` finds is disabled. @param {Page} page @param {string} selector */
export function isDisabled(page, selector) {
  return page.$eval(selector, (e) => /** @type {HTMLButtonElement} */ (e).disabled === true);
}

/**
 * Opens a new page on the blank test page and starts recording its console.
 * @param {{ newPage: () => Promise<Page> }} browser
 * @param {string} serverUrl
 * @returns {Promise<{ page: Page, log: ConsoleLog }>}
 */
export async function openBlankPage(browser, serverUrl) {
  const page = await browser.newPage();
  const log = collectConsole(page);
  const response = await page.goto(`${serverUrl}${BLANK_PAGE}`);
  if (!response || !response.ok()) {
    throw new Error(`cannot open ${serverUrl}${BLANK_PAGE}: HTTP ${response?.status() ?? 'no response'}\n${log.format()}`);
  }
  return { page, log };
}

/**
 * Starts the server and the browser under test before the file's tests and
 * stops them after: the lifecycle every browser suite shares. Returns an
 * object whose `server` and `browser` are set once `before` ran.
 * @param {{ before: Function, after: Function }} hooks  node:test's before and after
 */
export function useBrowser({ before, after }) {
  /** @type {{ server: Awaited<ReturnType<typeof startServer>>, browser: LaunchedBrowser }} */
  const env = /** @type {any} */ ({});
  before(async () => {
    env.server = await startServer();
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}
