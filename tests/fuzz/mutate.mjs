// Seeded mutation of WebAssembly modules for the fuzzer (tests/fuzz/run.mjs).
//
// Every mutant is a function of its seed: the same seed gives the same bytes.
// The mutations mix byte-level damage (bit flips, insertions, deletions,
// truncation), section-level damage (sizes, order, duplicates, sections
// taken from another module) and changes that keep the module well formed
// but change what it means to the ABI check (a value type, a mutability, a
// name, a custom section such as dylink.0 or snail.abi), so that both the
// parsers and the checks behind them are reached.

/**
 * A seeded generator (splitmix32): `next()` is a 32-bit unsigned integer.
 * @param {number} seed
 */
export function random(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  return {
    next,
    /** An integer in [0, n). @param {number} n */
    below: (n) => (n <= 0 ? 0 : next() % n),
    /** One of `items`. @template T @param {readonly T[]} items @returns {T} */
    pick: (items) => items[next() % items.length],
    /** True with probability 1/n. @param {number} n */
    oneIn: (n) => next() % n === 0,
  };
}

/** The seed of case `index` of a run seeded `seed`. @param {number} seed @param {number} index */
export function caseSeed(seed, index) {
  return random((seed ^ Math.imul(index + 1, 0x27d4eb2d)) >>> 0).next();
}

/**
 * The sections of a module, as far as they can be read: a module too broken
 * to be split gives what came before the damage.
 * @param {Uint8Array} bytes
 * @returns {{ id: number, start: number, body: number, end: number }[]}
 */
export function sections(bytes) {
  const out = [];
  let pos = 8;
  while (pos < bytes.length) {
    const start = pos;
    const id = bytes[pos++];
    let size = 0;
    let shift = 0;
    let byte = 0x80;
    for (let i = 0; i < 5 && (byte & 0x80) && pos < bytes.length; i++) {
      byte = bytes[pos++];
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    if (byte & 0x80 || pos + size > bytes.length) break;
    out.push({ id, start, body: pos, end: pos + size });
    pos += size;
  }
  return out;
}

/** An unsigned LEB128 of `value`. @param {number} value @param {number} [minBytes] */
export function leb(value, minBytes = 1) {
  const out = [];
  let v = value;
  do {
    let byte = v % 128;
    v = Math.floor(v / 128);
    if (v > 0 || out.length + 1 < minBytes) byte |= 0x80;
    out.push(byte);
  } while (v > 0 || out.length < minBytes);
  return out;
}

/** A custom section named `name` with `payload`. @param {string} name @param {number[]} payload */
function customSection(name, payload) {
  const n = [...new TextEncoder().encode(name)];
  const body = [...leb(n.length), ...n, ...payload];
  return [0, ...leb(body.length), ...body];
}

/** Value types, and the bytes that stand for them. */
const VALTYPES = [0x7f, 0x7e, 0x7d, 0x7c, 0x6f, 0x70, 0x7b];
/** Bytes that often mean something at a boundary. */
const INTERESTING = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x40, 0x60, 0x0b, 0x6f, 0x70];
/** Names the ABI gives meaning to: renaming one to another reaches its checks. */
const NAMES = ['snail', 'env', 'memory', 'wasi_snapshot_preview1', 'snail.entry.', 'snail.handler.', 'snail.dispose.',
  '__stack_pointer', '__indirect_function_table', 'snail.alloc', 'snail.stack.acquire', 'snail.stack.release',
  '_initialize', 'sleep', 'dispatch', 'join', 'module_load', 'GOT.mem', 'GOT.func', '__memory_base'];

/**
 * The ways a module is mutated. Each takes the bytes (a copy it may change or
 * replace), the generator and a donor module for splicing, and returns the
 * mutant with the name of what it did.
 * @type {Record<string, (b: Uint8Array, r: ReturnType<typeof random>, donor: Uint8Array) => Uint8Array>}
 */
