// The C++ program of the cancellation cases. It reports through module "test":
//   test.event(kind, a, b)      records an event in order
//   test.op(n) -> i32            a suspending host operation the case controls
//                                (declared with suspend(), with a JS disposer)
//   test.op_buffer(n) -> i32     a suspending host operation that resolves with a
//                                buffer it allocated in this program's memory;
//                                undelivered buffers go to the native disposer below
#include <cstdint>
#include <cstdlib>

#include <snail/snail.hpp>

#define TEST_IMPORT(name) __attribute__((import_module("test"), import_name(#name)))
extern "C" void test_event(std::int32_t kind, std::int32_t a, std::int32_t b) TEST_IMPORT(event);
extern "C" std::int32_t test_op(std::int32_t n) TEST_IMPORT(op);
extern "C" std::int32_t test_op_buffer(std::int32_t n) TEST_IMPORT(op_buffer);

namespace {

// Event kinds (mirrored in tests/cases/support.mjs).
enum event : std::int32_t {
  ev_unwound = 1,     // a = probe id: a destructor ran while the task unwound
  ev_woke = 2,        // a = task arg, b = status of the wait
  ev_op = 3,          // a = task arg, b = what test.op delivered
  ev_saw_cancel = 4,  // a = task arg, b = iterations before it saw the request
  ev_dropped = 5,     // a = closure id: a closure was destroyed without running
  ev_ran = 6,         // a = closure id: a closure ran
  ev_joined = 7,      // a = handle, b = status
  ev_buffer = 8,      // a = task arg, b = buffer delivered
  ev_freed = 9,       // a = buffer freed by the native disposer
};

// A destructor that reports: it proves a cancelled task unwound.
struct unwind_probe {
  std::int32_t id;
  ~unwind_probe() { test_event(ev_unwound, id, 0); }
};

// A closure that reports whether it ran or was destroyed without running.
struct tracked_closure {
  std::int32_t id;
  bool ran = false;
  tracked_closure(std::int32_t i) : id(i) {}
  tracked_closure(const tracked_closure&) = delete;
  tracked_closure(tracked_closure&& o) noexcept : id(o.id), ran(o.ran) { o.id = -1; }
  ~tracked_closure() {
    if (id >= 0 && !ran) test_event(ev_dropped, id, 0);
  }
  std::int32_t operator()() {
    ran = true;
    test_event(ev_ran, id, 0);
    return id;
  }
};

std::int32_t live_buffers = 0;

}  // namespace

// Buffers the host allocates for test.op_buffer results.
extern "C" SNAIL_EXPORT("test_alloc") std::int32_t test_alloc(std::int32_t size) {
  ++live_buffers;
  return static_cast<std::int32_t>(reinterpret_cast<std::uintptr_t>(std::malloc(size)));
}

extern "C" SNAIL_EXPORT("test_live_buffers") std::int32_t test_live_buffers() { return live_buffers; }

static void free_buffer(std::int32_t buffer) {
  std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(buffer)));
  --live_buffers;
}

// The native disposer of test.op_buffer: a buffer that was never delivered.
SNAIL_DISPOSER(test, op_buffer)(std::int32_t buffer) {
  test_event(ev_freed, buffer, 0);
  free_buffer(buffer);
}

// Sleeps for a long time twice; reports both statuses. Cancelled, the first
// sleep ends with `cancelled` and the second returns `cancelled` at once.
SNAIL_ENTRY(sleep_guarded) {
  unwind_probe probe{arg};
  auto first = snail::sleep(60000);
  test_event(ev_woke, arg, static_cast<std::int32_t>(first));
  auto second = snail::sleep(60000);
  test_event(ev_woke, arg, static_cast<std::int32_t>(second));
  test_event(ev_saw_cancel, arg, snail::cancel_requested() ? 1 : 0);
  return 7;
}

// Waits on test.op twice, reporting what each delivered.
SNAIL_ENTRY(op_guarded) {
  unwind_probe probe{arg};
  std::int32_t first = test_op(arg);
  test_event(ev_op, arg, first);
  std::int32_t second = test_op(arg + 1000);
  test_event(ev_op, arg, second);
  return first;
}

// Waits on test.op_buffer once and frees what it receives.
SNAIL_ENTRY(buffer_guarded) {
  unwind_probe probe{arg};
  std::int32_t buffer = test_op_buffer(arg);
  test_event(ev_buffer, arg, buffer);
  if (buffer > 0) free_buffer(buffer);
  return buffer > 0 ? 0 : buffer;
}

// Yields until it sees the cancellation request through cancel_requested().
SNAIL_ENTRY(spin_until_cancelled) {
  unwind_probe probe{arg};
  std::int32_t n = 0;
  while (!snail::cancel_requested()) {
    if (snail::yield() == snail::status::cancelled) break;
    ++n;
  }
  test_event(ev_saw_cancel, arg, n);
  return n;
}

// Cancels a sleeping child through its handle, joins it: cancelled.
SNAIL_ENTRY(cancel_child) {
  auto child = snail::dispatch([arg] {
    unwind_probe probe{arg + 1};
    auto s = snail::sleep(60000);
    test_event(ev_woke, arg + 1, static_cast<std::int32_t>(s));
    return 1;
  });
  (void)snail::yield();  // the child starts and sleeps
  test_event(ev_joined, child.id(), static_cast<std::int32_t>(child.cancel()));
  auto s = child.join();
  test_event(ev_joined, child.id(), static_cast<std::int32_t>(s));
  return static_cast<std::int32_t>(s);
}

// Dispatches `arg` closures and cancels each before it can run: they are
// discarded, and each closure is destroyed through its drop function.
SNAIL_ENTRY(discard_children) {
  std::int32_t cancelled = 0;
  for (std::int32_t i = 0; i < arg; ++i) {
    auto child = snail::dispatch(tracked_closure{i});
    if (child.cancel() != snail::status::ok) return -1;
    if (child.join() == snail::status::cancelled) ++cancelled;
  }
  return cancelled;
}

// Reports that it runs (the case cancels it from that event, while it
// executes), then checks: cancel_requested() is 1 and a wait returns cancelled
// at once.
SNAIL_ENTRY(cancelled_while_running) {
  unwind_probe probe{arg};
  test_event(ev_ran, arg, 0);
  test_event(ev_saw_cancel, arg, snail::cancel_requested() ? 1 : 0);
  auto s = snail::sleep(60000);
  test_event(ev_woke, arg, static_cast<std::int32_t>(s));
  return 0;
}

// The randomized cases: waits on test.op `arg & 7` times (at least once) and
// reports every delivery.
SNAIL_ENTRY(op_sequence) {
  unwind_probe probe{arg};
  std::int32_t waits = 1 + (arg & 7);
  std::int32_t sum = 0;
  for (std::int32_t i = 0; i < waits; ++i) {
    std::int32_t v = test_op(arg * 16 + i);
    test_event(ev_op, arg, v);
    if (v < 0 || snail::cancel_requested()) break;
    sum += v;
  }
  return sum;
}
