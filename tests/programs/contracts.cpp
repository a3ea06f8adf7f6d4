// The C++ program the contract suites run. Each entry exercises one contract and
// reports through imports of module "test", which the suites provide:
//   test.event(kind, a, b)   records an event in order
//   test.violation(code, a)  records a broken check (a task saw someone else's
//                            bindings, or its frames were overwritten)
//   test.pause(n) -> n       a suspending host operation (declared with suspend())
#include <cstdint>

#include <snail/snail.hpp>

#include "frame_guard.hpp"

#define TEST_IMPORT(name) __attribute__((import_module("test"), import_name(#name)))
extern "C" void test_event(std::int32_t kind, std::int32_t a, std::int32_t b) TEST_IMPORT(event);
extern "C" void test_violation(std::int32_t code, std::int32_t a) TEST_IMPORT(violation);
extern "C" std::int32_t test_pause(std::int32_t n) TEST_IMPORT(pause);

namespace {

SNAIL_HANDLER(h_alpha, std::int32_t);
SNAIL_HANDLER(h_beta, std::int32_t);
SNAIL_HANDLER(h_gamma, std::int32_t);

// Event kinds (mirrored in tests/node/helpers.mjs).
enum event : std::int32_t {
  ev_dispatched = 1,   // a = child handle
  ev_child_saw = 2,    // a = alpha, b = beta
  ev_parent_done = 3,  // a = arg
  ev_child_done = 4,   // a = arg
  ev_step = 5,         // a = task arg, b = step
  ev_joined = 6,       // a = handle, b = status
  ev_result = 7,       // a = handle, b = result
  ev_dropped = 8,      // a = alpha, b = beta, as a drop function saw them
};

using test::frame_guard;

std::uint32_t next_random(std::uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

}  // namespace

// Returns the handlers' values as seen by a root task: alpha + beta + gamma
// (0 when every handler holds its default).
SNAIL_ENTRY(observe_defaults) {
  (void)arg;
  return h_alpha.get() + h_beta.get() + h_gamma.get();
}

// Contract 1: the child is live before dispatch returns. The event fires right
// after dispatch returned, before the parent waits; the suite checks the child's
// state at that moment.
SNAIL_ENTRY(dispatch_one) {
  auto child = snail::dispatch([] { return 5; });
  test_event(ev_dispatched, child.id(), 0);
  if (child.join() != snail::status::ok) return -1;
  return child.result() + arg;
}

// A chain of joins `arg` deep: each task dispatches one child one link
// shorter and joins it. Returns the links below it that finished, or -1 from
// the task whose child failed (its own parent then returns -1 too).
namespace {
std::int32_t chain_link(std::int32_t links) {
  if (links <= 0) return 0;
  auto child = snail::dispatch([links] { return chain_link(links - 1); });
  if (child.join() != snail::status::ok) return -1;
  const std::int32_t below = child.result();
  return below < 0 ? -1 : below + 1;
}
}  // namespace

SNAIL_ENTRY(join_chain) { return chain_link(arg); }

// A closure whose destructor reports the bindings it runs with: when its
// task is discarded, its drop function destroys it outside any task.
namespace {
struct report_on_drop {
  bool ran = false;
  report_on_drop() = default;
  report_on_drop(report_on_drop&& other) noexcept : ran(other.ran) { other.ran = true; }
  report_on_drop(const report_on_drop&) = delete;
  ~report_on_drop() {
    if (!ran) test_event(ev_dropped, h_alpha.get(), h_beta.get());
  }
  std::int32_t operator()() {
    ran = true;
    return 0;
  }
};
}  // namespace

// Binds alpha and beta, dispatches a child and cancels it while it is
// queued: its drop function runs inside the cancel, and must see the
// defaults, not the bindings of the task that cancelled it; the task's own
// bindings are back afterwards.
SNAIL_ENTRY(drop_while_bound) {
  snail::bind a(h_alpha, arg);
  snail::bind b(h_beta, arg * 3);
  auto child = snail::dispatch(report_on_drop{});
  if (child.cancel() != snail::status::ok) return -1;
  if (h_alpha.get() != arg || h_beta.get() != arg * 3) test_violation(60, arg);
  if (child.join() != snail::status::cancelled) return -2;
  if (h_alpha.get() != arg || h_beta.get() != arg * 3) test_violation(61, arg);
  return arg;
}

// Contract 2: a child that traps fails alone; its siblings and its parent go on.
SNAIL_ENTRY(trap_sibling) {
  auto ok1 = snail::dispatch([] {
    (void)snail::sleep(2);
    return 1;
  });
  auto bad = snail::dispatch([] {
    (void)snail::yield();
    __builtin_trap();
    return 0;
  });
  auto ok2 = snail::dispatch([] {
    (void)snail::yield();
    (void)snail::sleep(1);
    return 2;
  });
  auto s1 = ok1.join();
  auto sb = bad.join();
  auto s2 = ok2.join();
  test_event(ev_joined, ok1.id(), static_cast<std::int32_t>(s1));
  test_event(ev_joined, bad.id(), static_cast<std::int32_t>(sb));
  test_event(ev_joined, ok2.id(), static_cast<std::int32_t>(s2));
  return ok1.result() + ok2.result() + arg;
}

// Contract 2: a parent that traps after dispatching leaves its child live; the
// child finishes and reports.
SNAIL_ENTRY(trap_after_dispatch) {
  snail::bind b(h_alpha, arg);
  auto child = snail::dispatch([] {
    (void)snail::sleep(3);
    test_event(ev_child_done, h_alpha.get(), 0);
    return 9;
  });
  test_event(ev_dispatched, child.id(), 0);
  __builtin_trap();
  return 0;
}

// Contract 5: the child's binding vector is a copy. The parent binds, dispatches,
// rebinds and returns (unwinding its bindings) before the child runs; the child
// keeps the values of dispatch time, also after waits.
SNAIL_ENTRY(copy_on_dispatch) {
  snail::bind a(h_alpha, arg);
  snail::bind b(h_beta, arg + 1);
  snail::dispatch([] {
    test_event(ev_child_saw, h_alpha.get(), h_beta.get());
    (void)snail::sleep(2);
    test_event(ev_child_saw, h_alpha.get(), h_beta.get());
    (void)snail::yield();
    test_event(ev_child_saw, h_alpha.get(), h_beta.get());
    test_event(ev_child_done, 0, 0);
    return 0;
  });
  h_alpha.set(-1);
  h_beta.set(-2);
  test_event(ev_parent_done, arg, 0);
  return 0;
}

// Contract 4: binds unique values, then waits and checks `steps` times. Any
// mismatch is a violation.
SNAIL_ENTRY(bind_and_wait) {
  frame_guard guard(static_cast<std::uint32_t>(arg));
  snail::bind a(h_alpha, arg);
  snail::bind b(h_beta, arg * 3);
  for (int step = 0; step < 4; ++step) {
    auto s = step % 2 ? snail::yield() : snail::sleep(step);
    if (s != snail::status::ok) test_violation(10, arg);
    if (h_alpha.get() != arg || h_beta.get() != arg * 3 || h_gamma.get() != 0) test_violation(11, arg);
    if (!guard.intact(static_cast<std::uint32_t>(arg))) test_violation(12, arg);
    test_event(ev_step, arg, step);
  }
  return arg;
}

// Contract 4: waits on a host operation whose start and completion the suite
// uses to look at the handler globals while no task holds the permit.
SNAIL_ENTRY(bind_and_pause) {
  snail::bind a(h_alpha, arg);
  snail::bind b(h_beta, arg * 3);
  for (int i = 0; i < 3; ++i) {
    if (test_pause(i) != i) test_violation(13, arg);
    if (h_alpha.get() != arg || h_beta.get() != arg * 3) test_violation(14, arg);
  }
  return arg;
}

// Contract 6: a task that only yields, `arg` times.
SNAIL_ENTRY(yield_loop) {
  for (int i = 0; i < arg; ++i) {
    if (snail::yield() != snail::status::ok) return -1;
  }
  return arg;
}

// One wait: for the many-tasks test.
SNAIL_ENTRY(sleep_once) {
  frame_guard guard(static_cast<std::uint32_t>(arg));
  if (snail::sleep(arg % 3) != snail::status::ok) return -1;
  if (!guard.intact(static_cast<std::uint32_t>(arg))) test_violation(20, arg);
  return arg;
}

SNAIL_ENTRY(yield_once) {
  frame_guard guard(static_cast<std::uint32_t>(arg));
  if (snail::yield() != snail::status::ok) return -1;
  if (!guard.intact(static_cast<std::uint32_t>(arg))) test_violation(21, arg);
  return arg;
}

// Sleeps `arg` milliseconds once.
SNAIL_ENTRY(sleep_ms) { return static_cast<std::int32_t>(snail::sleep(arg)); }

// Waits `arg` times on test.pause(i), which must deliver i, with bindings and
// frames checked after every wait; returns how many waits it made.
SNAIL_ENTRY(pause_loop) {
  frame_guard guard(static_cast<std::uint32_t>(arg));
  snail::bind a(h_alpha, arg);
  std::int32_t i = 0;
  for (; i < arg; ++i) {
    if (test_pause(i) != i) test_violation(15, i);
    if (h_alpha.get() != arg) test_violation(16, i);
  }
  if (!guard.intact(static_cast<std::uint32_t>(arg))) test_violation(17, arg);
  return i;
}

// Binds a new alpha before each of `arg` waits on test.pause and checks it
// after the wait: no wait may bring back the registers of an earlier one (the
// waits of a cancelled task end at once, and the task keeps its registers).
// Returns how many waits it made.
SNAIL_ENTRY(rebind_per_wait) {
  std::int32_t waits = 0;
  for (std::int32_t i = 1; i <= arg; ++i) {
    snail::bind a(h_alpha, i * 11);
    (void)test_pause(i);
    if (h_alpha.get() != i * 11) test_violation(18, i);
    ++waits;
  }
  return waits;
}

// Returns without waiting: the fast path of a task start.
SNAIL_ENTRY(nop) { return arg; }

// Deep recursion on the shadow stack: overflows a small segment.
namespace {
__attribute__((noinline)) std::int32_t recurse(std::int32_t depth) {
  volatile char pad[512];
  for (int i = 0; i < 512; i += 64) pad[i] = static_cast<char>(depth + i);
  if (depth == 0) return pad[64];
  return recurse(depth - 1) + pad[(depth * 64) % 512];
}
}  // namespace

SNAIL_ENTRY(deep) {
  (void)snail::yield();
  return recurse(arg);
}

// The randomized interleaving test: a task runs a script of binds, sleeps,
// yields, dispatches and joins chosen by its seed, and after every wait checks
// that it sees exactly the bindings it made and that its frames are intact.
namespace {

constexpr int max_children = 3;

std::int32_t scripted(std::uint32_t seed, int depth);

struct scripted_args {
  std::uint32_t seed;
  int depth;
  std::int32_t alpha, beta, gamma;  // bindings at dispatch time
};

std::int32_t run_scripted_child(const scripted_args& a) {
  if (h_alpha.get() != a.alpha || h_beta.get() != a.beta || h_gamma.get() != a.gamma) {
    test_violation(30, static_cast<std::int32_t>(a.seed));
  }
  return scripted(a.seed, a.depth);
}

std::int32_t scripted(std::uint32_t seed, int depth) {
  frame_guard guard(seed);
  std::uint32_t state = seed * 747796405u + 2891336453u;
  if (state == 0) state = 1;
  std::int32_t expect[3] = {h_alpha.get(), h_beta.get(), h_gamma.get()};
  snail::task children[max_children];
  int dispatched = 0;
  const int steps = 3 + static_cast<int>(next_random(state) % 6);
  auto check = [&](int where) {
    if (h_alpha.get() != expect[0] || h_beta.get() != expect[1] || h_gamma.get() != expect[2]) {
      test_violation(31 + where, static_cast<std::int32_t>(seed));
    }
    if (!guard.intact(seed)) test_violation(40 + where, static_cast<std::int32_t>(seed));
  };
  for (int step = 0; step < steps; ++step) {
    std::uint32_t choice = next_random(state) % 10;
    std::int32_t value = static_cast<std::int32_t>(next_random(state) & 0x3fffffff);
    if (choice < 3) {
      // Bind one handler to a value unique to this task and step.
      switch (choice) {
        case 0: h_alpha.set(value); expect[0] = value; break;
        case 1: h_beta.set(value); expect[1] = value; break;
        default: h_gamma.set(value); expect[2] = value; break;
      }
      check(0);
    } else if (choice < 5) {
      if (snail::sleep(next_random(state) % 3) != snail::status::ok) test_violation(50, static_cast<std::int32_t>(seed));
      check(1);
    } else if (choice < 7) {
      if (snail::yield() != snail::status::ok) test_violation(51, static_cast<std::int32_t>(seed));
      check(2);
    } else if (choice < 9 && depth < 3 && dispatched < max_children) {
      scripted_args a{next_random(state), depth + 1, expect[0], expect[1], expect[2]};
      children[dispatched++] = snail::dispatch([a] { return run_scripted_child(a); });
      check(3);
    } else if (dispatched > 0) {
      auto& child = children[next_random(state) % dispatched];
      if (child.join() != snail::status::ok) test_violation(52, static_cast<std::int32_t>(seed));
      check(4);
    }
  }
  std::int32_t total = 1;
  for (int i = 0; i < dispatched; ++i) {
    if (children[i].join() != snail::status::ok) test_violation(53, static_cast<std::int32_t>(seed));
    total += children[i].result();
    check(5);
  }
  return total;
}

}  // namespace

// Returns the number of tasks in the tree it ran (itself included).
SNAIL_ENTRY(random_tree) { return scripted(static_cast<std::uint32_t>(arg), 0); }
