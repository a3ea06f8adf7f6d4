#!/usr/bin/env node
// A small static file server for the repository, so that pages such as the
// live task view (examples/browser/) load the runtime as ES modules and the
// programs as application/wasm (which streaming compilation needs).
//
//   node tools/serve.mjs [--port N] [--host ADDRESS] [--root DIR] [--open PATH]
//
// It prints the URL to open. GET and HEAD only; nothing outside the root is
// served. `npm run serve` builds the programs first.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Content types by file extension; everything else is application/octet-stream. */
export const CONTENT_TYPES = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
});

/**
 * Serves the files under `root` (default: the repository). A directory answers
 * with its index.html, after a redirect to the path with a trailing slash so
 * that the page's relative URLs resolve inside it.
 * @param {{ root?: string, port?: number, host?: string }} [options]
 * @returns {Promise<{ url: string, port: number, close: () => Promise<void> }>}
 */
export async function serve(options = {}) {
  const base = await fsp.realpath(options.root ?? repository);
  const server = http.createServer((req, res) => {
    answer(base, req, res).catch((error) => {
      if (!res.headersSent) send(res, 500, `internal error: ${error instanceof Error ? error.message : error}\n`);
      else res.destroy();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve(undefined);
    });
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * @param {string} base @param {http.IncomingMessage} req @param {http.ServerResponse} res
 */
async function answer(base, req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
  const target = (req.url ?? '/').split(/[?#]/, 1)[0];
  let decoded;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    return send(res, 400, 'bad request: malformed percent-encoding\n');
  }
  if (!decoded.startsWith('/') || decoded.includes('\0')) return send(res, 400, 'bad request\n');
  // Refuse any `..` segment outright rather than trusting normalisation.
  if (decoded.split(/[\\/]/).includes('..')) return send(res, 403, 'forbidden: the path leaves the root\n');
  let file = path.resolve(base, `.${decoded}`);
  let real;
  try {
    real = await fsp.realpath(file);
  } catch {
    return send(res, 404, 'not found\n');
  }
  if (!inside(base, real)) return send(res, 403, 'forbidden: the path leaves the root\n');
  let stat = await fsp.stat(real);
  if (stat.isDirectory()) {
    if (!decoded.endsWith('/')) return send(res, 301, 'moved\n', { location: `${target}/` });
    file = path.join(real, 'index.html');
    real = await fsp.realpath(file).catch(() => '');
    if (!real || !inside(base, real)) return send(res, 404, 'not found\n');
    stat = await fsp.stat(real);
  }
  if (!stat.isFile()) return send(res, 404, 'not found\n');
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[/** @type {keyof typeof CONTENT_TYPES} */ (path.extname(real).toLowerCase())] ?? 'application/octet-stream',
    'content-length': stat.size,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  if (req.method === 'HEAD') return res.end();
  const stream = fs.createReadStream(real);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
  return undefined;
}

/** Whether `p` is `base` or lies under it. @param {string} base @param {string} p */
export function inside(base, p) {
  const rel = path.relative(base, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Answers with a text body. @param {http.ServerResponse} res @param {number} status @param {string} body @param {Record<string, string>} [headers] */
export function send(res, status, body, headers = {}) {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      root: { type: 'string' },
      open: { type: 'string', default: '/examples/browser/' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write('usage: node tools/serve.mjs [--port N (8080; 0 picks one)] [--host ADDRESS] [--root DIR] [--open PATH]\n');
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`serve: --port must be a port number, got ${values.port}\n`);
    process.exit(2);
  }
  let server;
  try {
    server = await serve({ root: values.root, port, host: values.host });
  } catch (error) {
    const code = /** @type {any} */ (error)?.code;
    const why = code === 'EADDRINUSE' ? `port ${port} is in use; try --port 0` : (error instanceof Error ? error.message : String(error));
    process.stderr.write(`serve: ${why}\n`);
    process.exit(1);
  }
  if (!values.root && !fs.existsSync(path.join(repository, 'build/programs/taskview.wasm'))) {
    process.stderr.write('serve: build/programs/taskview.wasm is missing; run `npm run build` (npm run serve does)\n');
  }
  process.stdout.write(`snail-core: serving ${values.root ?? repository}\nopen ${server.url}${values.open}\n`);
  const stop = () => { server.close().then(() => process.exit(0)); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
