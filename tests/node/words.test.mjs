// The words the wait path shares with the suspension wrappers (words.mjs), on
// their own: a memory stands in for the one the wrappers write, and the test
// writes TAKEN and LOSER as a wrapper's take does (it closes OPEN too).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LOSER, OPEN, TAKEN } from '../../host/browser/wasm/gates.mjs';
import { SharedWords } from '../../host/browser/words.mjs';

/** Shared words over a fresh memory, and a view of that memory. */
function words() {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const w = new SharedWords();
  w.view(memory);
  return { w, i32: new Int32Array(memory.buffer) };
}

/** What a wrapper's take writes: OPEN closed, the taker and the loser recorded. @param {Int32Array} i32 */
function takeInWasm(i32, taker = 3, loser = 2) {
  assert.equal(i32[OPEN >> 2], 1, 'a wrapper takes the permit only while it is open');
  i32[OPEN >> 2] = 0;
  i32[TAKEN >> 2] = taker;
  i32[LOSER >> 2] = loser;
}

test('words: a take of an opened permit is seen until the JavaScript side clears it', () => {
  const { w, i32 } = words();
  w.open();
  assert.equal(w.taken, 0);
  takeInWasm(i32);
  assert.equal(w.taken, 3);
  assert.equal(w.loser, 2);
  w.clearTake();
  assert.equal(w.taken, 0);
  assert.equal(i32[TAKEN >> 2], 0);
  assert.equal(i32[LOSER >> 2], 0);
});

test('words: closing the permit after a take in Wasm keeps the take to be seen', () => {
  const { w, i32 } = words();
  w.open();
  takeInWasm(i32);
  // The lease ends (leaseEnded) before the wait path looked at the words.
  w.close();
  assert.equal(i32[OPEN >> 2], 0);
  assert.equal(w.taken, 3, 'the take stays until clearTake()');
  w.clearTake();
  assert.equal(w.taken, 0);
});

test('words: while the permit was not opened, taken reads 0 and the memory says otherwise only to the invariant check', () => {
  const { w, i32 } = words();
  // Never opened, or closed with no take since: no wrapper can take the
  // permit, so taken does not look at the memory. A take written anyway is
  // what takenInMemory (Lending.unseenTake, under checkInvariants) reports.
  i32[TAKEN >> 2] = 5;
  assert.equal(w.taken, 0);
  assert.equal(w.takenInMemory, 5);
  i32[TAKEN >> 2] = 0;
  w.open();
  w.close();
  i32[TAKEN >> 2] = 5;
  assert.equal(w.taken, 0);
  assert.equal(w.takenInMemory, 5);
});

test('words: with no suspension module there are no words: taken is 0 and open and close do nothing', () => {
  const w = new SharedWords();
  w.open();
  assert.equal(w.taken, 0);
  assert.equal(w.takenInMemory, 0);
  w.close();
  assert.equal(w.opened, false);
});
