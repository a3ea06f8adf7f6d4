// A recording host for the core's native unit tests: the extern "C" ABI
// functions a Wasm program imports, implemented in-process so that the core's
// pure logic (handle ownership, closure trampolines, status mapping) is tested
// without a JavaScript engine. The real host is tested by the node:test suites.
#pragma once

#include <cstdint>
#include <vector>

namespace test_host {

struct dispatched {
  std::int32_t entry;
  std::int32_t arg;
  std::int32_t drop;
};

struct state {
  std::vector<dispatched> dispatches;
  std::vector<std::int32_t> released;
  std::vector<std::int32_t> joined;
  std::vector<std::int32_t> cancelled;
  std::vector<std::int32_t> trees_cancelled;
  std::vector<double> shields_begun;  // the timeouts of shield_begin, valid or not
  std::int32_t shields_open = 0;
  std::int32_t shields_ended = 0;
  std::vector<double> slept;
  std::int32_t yields = 0;
  std::int32_t next_handle = 1;
  std::int32_t dispatch_refusal = 0;  // when > 0, dispatch returns -dispatch_refusal
  std::int32_t join_status = 0;
  std::int32_t result_value = 0;
  std::int32_t cancel_requested = 0;
};

// The host state; reset() before each test.
state& host();
void reset();

}  // namespace test_host
