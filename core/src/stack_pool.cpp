#include "snail/detail/stack_pool.hpp"

#include <algorithm>
#include <cstdlib>

namespace snail::detail {

namespace {

void* default_allocate(std::size_t size) {
  return std::aligned_alloc(stack_pool::stack_alignment, size);
}

void default_deallocate(void* p) { std::free(p); }

}  // namespace

stack_pool::stack_pool(memory_source source, std::size_t segments_per_slab)
    : source_(source), segments_per_slab_(segments_per_slab == 0 ? 1 : segments_per_slab) {}

stack_pool::stack_pool() : stack_pool(memory_source{&default_allocate, &default_deallocate}) {}

stack_pool::~stack_pool() {
  // The pool owns every slab, also those holding segments of unfinished tasks.
  for (const slab& s : slabs_) source_.deallocate(reinterpret_cast<void*>(s.base));
}

std::size_t stack_pool::segment_size(std::size_t requested) noexcept {
  return (requested + stack_alignment - 1) & ~(stack_alignment - 1);
}

stack_pool::size_class& stack_pool::class_for(std::size_t size) {
  for (auto& c : classes_) {
    if (c.size == size) return c;
  }
  classes_.push_back(size_class{size, {}, 0, 0});
  return classes_.back();
}

std::uintptr_t stack_pool::acquire(std::size_t requested) {
  if (requested < min_segment || requested > max_segment) return 0;
  const std::size_t size = segment_size(requested);
  size_class& c = class_for(size);
  std::uintptr_t low = 0;
  if (!c.released.empty()) {
    low = c.released.back();
    c.released.pop_back();
  } else {
    if (c.next == c.end) {
      const std::size_t count = std::max<std::size_t>(1, std::min(segments_per_slab_, max_slab_bytes / size));
      void* memory = source_.allocate(size * count);
      if (memory == nullptr) return 0;
      const auto base = reinterpret_cast<std::uintptr_t>(memory);
      const auto at = slabs_.begin() + static_cast<std::ptrdiff_t>(slabs_after(base));
      slabs_.insert(at, slab{base, base + size * count, size, std::vector<std::uint64_t>((count + 63) / 64)});
      c.next = base;
      c.end = base + size * count;
    }
    low = c.next;
    c.next += size;
  }
  slab& s = slabs_[slabs_after(low) - 1];
  const std::size_t index = (low - s.base) / s.size;
  s.in_use[index / 64] |= std::uint64_t{1} << (index % 64);
  ++in_use_;
  return low;
}

std::size_t stack_pool::slabs_after(std::uintptr_t address) const {
  const auto it = std::upper_bound(slabs_.begin(), slabs_.end(), address,
                                   [](std::uintptr_t a, const slab& s) { return a < s.base; });
  return static_cast<std::size_t>(it - slabs_.begin());
}

const stack_pool::slab* stack_pool::find(std::uintptr_t low, std::size_t& index) const {
  const std::size_t after = slabs_after(low);
  if (after == 0) return nullptr;
  const slab& s = slabs_[after - 1];
  if (low >= s.end || (low - s.base) % s.size != 0) return nullptr;
  index = (low - s.base) / s.size;
  return test(s, index) ? &s : nullptr;
}

bool stack_pool::release(std::uintptr_t low) {
  std::size_t index = 0;
  const slab* found = find(low, index);
  if (found == nullptr) return false;
  slab& s = slabs_[static_cast<std::size_t>(found - slabs_.data())];
  s.in_use[index / 64] &= ~(std::uint64_t{1} << (index % 64));
  --in_use_;
  class_for(s.size).released.push_back(low);
  return true;
}

std::size_t stack_pool::size_of(std::uintptr_t low) const {
  std::size_t index = 0;
  const slab* found = find(low, index);
  return found == nullptr ? 0 : found->size;
}

std::size_t stack_pool::idle() const noexcept {
  std::size_t n = 0;
  for (const auto& c : classes_) n += c.released.size();
  return n;
}

}  // namespace snail::detail
