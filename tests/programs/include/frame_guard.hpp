// A buffer on the task's shadow stack whose content depends on its owner, for
// the test programs' stack checks. The expected seed is passed to intact() from
// a Wasm local, not read from the frame, so a frame overwritten by another task
// cannot vouch for itself.
#pragma once

#include <cstdint>

namespace test {

struct frame_guard {
  volatile std::uint32_t words[16];
  explicit frame_guard(std::uint32_t s) {
    for (std::uint32_t i = 0; i < 16; ++i) words[i] = s * 2654435761u ^ (i * 40503u);
  }
  bool intact(std::uint32_t seed) const {
    for (std::uint32_t i = 0; i < 16; ++i) {
      if (words[i] != (seed * 2654435761u ^ (i * 40503u))) return false;
    }
    return true;
  }
};

}  // namespace test
