// Where a module loaded into the running program comes from (internal): the
// source a task's snail.module_load(name) resolves to, and the name
// rt.loadModule() gives a source it is not told a name for.
import { SnailError } from './errors.mjs';

/**
 * The name a module source is loaded under by default.
 * @param {unknown} source
 */
export function sourceName(source) {
  if (typeof source === 'string') return source;
  if (source instanceof URL) return source.href;
  const g = /** @type {any} */ (globalThis);
  if (typeof g.Response === 'function' && source instanceof g.Response && /** @type {any} */ (source).url) return /** @type {any} */ (source).url;
  throw new SnailError('loadModule(): give a name ({ name }) to a module loaded from bytes, a Response or a WebAssembly.Module', { code: 'ERR_ARG' });
}

/**
 * How a task's snail.module_load(name) finds a module: the `modules` option (a
 * function, or a record of name to source), else a file or URL beside the
 * program, with ".wasm" added to a name without an extension.
 * @param {import('./options.mjs').RuntimeOptions['modules']} option @param {unknown} programSource
 */
export function moduleResolver(option, programSource) {
  if (typeof option === 'function') return option;
  if (option && typeof option === 'object') return (/** @type {string} */ name) => /** @type {any} */ (option)[name];
  return (/** @type {string} */ name) => {
    if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) {
      throw new Error(`"${name}" is not a plain module name (letters, digits, '.', '_' and '-'); pass the modules option to load others`);
    }
    const file = /\.\w+$/.test(name) ? name : `${name}.wasm`;
    if (typeof programSource === 'string' || programSource instanceof URL) {
      const base = programSource instanceof URL ? programSource.href : programSource;
      if (/^[a-z][\w+.-]*:/i.test(base)) return new URL(file, base);
      const slash = base.lastIndexOf('/');
      return `${slash >= 0 ? base.slice(0, slash + 1) : ''}${file}`;
    }
    throw new Error('the program was not loaded from a path or URL, so modules have no place beside it; pass the modules option');
  };
}
