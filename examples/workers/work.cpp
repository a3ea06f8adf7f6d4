// work: a CPU-bound program for the worker pool (examples/workers/).
//
// `work(n)` runs n rounds of an integer hash and returns the hash. Every
// round ends with snail::yield(), so a cancellation requested while it runs
// is seen at the next round; between yields the task holds its agent, which
// is why a pool spreads such tasks over workers.
#include <cstdint>

#include <snail/snail.hpp>

SNAIL_ENTRY(work) {
  std::uint32_t h = 2166136261u ^ static_cast<std::uint32_t>(arg);
  for (int round = 0; round < arg; ++round) {
    for (int i = 0; i < 20000; ++i) h = (h ^ static_cast<std::uint32_t>(i)) * 16777619u;
    if (snail::yield() != snail::status::ok) return -1;
  }
  return static_cast<int>(h & 0x7fffffff);
}
