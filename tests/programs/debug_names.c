/* Built twice (tests/programs/CMakeLists.txt): debug_names.wasm with DEBUG,
 * which keeps the name section and DWARF, and debug_names_release.wasm
 * without. tests/node/debug-builds.test.mjs compares them.
 *   main(n)   dispatches worker(n), which traps n calls deep, and joins it
 *   nap(ms)   dispatches napper(ms), which sleeps, and joins it */
#include <snail/snail.h>

/* noinline: each function keeps its frame, so that a stack trace shows it. */
__attribute__((noinline)) static int32_t deepest(int32_t n) {
  if (n <= 0) __builtin_trap();
  return n;
}

__attribute__((noinline)) static int32_t descend(int32_t n) {
  volatile int32_t keep = n;
  return n > 1 ? descend(n - 1) + keep : deepest(n - 1);
}

static int32_t worker(int32_t n) {
  if (snail_yield() != SNAIL_OK) return -1;
  return descend(n);
}

static int32_t napper(int32_t ms) { return snail_sleep(ms); }

static int32_t run(snail_entry_fn fn, int32_t arg) {
  int32_t child;
  if (snail_dispatch_task(&child, fn, arg, NULL) != SNAIL_OK) return -1;
  snail_status s = snail_join(child);
  snail_release(child);
  return s;
}

SNAIL_ENTRY(main) { return run(worker, arg); }

SNAIL_ENTRY(nap) { return run(napper, arg); }
