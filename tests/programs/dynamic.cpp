// A program that loads modules at run time (docs/abi.md, "Dynamically loaded
// modules"), for tests/node/modules.test.mjs. Built with
// snail_add_program(... DYNAMIC). Reports through imports of module "test":
//   test.event(kind, a, b)       records an event in order
//   test.pause(n) -> n           a suspending host operation (suspend())
//   test.text(status, ptr, len)  a load's status and error text
// Every entry returns 0 (or a handle) when its checks passed, else the number of
// the first failed check.
#include <cstdint>
#include <string>
#include <string_view>

#include <snail/snail.hpp>

#include "frame_guard.hpp"

#define TEST_IMPORT(name) __attribute__((import_module("test"), import_name(#name)))
extern "C" void test_event(std::int32_t kind, std::int32_t a, std::int32_t b) TEST_IMPORT(event);
extern "C" std::int32_t test_pause(std::int32_t n) TEST_IMPORT(pause);
extern "C" void test_text(std::int32_t status, const char* text, std::uint32_t len) TEST_IMPORT(text);

namespace {

SNAIL_HANDLER(main_tag, std::int32_t);

// Event kinds (mirrored in tests/node/modules.test.mjs).
enum event : std::int32_t {
  ev_saw_count = 10,    // a = arg, b = the plugin's count after the load
  ev_saw_token = 11,    // a = arg, b = the plugin's token id (-1 null)
  ev_child_main = 12,   // a = arg, b = main_tag in the child
  ev_child_count = 13,  // a = arg, b = the plugin's count in the child
  ev_child_token = 14,  // a = arg, b = the plugin's token id in the child
};

using test::frame_guard;

// The hand-written plugin's exports, as function pointers.
struct plugin_api {
  std::int32_t (*count)() = nullptr;
  std::int32_t (*token)() = nullptr;
  void (*bind)(std::int32_t) = nullptr;
  std::int32_t (*wait)(std::int32_t) = nullptr;

  bool find(const snail::module& m) {
    count = m.function<std::int32_t()>("count");
    token = m.function<std::int32_t()>("token");
    bind = m.function<void(std::int32_t)>("bind");
    wait = m.function<std::int32_t(std::int32_t)>("wait");
    return count && token && bind && wait;
  }
};

}  // namespace

// Binds main_tag, waits on test.pause (the suite loads "plugin" meanwhile),
// then checks: the plugin's globals are null, main_tag is its own; binds the
// plugin's globals, suspends inside the plugin, checks both modules' bindings;
// dispatches a child that reports what it inherited.
SNAIL_ENTRY(hold) {
  snail::bind scope(main_tag, arg);
  frame_guard guard(static_cast<std::uint32_t>(arg));
  if (test_pause(arg) != arg) return 1;
  if (main_tag.get() != arg) return 2;
  if (!guard.intact(static_cast<std::uint32_t>(arg))) return 3;

  snail::module plugin;
  if (snail::load_module("plugin", plugin) != snail::status::ok) return 4;
  plugin_api api;
  if (!api.find(plugin)) return 5;
  test_event(ev_saw_count, arg, api.count());
  test_event(ev_saw_token, arg, api.token());

  api.bind(arg + 1000);
  if (api.wait(1 + arg % 4) != 0) return 6;  // suspends inside the plugin
  if (main_tag.get() != arg) return 7;
  if (api.count() != arg + 1000 || api.token() != arg + 1000) return 8;
  if (!guard.intact(static_cast<std::uint32_t>(arg))) return 9;

  auto child = snail::dispatch([arg, api] {
    if (api.wait(1) != 0) return 1;
    test_event(ev_child_main, arg, main_tag.get());
    test_event(ev_child_count, arg, api.count());
    test_event(ev_child_token, arg, api.token());
    return 0;
  });
  if (child.join() != snail::status::ok || child.result() != 0) return 10;
  if (main_tag.get() != arg || api.count() != arg + 1000 || api.token() != arg + 1000) return 11;
  return 0;
}

// Loads the C++ side module from this task, calls its function that waits,
// and checks this program's registers and frame after it returns.
SNAIL_ENTRY(use_cpp) {
  snail::bind scope(main_tag, arg);
  frame_guard guard(static_cast<std::uint32_t>(arg));
  snail::module m;
  std::string error;
  if (snail::load_module("cpp_plugin", m, &error) != snail::status::ok) {
    test_text(-1, error.data(), static_cast<std::uint32_t>(error.size()));
    return 1;
  }
  if (main_tag.get() != arg) return 2;
  auto work = m.function<std::int32_t(std::int32_t, std::int32_t)>("plugin_work");
  auto tag = m.function<std::int32_t()>("plugin_tag_value");
  auto shared = m.function<std::int32_t()>("main_tag_value");
  if (!work || !tag || !shared) return 3;
  if (tag() != 0) return 4;  // the module's handler starts null in this task
  if (shared() != arg) return 9;  // the module's main_tag is the program's
  std::int32_t r = work(arg, 6);
  if (r != arg + 6) return r < 0 ? 100 - r : 5;
  if (tag() != 0) return 6;  // plugin_work's binding ended with it
  if (main_tag.get() != arg) return 7;
  if (!guard.intact(static_cast<std::uint32_t>(arg))) return 8;
  return 0;
}

// Interleaves with the loading tasks: checks its binding and frame after every
// resume.
SNAIL_ENTRY(busy) {
  snail::bind scope(main_tag, arg);
  frame_guard guard(static_cast<std::uint32_t>(arg));
  for (std::int32_t i = 0; i < 12; ++i) {
    snail::status s = i % 2 ? snail::yield() : snail::sleep(1);
    if (s != snail::status::ok) return 1;
    if (main_tag.get() != arg) return 2;
    if (!guard.intact(static_cast<std::uint32_t>(arg))) return 3;
  }
  return 0;
}

// Loads the module named by `arg` (an index into the list below) and reports
// the status and error text through test.text. Returns the handle, or minus
// the status.
SNAIL_ENTRY(try_load) {
  static constexpr std::string_view names[] = {
      "plugin", "missing_symbol", "wrong_type", "not_abi", "garbage", "nowhere", "cpp_plugin",
  };
  if (arg < 0 || arg >= static_cast<std::int32_t>(std::size(names))) return -100;
  snail::module m;
  std::string error;
  snail::status s = snail::load_module(names[arg], m, &error);
  test_text(static_cast<std::int32_t>(s), error.data(), static_cast<std::uint32_t>(error.size()));
  return s == snail::status::ok ? m.handle() : -static_cast<std::int32_t>(s);
}

// Loads the hand-written plugin twice: the same handle both times.
SNAIL_ENTRY(load_twice) {
  (void)arg;
  snail::module a;
  snail::module b;
  if (snail::load_module("plugin", a) != snail::status::ok) return -1;
  if (snail::load_module("plugin", b) != snail::status::ok) return -2;
  if (a.handle() != b.handle()) return -3;
  if (a.function_index("count") != b.function_index("count")) return -4;
  if (a.function_index("no_such_export") != -static_cast<std::int32_t>(snail::status::not_found)) return -5;
  return a.handle();
}
