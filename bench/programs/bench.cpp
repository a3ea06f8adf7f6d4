// The snail-core build of the benchmark workloads.
#include <cstdint>

#include <snail/snail.hpp>

#include "workload.hpp"

extern "C" std::int32_t bench_op(std::int32_t i) __attribute__((import_module("bench"), import_name("op")));

// Suspends `arg` times on bench.op, a suspending import whose operation is an
// already resolved promise: the scheduler's suspend -> resume round trip.
SNAIL_ENTRY(op_loop) { return bench::op_loop(arg, [](std::int32_t i) { return bench_op(i); }); }

// Suspends `arg` times on bench.op, each time bench::wait_depth frames down.
SNAIL_ENTRY(deep_op_loop) { return bench::deep_op_loop(arg, [](std::int32_t i) { return bench_op(i); }); }

// Yields `arg` times.
SNAIL_ENTRY(yield_loop) {
  std::int32_t n = 0;
  for (std::int32_t i = 0; i < arg; ++i) n += snail::yield() == snail::status::ok;
  return n;
}

// Starts and finishes without suspending.
SNAIL_ENTRY(nop) { return arg; }

// One wait on bench.op: a task that suspends once.
SNAIL_ENTRY(op_once) { return bench_op(arg); }

// Sleeps `arg` milliseconds once.
SNAIL_ENTRY(sleep_once) { return static_cast<std::int32_t>(snail::sleep(arg)); }

// Straight-line compute.
SNAIL_ENTRY(compute) { return static_cast<std::int32_t>(bench::compute(arg)); }

// The same compute with its hashing on a path that may wait on bench.op.
SNAIL_ENTRY(compute_may_wait) {
  return static_cast<std::int32_t>(bench::compute_may_wait(arg, [](std::int32_t i) { return bench_op(i); }));
}
