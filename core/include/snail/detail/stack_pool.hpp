// Per-task stack segments for the shadow stack (internal).
//
// Each task that enters Wasm runs on its own segment of linear memory; its stack
// pointer and limits are registers the runtime saves and installs with the
// handler globals, so suspended tasks never overwrite each other's frames.
//
// Segments are carved from slabs of several segments, one allocation per slab:
// a segment costs no allocator header of its own, so a task whose frames live
// in Wasm locals touches no page of its segment at all. Released segments are
// reused newest first (their pages are the likely resident ones) and kept until
// the pool is destroyed: memory peaks with the number of tasks entered at once,
// rounded up to a slab. What is in use is one bit per segment in its slab's
// record, not a node per segment: a segment's bookkeeping touches no memory of
// its own either.
#pragma once

#include <cstddef>
#include <cstdint>
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
  static constexpr std::size_t default_segments_per_slab = 128;
  // A slab holds fewer segments when they are large: at most this many bytes
  // (at least one segment).
  static constexpr std::size_t max_slab_bytes = 4u << 20;

  explicit stack_pool(memory_source source, std::size_t segments_per_slab = default_segments_per_slab);
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

  std::size_t in_use() const noexcept { return in_use_; }
  // Released segments waiting for reuse.
  std::size_t idle() const noexcept;
  // Slabs allocated so far.
  std::size_t slabs() const noexcept { return slabs_.size(); }

 private:
  struct slab {
    std::uintptr_t base;
    std::uintptr_t end;  // past the last segment
    std::size_t size;    // of its segments
    std::vector<std::uint64_t> in_use;  // one bit per segment
  };
  struct size_class {
    std::size_t size;
    std::vector<std::uintptr_t> released;  // newest last
    std::uintptr_t next = 0;               // uncarved rest of the newest slab
    std::uintptr_t end = 0;
  };

  size_class& class_for(std::size_t size);
  // How many slabs start at or below `address` (the index after its slab).
  std::size_t slabs_after(std::uintptr_t address) const;
  // The slab holding `low` as the start of a segment in use, and its index
  // there; nullptr if there is none.
  const slab* find(std::uintptr_t low, std::size_t& index) const;
  static bool test(const slab& s, std::size_t index) noexcept {
    return (s.in_use[index / 64] >> (index % 64)) & 1u;
  }

  memory_source source_;
  std::size_t segments_per_slab_;
  std::vector<slab> slabs_;  // by base address
  std::size_t in_use_ = 0;
  std::vector<size_class> classes_;  // one per distinct size; usually one
};

}  // namespace snail::detail
