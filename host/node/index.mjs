// snail-core/node: the runtime plus what only Node has. Node adapters (files,
// durable storage, signals, permissions) are added here; today it re-exports
// the environment-neutral runtime and the process keep-alive token.
export * from '../browser/index.mjs';
export { processKeepAlive } from '../browser/capabilities.mjs';
