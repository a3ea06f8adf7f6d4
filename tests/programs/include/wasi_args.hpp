// The program's argv through WASI, for the test programs whose suites pass
// URLs, paths and names as arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <wasi/api.h>

namespace test {

inline std::vector<std::string> argv_strings() {
  __wasi_size_t count = 0;
  __wasi_size_t size = 0;
  if (__wasi_args_sizes_get(&count, &size) != 0) return {};
  std::vector<char*> argv(count);
  std::vector<char> buffer(size);
  if (__wasi_args_get(reinterpret_cast<std::uint8_t**>(argv.data()),
                      reinterpret_cast<std::uint8_t*>(buffer.data())) != 0) {
    return {};
  }
  return {argv.begin(), argv.end()};
}

// argv[i], or "" when there is no such argument.
inline std::string arg_at(std::int32_t i) {
  auto args = argv_strings();
  return i >= 0 && static_cast<std::size_t>(i) < args.size() ? args[static_cast<std::size_t>(i)] : std::string();
}

}  // namespace test
