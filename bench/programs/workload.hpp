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

// Waits from `depth` frames down the stack: an Asyncify unwind and rewind
// pass through every one of them, a JSPI switch through none.
template <class Wait>
__attribute__((noinline)) std::int32_t nested_wait(std::int32_t depth, std::int32_t i, Wait& wait_op) {
  if (depth == 0) return wait_op(i);
  volatile std::int32_t frame = depth;  // a local that lives across the wait
  return nested_wait(depth - 1, i, wait_op) + (frame - depth);
}

// The frames below each wait of deep_op_loop.
inline constexpr std::int32_t wait_depth = 32;

// Suspends n times, each time `wait_depth` frames down.
template <class Wait>
std::int32_t deep_op_loop(std::int32_t n, Wait wait_op) {
  std::int32_t sum = 0;
  for (std::int32_t i = 0; i < n; ++i) sum += nested_wait(wait_depth, i, wait_op);
  return sum;
}

// One step of an FNV-1a hash, with a branch.
inline std::uint32_t fnv_step(std::uint32_t h, std::uint32_t byte, std::uint32_t i) {
  h ^= byte;
  h *= 16777619u;
  if (h & 1) h ^= i;
  return h;
}

// n rounds of hashing over a generated 4 KiB byte stream, each byte mixed in
// by `mix_byte(h, byte, i)`: some branches and memory traffic.
template <class Mix>
std::uint32_t hash_rounds(std::int32_t n, Mix mix_byte) {
  static std::uint8_t buffer[4096];
  std::uint32_t h = 2166136261u;
  std::uint32_t x = 12345;
  for (std::int32_t round = 0; round < n; ++round) {
    for (std::uint32_t i = 0; i < sizeof buffer; ++i) {
      x = x * 1103515245u + 12345u;
      buffer[i] = static_cast<std::uint8_t>(x >> 16);
    }
    for (std::uint32_t i = 0; i < sizeof buffer; ++i) h = mix_byte(h, buffer[i], i);
  }
  return h;
}

// Straight-line compute with no suspension, in a leaf function.
inline std::uint32_t compute(std::int32_t n) { return hash_rounds(n, fnv_step); }

// One step of the hash, through a function that may wait (it never does in
// the benchmark: the hash is never zero there). Asyncify instruments every
// function on a path to a suspending import, and every call on that path;
// JSPI leaves the code as it is.
template <class Wait>
__attribute__((noinline)) std::uint32_t mix(std::uint32_t h, std::uint32_t byte, std::uint32_t i, Wait& wait_op) {
  h = fnv_step(h, byte, i);
  if (h == 0) h = static_cast<std::uint32_t>(wait_op(static_cast<std::int32_t>(i)));
  return h;
}

// The compute workload with its hashing on a path that may wait: what the code
// around a program's waits looks like.
template <class Wait>
std::uint32_t compute_may_wait(std::int32_t n, Wait wait_op) {
  return hash_rounds(n, [&wait_op](std::uint32_t h, std::uint32_t byte, std::uint32_t i) { return mix(h, byte, i, wait_op); });
}

}  // namespace bench
