// Per-task stack segments for the shadow stack (internal).
//
// Each task that enters Wasm runs on its own segment of linear memory; its stack
// pointer and limits are registers the runtime saves and installs with the
// handler globals, so suspended tasks never overwrite each other's frames. The
// pool keeps released segments for reuse, newest first, so a task that starts
// after another finished touches memory that is already resident.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace snail::detail {

class stack_pool {
 public:
  // How memory is obtained; replaceable for tests. `allocate` returns memory
  // aligned to `stack_alignment` or nullptr.
  struct memory_source {
    void* (*allocate)(std::size_t size) = nullptr;
    void (*deallocate)(void* p) = nullptr;
  };

  static constexpr std::size_t stack_alignment = 16;
  static constexpr std::size_t min_segment = 1024;
  static constexpr std::size_t max_segment = 64u << 20;

  // Keeps at most `idle_bytes` of released segments for reuse.
  explicit stack_pool(memory_source source, std::size_t idle_bytes = 4u << 20);
  stack_pool();
  ~stack_pool();
  stack_pool(const stack_pool&) = delete;
  stack_pool& operator=(const stack_pool&) = delete;

  // The size a request is served with: rounded up to the alignment.
  static std::size_t segment_size(std::size_t requested) noexcept;

  // Returns the lowest address of a segment of at least `size` bytes, or 0 when
  // the size is out of range or memory is exhausted.
  std::uintptr_t acquire(std::size_t size);

  // Returns a segment; false if `low` is not a segment this pool handed out and
  // has not been released yet (a double release or a foreign address).
  bool release(std::uintptr_t low);

  // The size of a segment in use, or 0.
  std::size_t size_of(std::uintptr_t low) const;

  std::size_t in_use() const noexcept { return in_use_.size(); }
  std::size_t idle() const noexcept;
  std::size_t idle_bytes() const noexcept { return idle_bytes_; }

 private:
  struct idle_list {
    std::size_t size;
    std::vector<std::uintptr_t> segments;  // newest last
  };

  idle_list* list_for(std::size_t size);

  memory_source source_;
  std::size_t idle_limit_;
  std::size_t idle_bytes_ = 0;
  std::unordered_map<std::uintptr_t, std::size_t> in_use_;
  std::vector<idle_list> idle_;  // one list per distinct size; usually one
};

}  // namespace snail::detail
