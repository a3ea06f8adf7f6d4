// HTTP routes the fetch adapter cases use, served by the Node runner's server
// and by the browser harness's server (Node only: it answers requests).
//   GET /hold?id=X     answers only after /release?id=X (or when the client leaves)
//   GET /release?id=X  releases the held request X; answers "released"
//   GET /echo?text=T&code=C  answers T with status C (default 200)
//   GET /redirect?to=URL     answers 302 with Location URL
//   GET /mark?id=X           records X; answers "marked"
//   GET /marked?id=X         answers "yes" if X was recorded, else "no"

/** @type {Map<string, import('node:http').ServerResponse>} */
const held = new Map();
/** @type {Set<string>} */
const early = new Set();
/** @type {Set<string>} */
const marks = new Set();

/**
 * Answers the request if it is one of these routes; returns false otherwise.
 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
 */
export function handleHoldRoutes(req, res) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const id = url.searchParams.get('id') ?? '';
  const headers = { 'content-type': 'text/plain', 'cache-control': 'no-store', 'access-control-allow-origin': '*' };
  if (url.pathname === '/hold') {
    if (early.delete(id)) {
      res.writeHead(200, headers);
      res.end(`released ${id}`);
      return true;
    }
    held.set(id, res);
    res.on('close', () => { if (held.get(id) === res) held.delete(id); });
    return true;
  }
  if (url.pathname === '/redirect') {
    res.writeHead(302, { ...headers, location: url.searchParams.get('to') ?? '/' });
    res.end();
    return true;
  }
  if (url.pathname === '/mark' || url.pathname === '/marked') {
    if (url.pathname === '/mark') marks.add(id);
    res.writeHead(200, headers);
    res.end(url.pathname === '/mark' ? 'marked' : marks.has(id) ? 'yes' : 'no');
    return true;
  }
  if (url.pathname === '/echo') {
    res.writeHead(Number(url.searchParams.get('code') ?? 200), headers);
    res.end(url.searchParams.get('text') ?? '');
    return true;
  }
  if (url.pathname === '/release') {
    const waiting = held.get(id);
    if (waiting) {
      held.delete(id);
      waiting.writeHead(200, headers);
      waiting.end(`released ${id}`);
    } else {
      early.add(id);
    }
    res.writeHead(200, headers);
    res.end('ok');
    return true;
  }
  return false;
}

/** Requests the server holds right now. */
export function heldRequests() {
  return held.size;
}
