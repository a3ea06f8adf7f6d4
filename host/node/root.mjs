// The package root under Node, Deno and Bun (the "node" condition of
// package.json's "." export): the environment-neutral runtime with the Node
// platform installed, so that `Runtime.load('app.wasm')` reads the file, the
// bounds on entered tasks come from vm.max_map_count, and the process stays
// alive while tasks are live. It exports exactly what host/browser/index.mjs
// exports.
import { installNodePlatform } from './platform.mjs';

export * from '../browser/index.mjs';

installNodePlatform();
