#include "snail/detail/stack_pool.hpp"

#include <cstdlib>

namespace snail::detail {

namespace {

void* default_allocate(std::size_t size) {
  return std::aligned_alloc(stack_pool::stack_alignment, size);
}

void default_deallocate(void* p) { std::free(p); }

void* to_pointer(std::uintptr_t a) { return reinterpret_cast<void*>(a); }

}  // namespace

stack_pool::stack_pool(memory_source source, std::size_t idle_bytes)
    : source_(source), idle_limit_(idle_bytes) {}

stack_pool::stack_pool() : stack_pool(memory_source{&default_allocate, &default_deallocate}) {}

stack_pool::~stack_pool() {
  for (auto& list : idle_) {
    for (auto low : list.segments) source_.deallocate(to_pointer(low));
  }
  // The pool owns every segment, also those of tasks that never finished.
  for (const auto& [low, size] : in_use_) source_.deallocate(to_pointer(low));
}

std::size_t stack_pool::segment_size(std::size_t requested) noexcept {
  return (requested + stack_alignment - 1) & ~(stack_alignment - 1);
}

stack_pool::idle_list* stack_pool::list_for(std::size_t size) {
  for (auto& list : idle_) {
    if (list.size == size) return &list;
  }
  return nullptr;
}

std::uintptr_t stack_pool::acquire(std::size_t requested) {
  if (requested < min_segment || requested > max_segment) return 0;
  const std::size_t size = segment_size(requested);
  std::uintptr_t low = 0;
  if (idle_list* list = list_for(size); list && !list->segments.empty()) {
    low = list->segments.back();
    list->segments.pop_back();
    idle_bytes_ -= size;
  } else {
    low = reinterpret_cast<std::uintptr_t>(source_.allocate(size));
    if (low == 0) return 0;
  }
  in_use_.emplace(low, size);
  return low;
}

bool stack_pool::release(std::uintptr_t low) {
  auto it = in_use_.find(low);
  if (it == in_use_.end()) return false;
  const std::size_t size = it->second;
  in_use_.erase(it);
  if (idle_bytes_ + size > idle_limit_) {
    source_.deallocate(to_pointer(low));
    return true;
  }
  idle_list* list = list_for(size);
  if (list == nullptr) {
    idle_.push_back(idle_list{size, {}});
    list = &idle_.back();
  }
  list->segments.push_back(low);
  idle_bytes_ += size;
  return true;
}

std::size_t stack_pool::size_of(std::uintptr_t low) const {
  auto it = in_use_.find(low);
  return it == in_use_.end() ? 0 : it->second;
}

std::size_t stack_pool::idle() const noexcept {
  std::size_t n = 0;
  for (const auto& list : idle_) n += list.segments.size();
  return n;
}

}  // namespace snail::detail
