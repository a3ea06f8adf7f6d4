/* Tasks that use known amounts of their stack segments, for the measureStacks
 * tests (tests/node/stack-use.test.mjs).
 *   use(n)      writes n bytes of its stack and waits 5 ms with them in use
 *   recurse(n)  n nested frames of 256 bytes each (overflows a small segment) */
#include <string.h>

#include <snail/snail.h>

__attribute__((noinline)) static int32_t fill(int32_t n) {
  char buffer[n];
  memset(buffer, 1, (size_t)n);
  __asm__ volatile("" ::"r"(buffer) : "memory");
  snail_status s = snail_sleep(5);  /* measured while it waits */
  return s == SNAIL_OK ? buffer[n - 1] : -1;
}

SNAIL_ENTRY(use) { return fill(arg); }

__attribute__((noinline)) static int32_t nest(int32_t n) {
  volatile char pad[256];
  memset((char*)pad, n, sizeof pad);
  int32_t below = n == 0 ? 0 : nest(n - 1);
  return below + pad[n % 256]; /* read after the call: the frame lives across it */
}

SNAIL_ENTRY(recurse) { return nest(arg); }
