// The Asyncify build of the benchmark workloads: a plain module whose bench.op
// import is made suspending by Binaryen's Asyncify pass, driven by a minimal
// JavaScript unwind/rewind loop (bench/asyncify-driver.mjs).
#include <cstdint>

#include "workload.hpp"

extern "C" std::int32_t bench_op(std::int32_t i) __attribute__((import_module("bench"), import_name("op")));

extern "C" __attribute__((export_name("op_loop"))) std::int32_t op_loop(std::int32_t n) {
  return bench::op_loop(n, [](std::int32_t i) { return bench_op(i); });
}

extern "C" __attribute__((export_name("deep_op_loop"))) std::int32_t deep_op_loop(std::int32_t n) {
  return bench::deep_op_loop(n, [](std::int32_t i) { return bench_op(i); });
}

extern "C" __attribute__((export_name("compute"))) std::int32_t compute(std::int32_t n) {
  return static_cast<std::int32_t>(bench::compute(n));
}

extern "C" __attribute__((export_name("compute_may_wait"))) std::int32_t compute_may_wait(std::int32_t n) {
  return static_cast<std::int32_t>(bench::compute_may_wait(n, [](std::int32_t i) { return bench_op(i); }));
}

// The Asyncify data area: where the unwound stack is saved.
alignas(16) static std::uint8_t asyncify_stack[16384];

extern "C" __attribute__((export_name("asyncify_data"))) std::uint32_t asyncify_data() {
  // struct { u32 current; u32 end; } followed by the save area.
  auto* header = reinterpret_cast<std::uint32_t*>(asyncify_stack);
  header[0] = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(asyncify_stack + 8));
  header[1] = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(asyncify_stack + sizeof asyncify_stack));
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(asyncify_stack));
}