const MUTATIONS = {
  flipBits(b, r) {
    for (let n = 1 + r.below(8); n > 0; n--) {
      const i = 8 + r.below(Math.max(1, b.length - 8));
      if (i < b.length) b[i] ^= 1 << r.below(8);
    }
    return b;
  },
  interestingByte(b, r) {
    const i = 8 + r.below(Math.max(1, b.length - 8));
    if (i < b.length) b[i] = r.pick(INTERESTING);
    return b;
  },
  insertBytes(b, r) {
    const at = 8 + r.below(Math.max(1, b.length - 7));
    const extra = Array.from({ length: 1 + r.below(16) }, () => (r.oneIn(2) ? r.pick(INTERESTING) : r.below(256)));
    return new Uint8Array([...b.subarray(0, at), ...extra, ...b.subarray(at)]);
  },
  deleteBytes(b, r) {
    const at = 8 + r.below(Math.max(1, b.length - 8));
    const n = 1 + r.below(32);
    return new Uint8Array([...b.subarray(0, at), ...b.subarray(at + n)]);
  },
  truncate(b, r) {
    return b.slice(0, r.below(b.length + 1));
  },
  header(b, r) {
    // The magic number or the version.
    b[r.below(8)] = r.below(256);
    return b;
  },
  sectionSize(b, r) {
    const s = sections(b);
    if (s.length === 0) return b;
    const sec = r.pick(s);
    const size = sec.end - sec.body;
    const wanted = r.pick([0, size - 1, size + 1, size + r.below(1000), 0xffffffff, r.below(2 ** 31)]);
    const sizeBytes = leb(Math.max(0, wanted), r.oneIn(3) ? 5 : 1);
    return new Uint8Array([...b.subarray(0, sec.start + 1), ...sizeBytes, ...b.subarray(sec.body)]);
  },
  dropSection(b, r) {
    const s = sections(b);
    if (s.length === 0) return b;
    const sec = r.pick(s);
    return new Uint8Array([...b.subarray(0, sec.start), ...b.subarray(sec.end)]);
  },
  duplicateSection(b, r) {
    const s = sections(b);
    if (s.length === 0) return b;
    const sec = r.pick(s);
    const at = r.pick(s).end;
    return new Uint8Array([...b.subarray(0, at), ...b.subarray(sec.start, sec.end), ...b.subarray(at)]);
  },
  swapSections(b, r) {
    const s = sections(b);
    if (s.length < 2) return b;
    const i = r.below(s.length - 1);
    const [x, y] = [s[i], s[i + 1]];
    return new Uint8Array([...b.subarray(0, x.start), ...b.subarray(y.start, y.end), ...b.subarray(x.start, x.end), ...b.subarray(y.end)]);
  },
  spliceSection(b, r, donor) {
    const theirs = sections(donor);
    const ours = sections(b);
    if (theirs.length === 0) return b;
    const sec = r.pick(theirs);
    const same = ours.find((o) => o.id === sec.id && sec.id !== 0);
    const piece = donor.subarray(sec.start, sec.end);
    if (same && r.oneIn(2)) return new Uint8Array([...b.subarray(0, same.start), ...piece, ...b.subarray(same.end)]);
    const at = ours.length ? r.pick(ours).end : 8;
    return new Uint8Array([...b.subarray(0, at), ...piece, ...b.subarray(at)]);
  },
  valueType(b, r) {
    // A value type in the type, import or global section: the module stays
    // well formed more often than not, with other signatures.
    const s = sections(b).filter((x) => x.id === 1 || x.id === 2 || x.id === 6);
    if (s.length === 0) return b;
    const sec = r.pick(s);
    const spots = [];
    for (let i = sec.body; i < sec.end; i++) if (VALTYPES.includes(b[i])) spots.push(i);
    if (spots.length === 0) return b;
    b[r.pick(spots)] = r.pick(VALTYPES);
    return b;
  },
  mutability(b, r) {
    // A global's mutability byte follows its value type.
    const s = sections(b).filter((x) => x.id === 2 || x.id === 6);
    if (s.length === 0) return b;
    const sec = r.pick(s);
    const spots = [];
    for (let i = sec.body; i + 1 < sec.end; i++) if (VALTYPES.includes(b[i]) && (b[i + 1] === 0 || b[i + 1] === 1)) spots.push(i + 1);
    if (spots.length === 0) return b;
    const i = r.pick(spots);
    b[i] ^= 1;
    return b;
  },
  rename(b, r) {
    // One of the names the ABI knows, wherever it occurs, becomes another
    // of the same length or has one character changed: lengths stay.
    const text = new TextDecoder('latin1').decode(b);
    const found = NAMES.flatMap((name) => {
      const at = [];
      for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) at.push({ name, i });
      return at;
    });
    if (found.length === 0) return MUTATIONS.flipBits(b, r, b);
    const { name, i } = r.pick(found);
    const same = NAMES.filter((n) => n.length === name.length && n !== name);
    if (same.length && r.oneIn(2)) {
      b.set(new TextEncoder().encode(r.pick(same)), i);
    } else {
      b[i + r.below(name.length)] = r.pick([0x2e, 0x5f, 0x00, 0xff, 0x41 + r.below(26), 0x61 + r.below(26)]);
    }
    return b;
  },
  customSection(b, r) {
    // A custom section the runtime reads (dylink.0, snail.abi), or one with a
    // broken name, at a random place.
    const kind = r.below(4);
    let piece;
    if (kind === 0) {
      const memInfo = [...leb(r.pick([0, 1, 16, 4096, r.below(2 ** 31)])), ...leb(r.below(40)), ...leb(r.pick([0, 1, 4, r.below(2 ** 20)])), ...leb(r.below(40))];
      const sub = r.oneIn(3)
        ? [2, ...leb(2 + 3), ...leb(1), 3, 0x61, 0x62, 0x63]
        : [1, ...leb(memInfo.length + (r.oneIn(4) ? r.below(5) : 0)), ...memInfo];
      piece = customSection('dylink.0', r.oneIn(5) ? sub.slice(0, r.below(sub.length)) : sub);
    } else if (kind === 1) {
      piece = customSection('snail.abi', [...new TextEncoder().encode(r.pick(['1', '2', '', '01', 'x', '\u00ff']))]);
    } else if (kind === 2) {
      piece = [0, 3, 2, 0xff, 0xfe];
    } else {
      piece = customSection(r.pick(NAMES), Array.from({ length: r.below(20) }, () => r.below(256)));
    }
    const s = sections(b);
    const at = r.oneIn(2) || s.length === 0 ? 8 : r.pick(s).end;
    return new Uint8Array([...b.subarray(0, at), ...piece, ...b.subarray(at)]);
  },
};

