// The core's exports: the allocator host services deliver values with, and the
// stack exports the host calls to give each task its own shadow-stack segment.
// The waits, dispatch and task handles are inline wrappers of the ABI's imports
// (<snail/task.hpp>, <snail/snail.h>); native builds (the unit tests) also get
// the registries that stand in for the function table and wasm32 pointers.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "snail/detail/stack_pool.hpp"
#include "snail/snail.hpp"

namespace snail {

namespace {

detail::stack_pool& stacks() {
  // Constructed on first use, from the host's first acquire: it lives on the
  // neutral stack like every call the host makes between tasks.
  static detail::stack_pool pool;
  return pool;
}

}  // namespace

namespace detail {

#if !defined(__wasm__)

// Native builds (unit tests) have no function table; a registry stands in so that
// a test host can call what was dispatched.
namespace {
std::vector<void (*)()>& function_registry() {
  static std::vector<void (*)()> registry{nullptr};
  return registry;
}
}  // namespace

std::int32_t function_index(void (*fn)()) noexcept {
  auto& registry = function_registry();
  for (std::size_t i = 1; i < registry.size(); ++i) {
    if (registry[i] == fn) return static_cast<std::int32_t>(i);
  }
  registry.push_back(fn);
  return static_cast<std::int32_t>(registry.size() - 1);
}

void (*function_at(std::int32_t index) noexcept)() {
  auto& registry = function_registry();
  return index > 0 && static_cast<std::size_t>(index) < registry.size() ? registry[index] : nullptr;
}

namespace {
std::vector<void*>& pointer_registry() {
  static std::vector<void*> registry{nullptr};
  return registry;
}
}  // namespace

std::int32_t pointer_to_abi(void* p) noexcept {
  if (p == nullptr) return 0;
  auto& registry = pointer_registry();
  registry.push_back(p);
  return static_cast<std::int32_t>(registry.size() - 1);
}

void* pointer_from_abi(std::int32_t raw) noexcept {
  auto& registry = pointer_registry();
  return raw > 0 && static_cast<std::size_t>(raw) < registry.size() ? registry[raw] : nullptr;
}

#endif

}  // namespace detail

}  // namespace snail

#if !defined(__wasm__)
// The C API's function-pointer dispatch (<snail/snail.h>), natively.
extern "C" std::int32_t snail_detail_function_index(void (*fn)(void)) {
  return snail::detail::function_index(fn);
}
#endif

// The allocator host services deliver values with (docs/abi.md, "Host services").
extern "C" SNAIL_EXPORT("snail" SNAIL_ABI_SEP "alloc") std::uint32_t snail_alloc(std::uint32_t size) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(std::malloc(size)));
}

extern "C" SNAIL_EXPORT("snail" SNAIL_ABI_SEP "free") void snail_free(std::uint32_t ptr) {
  std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr)));
}

// Stack registers (docs/abi.md, "Stack registers"). The host acquires a segment
// when a task first enters Wasm and releases it when the task has finished.
extern "C" SNAIL_EXPORT("snail" SNAIL_ABI_SEP "stack" SNAIL_ABI_SEP "acquire") std::uint32_t
snail_stack_acquire(std::uint32_t size) {
  return static_cast<std::uint32_t>(snail::stacks().acquire(size));
}

extern "C" SNAIL_EXPORT("snail" SNAIL_ABI_SEP "stack" SNAIL_ABI_SEP "release") std::int32_t
snail_stack_release(std::uint32_t low) {
  return snail::stacks().release(low) ? SNAIL_OK : SNAIL_INVALID;
}
