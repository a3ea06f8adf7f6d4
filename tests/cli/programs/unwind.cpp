// A program whose tasks say when they unwind: the CLI's Ctrl-C tests check
// that cancelled tasks run their destructors before the command exits.
//
//   main(n)   dispatches n children (default 3) that sleep for a minute and
//             joins them; prints "main: waiting for N children" once all are
//             dispatched, and each child prints "child K: sleeping".
//   stuck(0)  one child whose cleanup never ends: cancelled, its destructor
//             prints "child 1: cleanup spins" and computes forever.
//   compute(ms)
//             prints "computing", computes for ms milliseconds without ever
//             waiting, prints "computed" and returns 0: signals sent
//             meanwhile reach the command only when it ends.
//   compute_then_sleep(ms)
//             the same, then sleeps for a minute; prints "slept: ok" or
//             "slept: cancelled" and unwinds ("main 0: unwound").
#include <chrono>
#include <cstdint>
#include <cstdio>

#include <snail/snail.hpp>

namespace {

// Prints when it is destroyed, which is when its task unwinds.
struct announce {
  const char* who;
  std::int32_t id;
  ~announce() { std::printf("%s %d: unwound\n", who, id); }
};

const char* status_name(snail::status s) {
  switch (s) {
    case snail::status::ok: return "ok";
    case snail::status::cancelled: return "cancelled";
    default: return "another status";
  }
}

std::int32_t sleeper(std::int32_t k) {
  announce guard{"child", k};
  std::printf("child %d: sleeping\n", k);
  snail::status s = snail::sleep(60000);
  std::printf("child %d: sleep returned %s\n", k, status_name(s));
  return s == snail::status::ok ? 0 : 1;
}

// Spins in its destructor: the task never finishes unwinding.
struct endless_cleanup {
  ~endless_cleanup() {
    std::printf("child 1: cleanup spins\n");
    std::fflush(stdout);
    volatile bool forever = true;
    while (forever) {
    }
  }
};

std::int32_t stuck_child(std::int32_t) {
  endless_cleanup cleanup;
  std::printf("child 1: sleeping\n");
  (void)snail::sleep(60000);  // cancelled by Ctrl-C: the cleanup runs either way
  return 0;
}

}  // namespace

SNAIL_ENTRY(main) {
  const std::int32_t n = arg > 0 ? arg : 3;
  announce guard{"main", 0};
  snail::task children[16];
  const std::int32_t count = n < 16 ? n : 16;
  for (std::int32_t k = 0; k < count; ++k) children[k] = snail::dispatch(&sleeper, k + 1);
  std::printf("main: waiting for %d children\n", count);
  std::int32_t unfinished = 0;
  for (std::int32_t k = 0; k < count; ++k) {
    if (children[k].join() != snail::status::ok) ++unfinished;
  }
  std::printf("main: %d children did not return\n", unfinished);
  return unfinished;
}

SNAIL_ENTRY(stuck) {
  auto child = snail::dispatch(&stuck_child, 0);
  return child.join() == snail::status::ok ? 0 : 1;
}

namespace {

// Computes for `ms` milliseconds of the monotonic clock, without waiting.
void compute_for(std::int32_t ms) {
  std::printf("computing\n");
  std::fflush(stdout);
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  volatile std::uint64_t spins = 0;
  while (std::chrono::steady_clock::now() < end) spins = spins + 1;
  std::printf("computed\n");
  std::fflush(stdout);
}

}  // namespace

SNAIL_ENTRY(compute) {
  compute_for(arg);
  return 0;
}

SNAIL_ENTRY(compute_then_sleep) {
  announce guard{"main", 0};
  compute_for(arg);
  snail::status s = snail::sleep(60000);
  std::printf("slept: %s\n", status_name(s));
  return s == snail::status::ok ? 0 : 1;
}
