// The Emscripten test program (tests/node/emscripten.test.mjs and
// tests/browser/emscripten.test.mjs): tasks of a program linked with
// Emscripten's generated JavaScript, run by the snail-core scheduler. It
// reports through module "test":
//   test.event(kind, a, b)   records an event in order
//   test.op(n) -> i32         a suspending host operation the test controls
//                            (declared with suspend(), with a JS disposer)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <snail/snail.hpp>

#define TEST_IMPORT(name) __attribute__((import_module("test"), import_name(#name)))
extern "C" void test_event(std::int32_t kind, std::int32_t a, std::int32_t b) TEST_IMPORT(event);
extern "C" std::int32_t test_op(std::int32_t n) TEST_IMPORT(op);

namespace {

// Event kinds (mirrored in tests/cases/emscripten.cases.mjs).
enum event : std::int32_t {
  ev_woke = 1,     // a = task arg, b = status of the wait
  ev_intact = 2,   // a = task arg, b = 1 if its handler binding and its stack frame survived the wait
  ev_unwound = 3,  // a = task arg: a destructor ran as the task ended
  ev_child = 4,    // a = parent arg, b = the binding the child saw after its wait
  ev_joined = 5,   // a = parent arg, b = status of the join
  ev_op = 6,       // a = task arg, b = what test.op delivered
};

struct who_t {
  std::int32_t id;
};

// A destructor that reports: it proves a cancelled task unwound.
struct unwind_probe {
  std::int32_t id;
  ~unwind_probe() { test_event(ev_unwound, id, 0); }
};

// A frame on the task's shadow stack: a buffer whose address is taken, so it
// lives in linear memory, filled with a pattern of the task's own.
struct stack_frame {
  volatile std::uint8_t bytes[512];
  explicit stack_frame(std::int32_t arg) {
    for (auto& b : bytes) b = static_cast<std::uint8_t>(arg * 37 + 11);
  }
  bool intact(std::int32_t arg) const {
    for (auto& b : bytes) {
      if (b != static_cast<std::uint8_t>(arg * 37 + 11)) return false;
    }
    return true;
  }
};

}  // namespace

SNAIL_HANDLER(who, const who_t*);

// Binds `who` to a value of its own, keeps a frame on its shadow stack, and
// sleeps three times for a time derived from `arg` (so that tasks interleave),
// checking after each resumption that its binding and its frame are intact.
SNAIL_ENTRY(sleeper) {
  const who_t self{arg};
  snail::bind scope(who, &self);
  stack_frame frame(arg);
  std::int32_t intact = 0;
  for (std::int32_t i = 0; i < 3; ++i) {
    snail::status s = snail::sleep(1 + (arg * 7 + i * 3) % 5);
    test_event(ev_woke, arg, static_cast<std::int32_t>(s));
    bool ok = who.get() == &self && frame.intact(arg);
    test_event(ev_intact, arg, ok ? 1 : 0);
    if (s != snail::status::ok) return -1;
    intact += ok ? 1 : 0;
  }
  return arg * 10 + intact;
}

// Dispatches a child that inherits the parent's binding, rebinds its own after
// the dispatch (the child keeps the copy), and joins the child.
SNAIL_ENTRY(family) {
  const who_t mine{arg};
  snail::bind scope(who, &mine);
  auto child = snail::dispatch([arg] {
    stack_frame frame(arg + 1);
    (void)snail::sleep(2);
    const who_t* seen = who.get();
    test_event(ev_child, arg, seen ? seen->id : -1);
    return (seen ? seen->id : -1) + (frame.intact(arg + 1) ? 1000 : 0);
  });
  const who_t later{arg + 500};
  snail::bind rebound(who, &later);
  (void)snail::sleep(1);
  snail::status s = child.join();
  test_event(ev_joined, arg, static_cast<std::int32_t>(s));
  if (who.get() != &later) return -2;
  return s == snail::status::ok ? child.result() : -1;
}

// Keeps a frame of 256 * (1 + arg % 10) bytes on its shadow stack across a
// wait on test.op(arg) and reports whether it survived. The tests order the
// waits so that, without a stack segment per task, a larger frame of a task
// that starts later would overwrite this one.
SNAIL_ENTRY(framed) {
  const std::size_t size = 256 * (1 + static_cast<std::size_t>(arg % 10));
  auto* bytes = static_cast<volatile std::uint8_t*>(__builtin_alloca(size));
  const auto pattern = static_cast<std::uint8_t>(arg * 37 + 11);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = pattern;
  std::int32_t v = test_op(arg);
  bool ok = true;
  for (std::size_t i = 0; i < size; ++i) ok = ok && bytes[i] == pattern;
  test_event(ev_intact, arg, ok ? 1 : 0);
  return ok ? v : -1;
}

// Sleeps for a minute: the tests cancel it. The second wait returns at once.
SNAIL_ENTRY(napper) {
  unwind_probe probe{arg};
  snail::status first = snail::sleep(60000);
  test_event(ev_woke, arg, static_cast<std::int32_t>(first));
  snail::status second = snail::sleep(10);
  test_event(ev_woke, arg, static_cast<std::int32_t>(second));
  return 5;
}

// Waits on the host operation test.op (a suspending user import).
SNAIL_ENTRY(operation) {
  unwind_probe probe{arg};
  std::int32_t v = test_op(arg);
  test_event(ev_op, arg, v);
  return v;
}

// Prints through Emscripten's own printf and standard output.
SNAIL_ENTRY(greet) {
  std::printf("hello from task %d\n", static_cast<int>(arg));
  std::fflush(stdout);
  return 0;
}

// exit() ends the calling task only, with the exit code as its result.
SNAIL_ENTRY(quit) {
  unwind_probe probe{arg};  // exit() does not unwind: this destructor never runs
  std::exit(arg);
}

// Recurses with 1 KiB frames until its stack segment overflows: the task fails
// alone.
static std::int32_t deep(std::int32_t n) {
  volatile std::uint8_t frame[1024];
  frame[n % 1024] = static_cast<std::uint8_t>(n);
  return n <= 0 ? frame[0] : deep(n - 1) + frame[n % 1024];
}

SNAIL_ENTRY(overflow) { return deep(arg); }
