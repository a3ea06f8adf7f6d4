// A program that uses every kind of import `snail-core inspect` sorts: two
// handler globals, the built-in waits, a host service, a user import with a
// native disposer, and WASI. It is never run; the CLI's tests inspect it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <snail/snail.hpp>

// A suspending import the embedder provides with suspend().
extern "C" std::int32_t env_lookup(std::int32_t key)
    __attribute__((import_module("env"), import_name("lookup")));

struct settings {
  int verbosity;
};

SNAIL_HANDLER(config, const settings*);
SNAIL_HANDLER(depth, std::int32_t);

// A value env.lookup delivered after the task was cancelled.
SNAIL_DISPOSER(env, lookup)(std::int32_t value) { std::free(reinterpret_cast<void*>(value)); }

SNAIL_ENTRY(main) {
  static const settings quiet{0};
  snail::bind scope(config, &quiet);
  auto child = snail::dispatch([] {
    snail::bind d(depth, depth.get() + 1);
    (void)snail::yield();
    return env_lookup(depth.get());
  });
  (void)snail::sleep(1);
  snail::buffer value;
  if (snail::storage_get("settings", "verbosity", value) == snail::status::ok) std::printf("%s\n", value.str().c_str());
  return child.join() == snail::status::ok ? child.result() : -1;
}

SNAIL_ENTRY(worker) { return arg; }
