/* kv: a small key-value store over block devices, the program of the
 * benchmark's realistic rows (bench/realistic.mjs).
 *
 * Each task owns one device and keeps on it a B+tree index of 16-byte keys
 * whose values live in an append-only log (keys and values apart, as in
 * WiscKey). Nothing of the tree is cached: every operation reads its path
 * from the device, 4 KiB blocks in and out of linear memory.
 *
 *   put: read the path (root .. leaf), append the value to the log's tail
 *        block and write that block, write the leaf (and, on a split, the
 *        new node and its parent; the superblock when a block is allocated)
 *   get: read the path, read the value's log block, check the value
 *
 * With a tree of two levels, a put is 4 block operations and a get 3.
 *
 * A task formats its device, inserts `keys` keys, runs `mixed` operations
 * (half gets, half puts that give a random key a new version) and reads
 * every key back. It knows the version of every key it wrote, and each
 * value's bytes follow from (device, key, version): every value read back
 * is compared with what was written. It returns a checksum of every value
 * it read (>= 0), or a negative error: the benchmark compares the checksums
 * of every run.
 *
 * Two entries, the same code (kv.h): `run_async` does its block I/O through
 * disk.read and disk.write, `run_sync` through disk.read_sync and
 * disk.write_sync. The argument is
 *   device | (keys / 16) << 8 | (mixed / 64) << 20
 * (device below 256, keys below 65,536, mixed below 131,072).
 */
#include <snail/snail.h>

#include "kv.h"

/* Every block operation a suspending import. */
SNAIL_ENTRY(run_async) { return kv_run(arg, 1); }

/* Every block operation a plain import. */
SNAIL_ENTRY(run_sync) { return kv_run(arg, 0); }
