#include "snail/detail/stack_pool.hpp"

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
  for (void* slab : slabs_) source_.deallocate(slab);
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
      void* slab = source_.allocate(size * segments_per_slab_);
      if (slab == nullptr) return 0;
      slabs_.push_back(slab);
      c.next = reinterpret_cast<std::uintptr_t>(slab);
      c.end = c.next + size * segments_per_slab_;
    }
    low = c.next;
    c.next += size;
  }
  in_use_.emplace(low, size);
  return low;
}

bool stack_pool::release(std::uintptr_t low) {
  auto it = in_use_.find(low);
  if (it == in_use_.end()) return false;
  const std::size_t size = it->second;
  in_use_.erase(it);
  class_for(size).released.push_back(low);
  return true;
}

std::size_t stack_pool::size_of(std::uintptr_t low) const {
  auto it = in_use_.find(low);
  return it == in_use_.end() ? 0 : it->second;
}

std::size_t stack_pool::idle() const noexcept {
  std::size_t n = 0;
  for (const auto& c : classes_) n += c.released.size();
  return n;
}

}  // namespace snail::detail
