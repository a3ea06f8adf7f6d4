#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <vector>

#include <snail/detail/stack_pool.hpp>

using snail::detail::stack_pool;

namespace {

int allocations = 0;
int deallocations = 0;
bool fail_next = false;

void* counting_allocate(std::size_t size) {
  if (fail_next) {
    fail_next = false;
    return nullptr;
  }
  ++allocations;
  return std::aligned_alloc(stack_pool::stack_alignment, size);
}

void counting_deallocate(void* p) {
  ++deallocations;
  std::free(p);
}

class stack_pool_test : public ::testing::Test {
 protected:
  void SetUp() override {
    allocations = deallocations = 0;
    fail_next = false;
  }
  stack_pool::memory_source source{&counting_allocate, &counting_deallocate};
};

}  // namespace

TEST_F(stack_pool_test, segments_are_aligned_distinct_and_tracked) {
  stack_pool pool(source);
  std::set<std::uintptr_t> seen;
  for (int i = 0; i < 8; ++i) {
    std::uintptr_t low = pool.acquire(4096);
    ASSERT_NE(low, 0u);
    EXPECT_EQ(low % stack_pool::stack_alignment, 0u);
    EXPECT_TRUE(seen.insert(low).second) << "segment handed out twice";
    EXPECT_EQ(pool.size_of(low), 4096u);
  }
  EXPECT_EQ(pool.in_use(), 8u);
  EXPECT_EQ(allocations, 8);
}

TEST_F(stack_pool_test, sizes_round_up_to_the_alignment) {
  EXPECT_EQ(stack_pool::segment_size(1025), 1040u);
  EXPECT_EQ(stack_pool::segment_size(4096), 4096u);
  stack_pool pool(source);
  std::uintptr_t low = pool.acquire(1025);
  EXPECT_EQ(pool.size_of(low), 1040u);
}

TEST_F(stack_pool_test, released_segments_are_reused_newest_first) {
  stack_pool pool(source);
  std::uintptr_t a = pool.acquire(4096);
  std::uintptr_t b = pool.acquire(4096);
  ASSERT_TRUE(pool.release(a));
  ASSERT_TRUE(pool.release(b));
  EXPECT_EQ(pool.idle(), 2u);
  EXPECT_EQ(pool.acquire(4096), b);
  EXPECT_EQ(pool.acquire(4096), a);
  EXPECT_EQ(allocations, 2);
  EXPECT_EQ(pool.idle(), 0u);
}

TEST_F(stack_pool_test, segments_of_another_size_are_not_reused) {
  stack_pool pool(source);
  std::uintptr_t a = pool.acquire(4096);
  ASSERT_TRUE(pool.release(a));
  std::uintptr_t b = pool.acquire(8192);
  EXPECT_NE(b, a);
  EXPECT_EQ(pool.idle(), 1u);
  EXPECT_EQ(pool.acquire(4096), a);
}

TEST_F(stack_pool_test, double_and_foreign_releases_are_refused) {
  stack_pool pool(source);
  std::uintptr_t a = pool.acquire(4096);
  EXPECT_TRUE(pool.release(a));
  EXPECT_FALSE(pool.release(a));
  EXPECT_FALSE(pool.release(a + 16));
  EXPECT_FALSE(pool.release(0));
  EXPECT_EQ(pool.in_use(), 0u);
}

TEST_F(stack_pool_test, idle_memory_is_bounded) {
  stack_pool pool(source, 2 * 4096);
  std::vector<std::uintptr_t> segments;
  for (int i = 0; i < 4; ++i) segments.push_back(pool.acquire(4096));
  for (auto s : segments) ASSERT_TRUE(pool.release(s));
  EXPECT_EQ(pool.idle(), 2u);
  EXPECT_EQ(pool.idle_bytes(), 2u * 4096u);
  EXPECT_EQ(deallocations, 2);
}

TEST_F(stack_pool_test, out_of_range_sizes_and_exhaustion_give_zero) {
  stack_pool pool(source);
  EXPECT_EQ(pool.acquire(0), 0u);
  EXPECT_EQ(pool.acquire(stack_pool::min_segment - 1), 0u);
  EXPECT_EQ(pool.acquire(stack_pool::max_segment + 1), 0u);
  fail_next = true;
  EXPECT_EQ(pool.acquire(4096), 0u);
  EXPECT_EQ(pool.in_use(), 0u);
  EXPECT_NE(pool.acquire(4096), 0u);
}

TEST_F(stack_pool_test, destruction_frees_idle_and_used_segments) {
  {
    stack_pool pool(source);
    pool.release(pool.acquire(4096));
    pool.release(pool.acquire(8192));
    pool.acquire(2048);
  }
  EXPECT_EQ(allocations, 3);
  EXPECT_EQ(deallocations, 3);
}