export const MUTATION_NAMES = Object.freeze(Object.keys(MUTATIONS));

/**
 * The mutations by weight: those that keep the module well formed come up
 * three times as often, so that a good share of mutants compile and reach the
 * ABI check and the runtime behind it.
 */
const WEIGHTED = MUTATION_NAMES.flatMap((name) => (['valueType', 'mutability', 'rename', 'customSection'].includes(name) ? [name, name, name] : [name]));

/**
 * A mutant of `seed`: one to three mutations in a row (mostly one).
 * @param {Uint8Array} seed @param {Uint8Array} donor @param {ReturnType<typeof random>} r
 * @returns {{ bytes: Uint8Array, mutations: string[] }}
 */
export function mutate(seed, donor, r) {
  let bytes = seed.slice();
  const mutations = [];
  for (let n = r.oneIn(3) ? 2 + r.below(2) : 1; n > 0; n--) {
    const name = r.pick(WEIGHTED);
    bytes = MUTATIONS[name](bytes, r, donor);
    mutations.push(name);
  }
  return { bytes, mutations };
}

/**
 * Whether a mutant may run code of its own that loops: it is a valid module
 * and a section that holds or reaches code (types, imports, functions,
 * tables, globals, start, elements, code) differs from the seed's. Only then
 * is a time-out the program's doing rather than the runtime's.
 * @param {Uint8Array} seed @param {Uint8Array} mutant
 */
export function mayLoop(seed, mutant) {
  if (!WebAssembly.validate(/** @type {BufferSource} */ (mutant))) return false;
  const code = (/** @type {Uint8Array} */ b) => sections(b).filter((s) => [1, 2, 3, 4, 6, 8, 9, 10].includes(s.id))
    .map((s) => Array.from(b.subarray(s.start, s.end)).join(',')).join('|');
  return code(seed) !== code(mutant);
}
