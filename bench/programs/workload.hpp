// The benchmark workloads, written once and built two ways: as a snail-core
// program (bench.cpp) and as a plain module for Binaryen's Asyncify
// (asyncify.cpp). `wait_op(i)` is the suspending call each build provides.
#pragma once

#include <cstdint>

namespace bench {

// Suspends n times on a host operation that is already complete.
template <class Wait>
std::int32_t op_loop(std::int32_t n, Wait wait_op) {
  std::int32_t sum = 0;
  for (std::int32_t i = 0; i < n; ++i) sum += wait_op(i);
  return sum;
}

// Straight-line compute with no suspension: an FNV-1a hash over a generated
// byte stream, with some branches and memory traffic.
inline std::uint32_t compute(std::int32_t n) {
  static std::uint8_t buffer[4096];
  std::uint32_t h = 2166136261u;
  std::uint32_t x = 12345;
  for (std::int32_t round = 0; round < n; ++round) {
    for (std::uint32_t i = 0; i < sizeof buffer; ++i) {
      x = x * 1103515245u + 12345u;
      buffer[i] = static_cast<std::uint8_t>(x >> 16);
    }
    for (std::uint32_t i = 0; i < sizeof buffer; ++i) {
      h ^= buffer[i];
      h *= 16777619u;
      if (h & 1) h ^= i;
    }
  }
  return h;
}

}  // namespace bench
