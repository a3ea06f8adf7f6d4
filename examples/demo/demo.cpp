// demo: a few hundred tasks under one scheduler.
//
// The root task binds a reporter handler and dispatches workers. Each worker
// binds a handler of its own (its label), dispatches grandchildren that inherit
// that binding, sleeps and yields while they run, and joins them. Every task
// checks after every wait that it still sees its own bindings and that its stack
// frames (a checksum over a buffer on its shadow stack) are intact. The root
// prints a summary; `snail-core run` adds the runtime's stats.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <snail/snail.hpp>

namespace {

struct label {
  int worker;
};

struct tally {
  int tasks = 0;
  int waits = 0;
  int checks = 0;
  int broken = 0;
};

SNAIL_HANDLER(current_label, const label*);
SNAIL_HANDLER(current_tally, tally*);

constexpr int workers = 240;
constexpr int grandchildren_per_worker = 2;

label labels[workers];

// A small deterministic generator, so runs are comparable.
std::uint32_t next_random(std::uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

// A buffer on the task's own shadow stack, filled with a pattern that depends on
// who owns it; a frame overwritten by another task shows up as a bad checksum.
struct frame_guard {
  volatile std::uint32_t words[32];
  explicit frame_guard(std::uint32_t seed) {
    for (std::uint32_t i = 0; i < 32; ++i) words[i] = seed * 2654435761u + i;
  }
  bool intact(std::uint32_t seed) const {
    for (std::uint32_t i = 0; i < 32; ++i) {
      if (words[i] != seed * 2654435761u + i) return false;
    }
    return true;
  }
};

void check(bool ok) {
  tally* t = current_tally.get();
  if (t == nullptr) return;
  ++t->checks;
  if (!ok) ++t->broken;
}

void counted_wait(snail::status s) {
  if (tally* t = current_tally.get()) ++t->waits;
  check(s == snail::status::ok);
}

int grandchild(const label* expected, std::uint32_t seed) {
  frame_guard guard(seed);
  if (tally* t = current_tally.get()) ++t->tasks;
  std::uint32_t state = seed | 1;
  for (int i = 0; i < 3; ++i) {
    counted_wait(i % 2 ? snail::yield() : snail::sleep(1 + next_random(state) % 4));
    check(current_label.get() == expected);
    check(guard.intact(seed));
  }
  return 1;
}

int worker(int index) {
  frame_guard guard(static_cast<std::uint32_t>(index) + 7);
  snail::bind mine(current_label, &labels[index]);
  if (tally* t = current_tally.get()) ++t->tasks;

  snail::task children[grandchildren_per_worker];
  for (int c = 0; c < grandchildren_per_worker; ++c) {
    const label* expected = &labels[index];
    std::uint32_t seed = static_cast<std::uint32_t>(index * 31 + c + 1);
    children[c] = snail::dispatch([expected, seed] { return grandchild(expected, seed); });
    check(static_cast<bool>(children[c]));
  }
  std::uint32_t state = static_cast<std::uint32_t>(index) * 7919u + 1u;
  counted_wait(snail::sleep(1 + next_random(state) % 20));
  check(current_label.get() == &labels[index]);
  int finished = 0;
  for (auto& child : children) {
    check(child.join() == snail::status::ok);
    finished += child.result();
  }
  check(current_label.get() == &labels[index]);
  check(guard.intact(static_cast<std::uint32_t>(index) + 7));
  return finished;
}

}  // namespace

SNAIL_ENTRY(main) {
  (void)arg;
  static tally totals;
  snail::bind scope(current_tally, &totals);
  std::printf("demo: dispatching %d workers, each with %d grandchildren\n", workers,
              grandchildren_per_worker);

  snail::task tasks[workers];
  for (int i = 0; i < workers; ++i) {
    labels[i].worker = i;
    tasks[i] = snail::dispatch([i] { return worker(i); });
  }
  int grandchildren = 0;
  int failed = 0;
  for (auto& t : tasks) {
    if (t.join() == snail::status::ok) {
      grandchildren += t.result();
    } else {
      ++failed;
    }
  }
  check(current_label.get() == nullptr);  // the root never bound a label
  std::printf("demo: %d workers and %d grandchildren finished, %d failed\n", workers - failed,
              grandchildren, failed);
  std::printf("demo: %d waits, %d binding and frame checks, %d broken\n", totals.waits,
              totals.checks, totals.broken);
  return failed == 0 && totals.broken == 0 ? 0 : 1;
}
