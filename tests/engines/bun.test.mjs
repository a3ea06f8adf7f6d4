// Everything that runs under Bun (npm package bun, JavaScriptCore): see
// host-suites.mjs. JavaScriptCore cannot suspend under a tail call into
// another instance, so the probe makes the stubs call their wrappers plainly.
import * as nodeTest from 'node:test';

import { engineSuites } from './host-suites.mjs';

engineSuites(nodeTest, 'bun', { tailCall: false, tailCallFailure: /JSPI stack scan failed: unrecognized type of Wasm frame/ });
