// The words the wait path shares with the suspension wrappers (internal).
//
// They are the first bytes of the memory that also holds the register file's
// slots (wasm/gates.mjs, wasm/registers.mjs), and each slot's wait word is
// there too. Until a program has a suspension module (an engine without what
// the wrappers use, or a program with no wait whose type is known), there are
// none: writes are dropped and reads say 0.
import { CURRENT, LENT, LOSER, OPEN, PARK, TAKEN } from './wasm/gates.mjs';

export class SharedWords {
  constructor() {
    /** @type {Int32Array | null} a view of the memory, again after each growth (which detaches the last) */
    this.i32 = null;
    /** Where slot 0's wait word is, in 32-bit words, and how far apart the slots' are (the register file's layout). */
    this.waitWord = 0;
    this.waitStride = 0;
    /**
     * Whether a take in Wasm may have happened since the JavaScript side last
     * looked: only JavaScript opens the permit, so while it has not opened it
     * since it last saw it closed, TAKEN is 0 without reading the memory
     * (each entry into the runtime asks, and a start makes three of them).
     */
    this.opened = false;
  }

  /** Views the words in `memory` (after the suspension module is made, and after the memory grew). @param {WebAssembly.Memory} memory */
  view(memory) {
    this.i32 = new Int32Array(memory.buffer);
  }

  /**
   * Where the slots' wait words are: the layout of the register file in use
   * (again when it is made anew).
   * @param {{ base: number, stride: number, waitWord: number }} layout
   */
  layout(layout) {
    this.waitWord = (layout.base + layout.waitWord) >> 2;
    this.waitStride = layout.stride >> 2;
  }

  /** The slot of the task whose Wasm runs with the permit; 0 while no task holds it. */
  get current() {
    return this.i32 === null ? 0 : this.i32[CURRENT >> 2];
  }

  /**
   * Records whose Wasm runs with the permit: a wrapper saves into, and
   * installs from, this slot. No task (0): a wrapper called now is refused as
   * outside any task, before it saves anything into a parked task's slot.
   * @param {number} slot
   */
  setCurrent(slot) {
    if (this.i32 !== null) this.i32[CURRENT >> 2] = slot;
  }

  /**
   * Whether the task in `slot` keeps the permit across the wait it is in:
   * its wrapper put its slot in the LENT word as it called the wait, and
   * nothing cleared it since. @param {number} slot
   */
  keeps(slot) {
    return this.i32 !== null && this.i32[LENT >> 2] === slot;
  }

  /** The task waiting gives the permit up (or a reclaim took it): its wrapper calls `after` when it wakes. */
  clearLent() {
    if (this.i32 !== null) this.i32[LENT >> 2] = 0;
  }

  /** Tells the wrapper whose `after` or `fail` runs that its task must park on a gate. */
  askPark() {
    /** @type {Int32Array} */ (this.i32)[PARK >> 2] = 1;
  }

  /** The permit is open: one task whose wait ends may take it in Wasm. */
  open() {
    if (this.i32 === null) return;
    this.i32[OPEN >> 2] = 1;
    this.opened = true;
  }

  /** The permit is open no longer (a take it allowed already stays to be seen). */
  close() {
    if (this.i32 === null) return;
    this.i32[OPEN >> 2] = 0;
    if (this.i32[TAKEN >> 2] === 0) this.opened = false;
  }

  /** The slot of the task that took the permit in Wasm since the JavaScript side last looked, or 0. */
  get taken() {
    return this.opened ? /** @type {Int32Array} */ (this.i32)[TAKEN >> 2] : 0;
  }

  /** TAKEN as the memory has it, for the invariant check. */
  get takenInMemory() {
    return this.i32 === null ? 0 : this.i32[TAKEN >> 2];
  }

  /** The slot of the task that took the permit lost it to (the one it was lent to). */
  get loser() {
    return /** @type {Int32Array} */ (this.i32)[LOSER >> 2];
  }

  /** The JavaScript side took note of the take. */
  clearTake() {
    const i32 = /** @type {Int32Array} */ (this.i32);
    i32[TAKEN >> 2] = 0;
    i32[LOSER >> 2] = 0;
    // The take closed the permit.
    this.opened = false;
  }

  /**
   * Sets whether the task in `slot` may take the permit in Wasm when its
   * wait ends (its slot's wait word).
   * @param {number} slot @param {boolean} may
   */
  mayTake(slot, may) {
    if (this.i32 !== null && this.waitStride !== 0) this.i32[this.waitWord + slot * this.waitStride] = may ? 1 : 0;
  }
}
