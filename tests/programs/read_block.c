/* The program of the read_block example of docs/bridge.md ("Writing into the
 * program's memory"), which tests/node/docs.test.mjs runs as written.
 *   main(n)  reads n bytes from descriptor 3 into a buffer, after another task
 *            grew the memory while it waited; returns their sum, or -1 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <snail/snail.h>

int32_t read_block(int32_t fd, void* buffer, uint32_t size) SNAIL_IMPORT_FROM(env, read_block);

static void* volatile kept;

static int32_t grow(int32_t mib) {
  kept = malloc((size_t)mib << 20);
  if (kept) memset(kept, 1, (size_t)mib << 20);
  return kept != 0;
}

SNAIL_ENTRY(main) {
  uint8_t* buffer = calloc((size_t)arg, 1);
  if (!buffer) return -1;
  int32_t grower;
  if (snail_dispatch_task(&grower, grow, 16, NULL) != SNAIL_OK) return -1;
  snail_status s = read_block(3, buffer, (uint32_t)arg);
  int32_t sum = 0;
  for (int32_t i = 0; i < arg; i++) sum += buffer[i];
  free(buffer);
  snail_status g = snail_join(grower);
  int32_t grew = snail_result(grower);
  snail_release(grower);
  return s == SNAIL_OK && g == SNAIL_OK && grew == 1 ? sum : -1;
}
