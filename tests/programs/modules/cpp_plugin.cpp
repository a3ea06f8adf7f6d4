// A C++ side module (snail_add_side_module): loaded into tests/programs/dynamic.cpp
// by a task, at run time. Its own handler global, `plugin_tag`, joins the
// program's registers; `main_tag`, declared in the program too, is the
// program's register (handler names are program-wide). `plugin_work` binds
// plugin_tag and waits through the program's scheduler (sleep, yield, and a
// child task it dispatches and joins), checking after every resume that its
// binding and its frame on the task's stack are its own.
#include <cstdint>

#include <snail/snail.hpp>

#define TEST_IMPORT(name) __attribute__((import_module("test"), import_name(#name)))
extern "C" void test_event(std::int32_t kind, std::int32_t a, std::int32_t b) TEST_IMPORT(event);

namespace {

SNAIL_HANDLER(plugin_tag, std::int32_t);
SNAIL_HANDLER(main_tag, std::int32_t);  // also declared in dynamic.cpp

constexpr std::int32_t ev_plugin_init = 20;  // mirrored in tests/node/modules.test.mjs

// Runs once per instantiation: the suite counts them (one, however many tasks
// load the module at once).
const bool initialised = [] {
  test_event(ev_plugin_init, 0, 0);
  return true;
}();

std::uint32_t pattern(std::uint32_t seed, std::uint32_t i) { return seed * 2654435761u ^ (i * 40503u); }

}  // namespace

// Returns seed + rounds, or a negative check number: -1 the module's binding
// changed across a wait, -2 its frame was overwritten, -3 a child saw the wrong
// binding, -100 - status a wait failed.
extern "C" std::int32_t plugin_work(std::int32_t seed, std::int32_t rounds) {
  snail::bind scope(plugin_tag, seed);
  const std::int32_t caller_tag = main_tag.get();
  volatile std::uint32_t words[24];
  for (std::uint32_t i = 0; i < 24; ++i) words[i] = pattern(static_cast<std::uint32_t>(seed), i);
  auto intact = [&] {
    for (std::uint32_t i = 0; i < 24; ++i) {
      if (words[i] != pattern(static_cast<std::uint32_t>(seed), i)) return false;
    }
    return true;
  };
  for (std::int32_t round = 0; round < rounds; ++round) {
    snail::status s = round % 3 == 0 ? snail::sleep(1 + seed % 3) : round % 3 == 1 ? snail::yield() : snail::status::ok;
    if (round % 3 == 2) {
      // A child dispatched from the module's code copies its binding.
      auto child = snail::dispatch([] { return plugin_tag.get(); });
      s = child.join();
      if (s == snail::status::ok && child.result() != seed) return -3;
    }
    if (s != snail::status::ok) return -100 - static_cast<std::int32_t>(s);
    if (plugin_tag.get() != seed) return -1;
    if (!intact()) return -2;
    if (main_tag.get() != caller_tag) return -5;
  }
  return initialised ? seed + rounds : -4;
}

// The module's binding as the calling task sees it.
extern "C" std::int32_t plugin_tag_value() { return plugin_tag.get(); }

// The program's handler main_tag, read from the module's code.
extern "C" std::int32_t main_tag_value() { return main_tag.get(); }
