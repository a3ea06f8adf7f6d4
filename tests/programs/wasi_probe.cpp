// Exercises the WASI subset the runtime provides: arguments, environment,
// clocks, random bytes, standard output and error, and exit.
#include <unistd.h>
#include <wasi/api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include <snail/snail.hpp>

SNAIL_ENTRY(print_args) {
  (void)arg;
  __wasi_size_t count = 0;
  __wasi_size_t size = 0;
  if (__wasi_args_sizes_get(&count, &size) != 0) return -1;
  std::vector<char*> argv(count);
  std::vector<char> buffer(size);
  if (__wasi_args_get(reinterpret_cast<std::uint8_t**>(argv.data()),
                      reinterpret_cast<std::uint8_t*>(buffer.data())) != 0) {
    return -1;
  }
  for (char* a : argv) std::printf("arg: %s\n", a);
  return static_cast<std::int32_t>(count);
}

SNAIL_ENTRY(print_env) {
  (void)arg;
  const char* greeting = std::getenv("GREETING");
  std::printf("GREETING=%s\n", greeting ? greeting : "(unset)");
  std::printf("HOME=%s\n", std::getenv("HOME") ? "(set)" : "(unset)");
  return 0;
}

SNAIL_ENTRY(clocks) {
  (void)arg;
  timespec a{}, b{}, real{};
  clock_gettime(CLOCK_MONOTONIC, &a);
  if (snail::sleep(5) != snail::status::ok) return -1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  clock_gettime(CLOCK_REALTIME, &real);
  double elapsed_ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
  int ok = elapsed_ms >= 4.0 ? 1 : 0;
  ok += real.tv_sec > 1700000000 ? 2 : 0;  // later than November 2023
  return ok;
}

SNAIL_ENTRY(random_bytes) {
  (void)arg;
  unsigned char bytes[64] = {};
  if (getentropy(bytes, sizeof bytes) != 0) return -1;
  int distinct = 0;
  bool seen[256] = {};
  for (unsigned char b : bytes) {
    if (!seen[b]) ++distinct;
    seen[b] = true;
  }
  return distinct;
}

SNAIL_ENTRY(to_stderr) {
  std::fprintf(stderr, "to stderr %d\n", arg);
  std::printf("to stdout %d\n", arg);
  std::fflush(stdout);
  return 0;
}

SNAIL_ENTRY(exit_with) {
  std::printf("exiting with %d\n", arg);
  std::exit(arg);
}
