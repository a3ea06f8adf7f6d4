// Every contract case, by suite. The node:test runner (tests/node/cases.test.mjs)
// and the Chromium runner (tests/browser/cases.test.mjs) both run this list.
import { cases as adapters } from './adapters.cases.mjs';
import { cases as browserHost } from './browser-host.cases.mjs';
import { cases as cancellation } from './cancellation.cases.mjs';
import { cases as cleanup } from './cleanup.cases.mjs';
import { cases as contracts } from './contracts.cases.mjs';
import { cases as features } from './features.cases.mjs';
import { cases as lending } from './lending.cases.mjs';
import { cases as modules } from './modules.cases.mjs';
import { cases as services } from './services.cases.mjs';
import { cases as specCancellation } from './spec-cancellation.cases.mjs';
import { cases as specScheduling } from './spec-scheduling.cases.mjs';

/** @type {Record<string, import('./support.mjs').Case[]>} */
export const suites = { contracts, lending, cancellation, cleanup, adapters, services, browserHost, modules, features, specScheduling, specCancellation };
