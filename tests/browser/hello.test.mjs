// examples/hello in a real browser (Chromium or Firefox): the same program, loaded by URL, from bytes
// and from a Response, prints the same lines in the same order.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { BROWSER_NAME, openBlankPage, runInPage, useBrowser } from './harness.mjs';

/** What examples/hello/hello.cpp prints, in its deterministic order. */
const HELLO_LINES = [
  '[root] hello from the root task',
  '[child b, rebound] child b bound its own printer',
  '[child b, rebound] child b still has it after a yield',
  "[root] child a woke up after 5 ms and still has the root's printer",
  '[root] children returned 1 and 2',
];

const HELLO_PATH = '/build/programs/hello.wasm';

const env = useBrowser({ before, after });

/**
 * Runs hello in a fresh blank page. `how` chooses the source given to
 * Runtime.load: 'url' (a root-relative URL string), 'bytes' (an ArrayBuffer
 * fetched in the page) or 'response' (the fetch Response itself).
 * Counts calls of WebAssembly.compile and compileStreaming to show which
 * compilation path the runtime took.
 * @param {import('node:test').TestContext} t
 * @param {'url' | 'bytes' | 'response'} how
 */
async function runHello(t, how) {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const result = await runInPage(page, async ({ how, path }) => {
    const jspi = {
      Suspending: typeof WebAssembly.Suspending === 'function',
      promising: typeof WebAssembly.promising === 'function',
    };
    if (!jspi.Suspending) return { jspi };

    const calls = { compile: 0, compileStreaming: 0 };
    const { compile, compileStreaming } = WebAssembly;
    WebAssembly.compile = function (...a) { calls.compile++; return compile.apply(this, a); };
    WebAssembly.compileStreaming = function (...a) { calls.compileStreaming++; return compileStreaming.apply(this, a); };
    try {
      const snail = await import('/host/browser/index.mjs');
      let source;
      let contentType = null;
      if (how === 'url') {
        source = path;
      } else {
        const response = await fetch(path);
        if (!response.ok) throw new Error(`fetch ${path}: HTTP ${response.status}`);
        contentType = response.headers.get('content-type');
        source = how === 'bytes' ? await response.arrayBuffer() : response;
      }

      const chunks = [];
      const errChunks = [];
      const rt = await snail.Runtime.load(source, {
        stdout: (text) => { chunks.push(text); },
        stderr: (text) => { errChunks.push(text); },
      });
      const task = rt.dispatch('main');
      await rt.drain();
      const value = await task.result;
      const stats = rt.stats();
      const closed = await rt.close();
      return {
        jspi,
        hasJspi: snail.hasJspi,
        contentType,
        name: rt.name,
        entries: [...rt.entries],
        chunkTypes: [...new Set(chunks.map((c) => typeof c))],
        stdout: chunks.join(''),
        stderr: errChunks.join(''),
        state: task.state,
        value: task.value,
        resultValue: value,
        stats,
        closed,
        calls,
        baseURI: document.baseURI,
      };
    } finally {
      WebAssembly.compile = compile;
      WebAssembly.compileStreaming = compileStreaming;
    }
  }, { how, path: HELLO_PATH }, { log, what: `hello (${how})` });

  /** Appends the page's log to an assertion message. */
  const why = (message) => `${message}\n--- page log ---\n${log.format()}\n--- result ---\n${JSON.stringify(result, null, 2)}`;

  assert.equal(result.jspi.Suspending, true, why(`${BROWSER_NAME} has no WebAssembly.Suspending (JSPI)`));
  assert.equal(result.jspi.promising, true, why(`${BROWSER_NAME} has no WebAssembly.promising (JSPI)`));
  assert.equal(result.hasJspi, true, why('the runtime does not detect JSPI'));
  assert.deepEqual(result.chunkTypes, ['string'], why('the stdout sink receives decoded text'));
  assert.ok(result.stdout.endsWith('\n'), why('the output ends with a newline'));
  const lines = result.stdout.replace(/\n$/, '').split('\n');
  assert.deepEqual(lines, HELLO_LINES, why(`hello printed the expected lines in order\n--- expected ---\n${HELLO_LINES.join('\n')}\n--- actual ---\n${lines.join('\n')}`));
  assert.equal(result.stderr, '', why('hello writes nothing to stderr'));
  assert.equal(result.state, 'returned', why('the main task returned'));
  assert.equal(result.value, 0, why('main returned 0'));
  assert.equal(result.resultValue, 0, why('task.result fulfilled with 0'));
  assert.equal(result.stats.live, 0, why('nothing is live after drain()'));
  assert.equal(result.stats.returned, 3, why('the root and its two children returned'));
  assert.equal(result.stats.failed, 0, why('no task failed'));
  assert.equal(result.stats.cancelled, 0, why('no task was cancelled'));
  assert.deepEqual(result.closed.stuck, [], why('close() found nothing stuck'));
  assert.deepEqual(result.closed.cancelled, [], why('close() had nothing live to cancel'));
  assert.equal(result.closed.handlesReleased, 0, why('the program released every handle it held'));
  assert.ok(result.entries.includes('main'), why('the program has the entry main'));
  assert.equal(log.hasErrors(), false, why('the page logged no errors'));
  assert.deepEqual(log.failedRequests, [], why('no request failed'));
  return result;
}

test(`hello by URL prints its lines in ${BROWSER_NAME}`, async (t) => {
  const r = await runHello(t, 'url');
  assert.equal(r.name, `${env.server.url}${HELLO_PATH}`, 'a URL source is resolved against the page base URL and names the program');
  assert.equal(r.calls.compileStreaming, 1, 'a URL served as application/wasm compiles by streaming');
  assert.equal(r.calls.compile, 0);
});

test('hello from bytes fetched in the page prints the same lines', async (t) => {
  const r = await runHello(t, 'bytes');
  assert.equal(r.name, 'the program');
  assert.equal(r.calls.compile, 1, 'bytes compile with WebAssembly.compile');
  assert.equal(r.calls.compileStreaming, 0);
});

test('hello from an application/wasm Response compiles by streaming and prints the same lines', async (t) => {
  const r = await runHello(t, 'response');
  assert.match(r.contentType ?? '', /^application\/wasm\b/, 'the server sends application/wasm');
  assert.equal(r.name, `${env.server.url}${HELLO_PATH}`, 'a Response names the program by its URL');
  assert.equal(r.calls.compileStreaming, 1, 'a Response with application/wasm takes the streaming path');
  assert.equal(r.calls.compile, 0);
});
