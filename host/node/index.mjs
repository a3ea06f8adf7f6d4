// snail-core/node: the runtime plus what only Node has: the process keep-alive
// token, and the Node host (docs/node.md): files confined to granted
// directories, durable storage in a directory, process signals and standard
// input as waits, and nodeHost(), which turns grants into Runtime.load options.
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
 */
