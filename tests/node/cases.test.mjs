// Runs every contract case (tests/cases/) under Node 26. The same cases run in
// Chromium through tests/browser/cases.test.mjs.
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { handleHoldRoutes } from '../cases/http-routes.mjs';
import { suites } from '../cases/index.mjs';
import { nodeContext } from './helpers.mjs';

/** @type {http.Server} */
let server;

before(async () => {
  server = http.createServer((req, res) => {
    if (!handleHoldRoutes(req, res)) {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  nodeContext.httpBase = `http://127.0.0.1:${address.port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

for (const [suite, cases] of Object.entries(suites)) {
  describe(suite, () => {
    for (const c of cases) test(c.name, () => c.run(nodeContext));
  });
}
