// What the post-link steps look up in a Binaryen module by name.

/** The internal names of a module's globals. @param {any} mod a binaryen Module @param {any} binaryen */
export function globalNames(mod, binaryen) {
  const names = [];
  for (let i = 0; i < mod.getNumGlobals(); i++) names.push(binaryen.getGlobalInfo(mod.getGlobalByIndex(i)).name);
  return names;
}

/**
 * A module's exports by export name.
 * @param {any} mod a binaryen Module @param {any} binaryen
 * @returns {Map<string, { name: string, kind: number, value: string }>}
 */
export function exportsByName(mod, binaryen) {
  const map = new Map();
  for (let i = 0; i < mod.getNumExports(); i++) {
    const e = binaryen.getExportInfo(mod.getExportByIndex(i));
    map.set(e.name, e);
  }
  return map;
}
