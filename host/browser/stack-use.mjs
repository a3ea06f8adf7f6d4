// How much of its stack segment each task uses (internal): the measureStacks
// option of Runtime.load. Off, it costs nothing; on, each segment is painted
// with a pattern before a task first runs on it, and when the task finishes
// its segment is scanned from the bottom for the deepest word that no longer
// holds the pattern: the task's high-water mark. Scanning also repaints what
// the task used, so a segment is painted once in its life, and a start then
// costs nothing.
//
// The mark is what the task wrote. A frame that reserves stack it never
// writes (an uninitialised array) is not in it, though the stack check
// counts it: leave room above the mark (docs/api.md, "Choosing stackSize").

/** A word stack frames rarely hold: the bytes "snl!" repeated. */
const PATTERN = 0x216c6e73;

export class StackMeter {
  /**
   * @param {{ memory: () => WebAssembly.Memory | null, size: number }} options
   *   the program's memory, and the size of every task's segment
   */
  constructor({ memory, size }) {
    this.memory = memory;
    this.size = size;
    /** @type {Set<number>} segments painted all over (by their lowest address) */
    this.painted = new Set();
    /** @type {Map<object, number>} the segment of each task that runs */
    this.segments = new Map();
    /** @type {WeakMap<object, number>} the mark of each task that finished */
    this.marks = new WeakMap();
    /** The highest mark of a task that finished. */
    this.peak = 0;
  }

  /** @param {number} low @returns {Uint32Array | null} */
  words(low) {
    const memory = this.memory();
    if (memory === null || low === 0 || low + this.size > memory.buffer.byteLength) return null;
    // A fresh view each time: growing the memory detaches the old buffer.
    return new Uint32Array(memory.buffer, low, this.size >> 2);
  }

  /**
   * A task is about to run on the segment at `low` (0: it has none).
   * @param {object} task @param {number} low
   */
  started(task, low) {
    const words = this.words(low);
    if (words === null) return;
    if (!this.painted.has(low)) {
      words.fill(PATTERN);
      this.painted.add(low);
    }
    this.segments.set(task, low);
  }

  /**
   * The bytes of its segment a task has written so far, from the top down to
   * the deepest word it changed; null if it has no measured segment.
   * @param {object} task
   */
  used(task) {
    const low = this.segments.get(task);
    if (low === undefined) return this.marks.get(task) ?? null;
    const words = this.words(low);
    return words === null ? null : this.size - 4 * untouched(words);
  }

  /**
   * A task has finished, while its segment is still its own: its mark is
   * recorded, and the part of the segment it used is painted again.
   * @param {object} task
   */
  finished(task) {
    const low = this.segments.get(task);
    if (low === undefined) return;
    this.segments.delete(task);
    const words = this.words(low);
    if (words === null) return;
    const free = untouched(words);
    const mark = this.size - 4 * free;
    words.fill(PATTERN, free);
    this.marks.set(task, mark);
    if (mark > this.peak) this.peak = mark;
  }
}

/** How many words at the bottom of a segment still hold the pattern. @param {Uint32Array} words */
function untouched(words) {
  let i = 0;
  while (i < words.length && words[i] === PATTERN) i++;
  return i;
}
