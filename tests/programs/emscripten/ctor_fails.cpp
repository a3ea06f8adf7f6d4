// A program whose static constructor fails as the test says through
// test.mode(): 1 calls abort(), 2 waits (snail::sleep) although no task runs.
// Runtime.load fails with ERR_INIT and the reason (tests/node/emscripten.test.mjs).
#include <cstdint>
#include <cstdlib>

#include <snail/snail.hpp>

extern "C" std::int32_t test_mode() __attribute__((import_module("test"), import_name("mode")));

namespace {
struct fails_at_start {
  fails_at_start() {
    switch (test_mode()) {
      case 1: std::abort();
      case 2: (void)snail::sleep(1); break;
      default: break;
    }
  }
} instance;
}  // namespace

SNAIL_ENTRY(main) { return arg; }
