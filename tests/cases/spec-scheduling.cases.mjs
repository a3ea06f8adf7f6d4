// Cases written for sentences of the specification (docs/specification.md)
// that no other case proved on its own. They run in Node and in Chromium.

/** @type {import('./support.mjs').Case[]} */
export const cases = [];
