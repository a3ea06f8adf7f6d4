// Dynamically loaded modules: load a module into the running program from a
// task, and call its exported functions. Its handler globals join the
// program's registers: null in every task until it binds them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "snail/abi.h"
#include "snail/services.hpp"
#include "snail/status.hpp"

// Everything these headers define is inline: hidden, so that a side module
// (snail_add_side_module) binds its own copies instead of importing them.
#pragma GCC visibility push(hidden)

namespace snail {

// A module loaded into the program. Copyable: modules are never unloaded.
class module {
 public:
  module() noexcept = default;
  explicit module(std::int32_t handle) noexcept : handle_(handle) {}

  explicit operator bool() const noexcept { return handle_ > 0; }
  std::int32_t handle() const noexcept { return handle_; }

  // The table index of an exported function, or a negated status: invalid
  // (an empty module) or not_found.
  std::int32_t function_index(std::string_view name) const noexcept {
    if (handle_ <= 0) return -static_cast<std::int32_t>(status::invalid);
    return snail_module_function(handle_, name.data(), static_cast<std::uint32_t>(name.size()));
  }

  // An exported function as a function pointer of type F (which must match
  // its Wasm type: a mismatch traps when it is called), or nullptr.
  template <class F>
  F* function(std::string_view name) const noexcept {
    std::int32_t index = function_index(name);
    if (index <= 0) return nullptr;
    return reinterpret_cast<F*>(static_cast<std::uintptr_t>(index));
  }

 private:
  std::int32_t handle_ = 0;
};

// Loads the module the embedder resolves `name` to (by default `name.wasm`
// beside the program), or finds it loaded already. Suspends the calling task.
// ok: `out` is the module. not_found: the embedder has no module of that name
// (the `modules` option does not name it, no such file, an HTTP error).
// failed: it does not compile, link or follow the ABI, or its initialisation
// fails. For both, `error`, if given, receives the reason, which names the
// module. cancelled: the calling task's cancellation was requested. Unless ok,
// `out` is an empty module.
inline status load_module(std::string_view name, module& out, std::string* error = nullptr) noexcept {
  std::int32_t handle = 0;
  buffer reason;
  status s = status_from_abi(snail_module_load(name.data(), static_cast<std::uint32_t>(name.size()),
                                               &handle, error ? reason.out() : nullptr));
  out = s == status::ok ? module(handle) : module();
  if (error) *error = reason.str();
  return s;
}

}  // namespace snail

#pragma GCC visibility pop
