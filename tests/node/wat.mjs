// Assembles WebAssembly text in tests (npm package wabt).
import wabtInit from 'wabt';

const wabt = await wabtInit();
const features = { reference_types: true, bulk_memory: true, mutable_globals: true, multi_value: true };

/**
 * @param {string} text @param {Record<string, boolean>} [extra]  further features (exceptions)
 * @returns {Uint8Array}
 */
export function wat(text, extra = {}) {
  const enabled = { ...features, ...extra };
  const mod = wabt.parseWat('test.wat', text, enabled);
  try {
    mod.resolveNames();
    mod.validate(enabled);
    return new Uint8Array(mod.toBinary({ log: false }).buffer);
  } finally {
    mod.destroy();
  }
}
