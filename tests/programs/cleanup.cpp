// The C++ program of the shield and tree cases (tests/cases/cleanup.cases.mjs).
// It reports through module "test":
//   test.event(kind, a, b)       records an event in order
//   test.op(n) -> i32             a suspending operation the case settles by hand,
//                                 with a JavaScript disposer
//   test.op_shielded(n) -> i32    the same operation, declared with suspend()'s
//                                 `shield` option: each call runs in a shield
//   test.pause(n) -> i32          a suspending operation without a disposer (a
//                                 wait that may lend the permit), resolving to n
#include <cstdint>

#include <snail/snail.hpp>

#define TEST_IMPORT(name) __attribute__((import_module("test"), import_name(#name)))
extern "C" void test_event(std::int32_t kind, std::int32_t a, std::int32_t b) TEST_IMPORT(event);
extern "C" std::int32_t test_op(std::int32_t n) TEST_IMPORT(op);
extern "C" std::int32_t test_op_shielded(std::int32_t n) TEST_IMPORT(op_shielded);
extern "C" std::int32_t test_pause(std::int32_t n) TEST_IMPORT(pause);

namespace {

// Event kinds (mirrored in tests/cases/support.mjs, CLEANUP_EV).
enum event : std::int32_t {
  ev_unwound = 1,    // a = probe id: a destructor ran
  ev_wait = 2,       // a = what the wait was (step), b = what it returned
  ev_requested = 3,  // a = step, b = cancel_requested()
  ev_status = 4,     // a = what, b = a status
  ev_ran = 5,        // a = node id: a node of a tree started
  ev_dropped = 6,    // a = closure id: a closure destroyed without running
};

struct unwind_probe {
  std::int32_t id;
  ~unwind_probe() { test_event(ev_unwound, id, 0); }
};

void wait_event(std::int32_t step, std::int32_t value) { test_event(ev_wait, step, value); }
void wait_event(std::int32_t step, snail::status s) { test_event(ev_wait, step, static_cast<std::int32_t>(s)); }
void requested(std::int32_t step) { test_event(ev_requested, step, snail::cancel_requested() ? 1 : 0); }

// A closure that reports whether it ran or was destroyed without running.
struct tracked_closure {
  std::int32_t id;
  bool ran = false;
  explicit tracked_closure(std::int32_t i) : id(i) {}
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

}  // namespace

// A transaction cancelled in the middle of its writes: its rollback is three
// writes that must all complete, in order, inside a shield (bounded by `arg`
// ms, or none for 0); then it unwinds, its destructors running, and its
// next wait returns cancelled at once.
SNAIL_ENTRY(transaction) {
  unwind_probe whole{1};
  const double bound = arg > 0 ? arg : std::numeric_limits<double>::infinity();
  std::int32_t written = test_op(10);  // the case cancels the task here
  wait_event(10, written);
  if (written == static_cast<std::int32_t>(snail::status::cancelled)) {
    unwind_probe rollback{2};
    snail::shield cleanup(bound);
    requested(20);
    for (std::int32_t i = 1; i <= 3; ++i) wait_event(20 + i, test_op(20 + i));
    wait_event(24, snail::sleep(1));  // a built-in wait runs too
  }
  requested(30);
  wait_event(30, snail::sleep(60000));  // cancelled again: at once
  return 0;
}

// A commit shielded before any cancellation: the case cancels the task while
// it waits in the shield, and the wait delivers its result all the same. The
// write before it gets the task's own signal.
SNAIL_ENTRY(commit) {
  unwind_probe whole{1};
  wait_event(5, test_op(5));
  {
    snail::shield s;
    wait_event(10, test_op(10));
    requested(11);
    wait_event(12, snail::sleep(1));
  }
  requested(20);
  wait_event(20, test_op(20));  // at once, cancelled
  return 0;
}

// Nested shields in a cancelled task: the outer one has no deadline, the
// inner one `arg` ms, which pass while it sleeps; the outer one holds on.
SNAIL_ENTRY(nested) {
  unwind_probe whole{1};
  wait_event(10, test_op(10));  // cancelled by the case
  {
    snail::shield outer;
    wait_event(20, test_op(20));
    {
      unwind_probe inner_probe{2};
      snail::shield inner(arg);
      wait_event(30, snail::sleep(60000));  // ends when the inner deadline passes
      requested(31);
      wait_event(32, test_op(32));  // at once: the inner shield expired
    }
    requested(40);
    wait_event(40, test_op(40));  // the outer shield still holds
  }
  requested(50);
  wait_event(50, test_op(50));  // at once
  return 0;
}

// A shield inside one with a deadline of `arg` ms ends no later than the
// outer one, although it has none of its own.
SNAIL_ENTRY(nested_deadline) {
  unwind_probe whole{1};
  {
    snail::shield outer(arg);
    {
      snail::shield inner;
      wait_event(10, snail::sleep(60000));  // ends at the outer deadline
      requested(11);
    }
    requested(20);
    wait_event(20, test_op(20));  // at once: the outer shield expired too
  }
  requested(30);
  return 0;
}

// Waits on test.op inside a shield of no deadline (close() cases).
SNAIL_ENTRY(shielded_op) {
  unwind_probe whole{1};
  {
    snail::shield s;
    wait_event(10, test_op(10));
    wait_event(11, test_op(11));
  }
  wait_event(20, test_op(20));
  return 0;
}

// A shielded import in a cancelled task: it runs and delivers; the ordinary
// waits around it return cancelled.
SNAIL_ENTRY(shielded_import) {
  unwind_probe whole{1};
  wait_event(10, test_op(10));  // cancelled by the case
  requested(11);
  wait_event(20, test_op_shielded(20));
  requested(21);
  wait_event(30, test_op(30));  // at once
  return 0;
}

// In a shield, a cancelled task waits `arg` times on test.pause(i), which
// delivers i (a wait that may lend the permit, and end in Wasm).
SNAIL_ENTRY(shielded_pauses) {
  snail::shield s;
  std::int32_t good = 0;
  for (std::int32_t i = 0; i < arg; ++i) {
    if (test_pause(i) == i) ++good;
  }
  return good;
}

// Waits up to `arg` times on test.pause(i + 2), which delivers i + 2, until
// a wait delivers something else (a cancellation: 1).
SNAIL_ENTRY(pauses) {
  std::int32_t i = 0;
  while (i < arg && test_pause(i + 2) == i + 2) ++i;
  return i;
}

// Waits on test.pause(1000) in a shield of `arg` ms.
SNAIL_ENTRY(shielded_pause) {
  snail::shield s(arg);
  wait_event(1000, test_pause(1000));
  return 0;
}

// Misuse of shields and trees: statuses, no trap.
SNAIL_ENTRY(misuse) {
  test_event(ev_status, 1, snail_shield_end());  // in no shield
  test_event(ev_status, 2, snail_shield_begin(-1));
  test_event(ev_status, 3, snail_shield_begin(__builtin_nan("")));
  test_event(ev_status, 4, snail_shield_end());  // neither began one
  test_event(ev_status, 5, snail_cancel_tree(12345));
  test_event(ev_status, 6, snail_shield_begin(0));  // begins expired
  wait_event(7, snail::sleep(60000));               // so this returns at once
  requested(7);
  test_event(ev_status, 8, snail_shield_end());
  requested(8);
  return 0;
}

// --- trees ------------------------------------------------------------------

namespace {

std::int32_t next_node = 0;

// A node of a tree: id in the low 16 bits, depth above. The root dispatches 9
// children, each of those 10, and each of those 10: 1 + 9 + 90 + 900 = 1,000
// nodes at four depths. Every node then sleeps until cancelled. The handles
// go at once: the tree is reached through the links the runtime keeps.
std::int32_t tree_node(std::int32_t code) {
  const std::int32_t id = code & 0xffff;
  const std::int32_t depth = code >> 16;
  unwind_probe probe{id};
  test_event(ev_ran, id, depth);
  if (depth < 3) {
    const std::int32_t fanout = depth == 0 ? 9 : 10;
    for (std::int32_t i = 0; i < fanout; ++i) {
      static_cast<void>(snail::dispatch(&tree_node, ((depth + 1) << 16) | ++next_node));
    }
  }
  wait_event(id, snail::sleep(600000));
  return 0;
}

// A chain whose links return as soon as they dispatched the next: the last
// (id 3) sleeps, having outlived every task above it. Cancelled, it
// dispatches a closure (which is dispatched cancelled and dropped) and then,
// inside a shield, another (which runs).
std::int32_t chain_link(std::int32_t id) {
  if (id < 3) {
    static_cast<void>(snail::dispatch(&chain_link, id + 1));
    return id;
  }
  unwind_probe probe{id};
  wait_event(id, snail::sleep(600000));
  auto refused = snail::dispatch(tracked_closure{100});
  test_event(ev_status, 100, static_cast<std::int32_t>(refused.join()));
  snail::shield helpers;
  auto helper = snail::dispatch(tracked_closure{101});
  test_event(ev_status, 101, static_cast<std::int32_t>(helper.join()));
  return id;
}

}  // namespace

// The root of a tree of 1,000 tasks, for JavaScript to cancel.
SNAIL_ENTRY(tree) {
  next_node = 0;
  return tree_node(0);
}

// Dispatches a tree of 1,000 tasks, waits on test.op (the case settles it
// once every node sleeps), then cancels the tree from Wasm and joins its root.
SNAIL_ENTRY(tree_from_wasm) {
  next_node = 0;
  auto root = snail::dispatch(&tree_node, 0);
  wait_event(1, test_op(1));
  test_event(ev_status, 1, static_cast<std::int32_t>(root.cancel_tree()));
  test_event(ev_status, 2, static_cast<std::int32_t>(root.join()));
  return 0;
}

// The first link of a chain; returns at once (JavaScript cancels its tree
// after it returned).
SNAIL_ENTRY(chain) { return chain_link(1); }

// Dispatches a chain, keeps the handle of its first link, which returns;
// once test.op settles, cancels that finished link's tree from Wasm.
SNAIL_ENTRY(chain_from_wasm) {
  auto first = snail::dispatch(&chain_link, 1);
  test_event(ev_status, 1, static_cast<std::int32_t>(first.join()));  // it returned
  wait_event(2, test_op(2));
  test_event(ev_status, 3, static_cast<std::int32_t>(first.cancel_tree()));
  return 0;
}
