// The WebAssembly binary reader and writer (internal), in one place for the
// modules that use both: reader.mjs reads module bytes, writer.mjs writes the
// modules the runtime generates.
export * from './reader.mjs';
export * from './writer.mjs';
