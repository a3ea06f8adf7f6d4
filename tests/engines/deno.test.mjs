// Everything that runs under Deno (npm package deno, V8): see host-suites.mjs.
import * as nodeTest from 'node:test';

import { engineSuites } from './host-suites.mjs';

engineSuites(nodeTest, 'deno', { tailCall: true });
