// The words the wait path shares with the suspension wrappers (internal).
//
// They are the first bytes of the memory that also holds the register file's
// slots (wasm/gates.mjs, wasm/registers.mjs). Until a program has a suspension module
// (an engine without what the wrappers use, or a program with no wait whose
// type is known), there are none: writes are dropped and reads say 0.
import { CURRENT, LENT, PARK } from './wasm/gates.mjs';

export class SharedWords {
  constructor() {
    /** @type {Int32Array | null} a view of the memory, again after each growth (which detaches the last) */
    this.i32 = null;
  }

  /** Views the words in `memory` (after the suspension module is made, and after the memory grew). @param {WebAssembly.Memory} memory */
  view(memory) {
    this.i32 = new Int32Array(memory.buffer);
  }

  /** Whether there is a suspension module, whose wrappers read these words. */
  get present() {
    return this.i32 !== null;
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
}
