// snail-core/node: the runtime plus what only Node has: the process keep-alive
// token, and the Node host (docs/node.md): files confined to granted
// directories, durable storage in a directory, process signals and standard
// input as waits, and nodeHost(), which turns grants into Runtime.load options.
/// <reference lib="dom" preserve="true" />
// The API speaks of WebAssembly, AbortSignal, Response and the page's elements,
// which TypeScript declares in its DOM library: the declarations bring it in,
// so that a Node project without "dom" in its lib compiles.
export * from './root.mjs';
export { processKeepAlive } from './platform.mjs';
export { nodeHost } from './host.mjs';
export { GrantedFiles } from './files.mjs';
export { DirectoryStorage } from './storage.mjs';
export { LineReader } from './stdin.mjs';
export { QueuedSignal, registerSignal } from './signals.mjs';
export { nodeArmed } from './fsutil.mjs';

/**
 * @typedef {import('./host.mjs').NodeHostOptions} NodeHostOptions
 * @typedef {import('./files.mjs').DirGrant} DirGrant
 * @typedef {import('../browser/platform.mjs').KeepAlive} KeepAlive
 */
