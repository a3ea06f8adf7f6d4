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
  stack_pool pool(source, 4);
  std::set<std::uintptr_t> seen;
  for (int i = 0; i < 10; ++i) {
    std::uintptr_t low = pool.acquire(4096);
    ASSERT_NE(low, 0u);
    EXPECT_EQ(low % stack_pool::stack_alignment, 0u);
    EXPECT_TRUE(seen.insert(low).second) << "segment handed out twice";
    EXPECT_EQ(pool.size_of(low), 4096u);
  }
  EXPECT_EQ(pool.in_use(), 10u);
}

TEST_F(stack_pool_test, segments_are_carved_from_slabs_one_allocation_per_slab) {
  stack_pool pool(source, 4);
  std::vector<std::uintptr_t> lows;
  for (int i = 0; i < 9; ++i) lows.push_back(pool.acquire(4096));
  EXPECT_EQ(allocations, 3) << "9 segments need 3 slabs of 4";
  EXPECT_EQ(pool.slabs(), 3u);
  // Within a slab the segments are adjacent and do not overlap.
  EXPECT_EQ(lows[1] - lows[0], 4096u);
  EXPECT_EQ(lows[3] - lows[2], 4096u);
}

TEST_F(stack_pool_test, sizes_round_up_to_the_alignment) {
  EXPECT_EQ(stack_pool::segment_size(1025), 1040u);
  EXPECT_EQ(stack_pool::segment_size(4096), 4096u);
  stack_pool pool(source);
  std::uintptr_t low = pool.acquire(1025);
  EXPECT_EQ(pool.size_of(low), 1040u);
}

TEST_F(stack_pool_test, released_segments_are_reused_newest_first_without_allocating) {
  stack_pool pool(source, 2);
  std::uintptr_t a = pool.acquire(4096);
  std::uintptr_t b = pool.acquire(4096);
  ASSERT_TRUE(pool.release(a));
  ASSERT_TRUE(pool.release(b));
  EXPECT_EQ(pool.idle(), 2u);
  EXPECT_EQ(pool.acquire(4096), b);
  EXPECT_EQ(pool.acquire(4096), a);
  EXPECT_EQ(allocations, 1);
  EXPECT_EQ(pool.idle(), 0u);
}

TEST_F(stack_pool_test, segments_of_another_size_come_from_their_own_slabs) {
  stack_pool pool(source, 2);
  std::uintptr_t a = pool.acquire(4096);
  ASSERT_TRUE(pool.release(a));
  std::uintptr_t b = pool.acquire(8192);
  EXPECT_NE(b, a);
  EXPECT_EQ(pool.size_of(b), 8192u);
  EXPECT_EQ(pool.idle(), 1u);
  EXPECT_EQ(pool.acquire(4096), a);
  EXPECT_EQ(allocations, 2);
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

TEST_F(stack_pool_test, out_of_range_sizes_and_exhaustion_give_zero) {
  stack_pool pool(source, 1);
  EXPECT_EQ(pool.acquire(0), 0u);
  EXPECT_EQ(pool.acquire(stack_pool::min_segment - 1), 0u);
  EXPECT_EQ(pool.acquire(stack_pool::max_segment + 1), 0u);
  fail_next = true;
  EXPECT_EQ(pool.acquire(4096), 0u);
  EXPECT_EQ(pool.in_use(), 0u);
  EXPECT_NE(pool.acquire(4096), 0u);
}

TEST_F(stack_pool_test, destruction_frees_every_slab) {
  {
    stack_pool pool(source, 2);
    pool.release(pool.acquire(4096));
    pool.acquire(8192);
    pool.acquire(2048);
    pool.acquire(2048);
    pool.acquire(2048);
  }
  EXPECT_EQ(allocations, 4);
  EXPECT_EQ(deallocations, 4);
}

TEST_F(stack_pool_test, releases_inside_a_slab_must_name_a_segment_in_use) {
  stack_pool pool(source, 70);  // more segments than one word of in-use bits
  std::vector<std::uintptr_t> lows;
  for (int i = 0; i < 70; ++i) lows.push_back(pool.acquire(2048));
  EXPECT_EQ(pool.slabs(), 1u);
  EXPECT_EQ(pool.in_use(), 70u);
  EXPECT_FALSE(pool.release(lows[3] + 16)) << "inside a segment, not its start";
  EXPECT_FALSE(pool.release(lows[69] + 2048)) << "past the slab's end";
  EXPECT_TRUE(pool.release(lows[66]));
  EXPECT_EQ(pool.size_of(lows[66]), 0u);
  EXPECT_EQ(pool.size_of(lows[65]), 2048u);
  EXPECT_FALSE(pool.release(lows[66])) << "released twice";
  EXPECT_TRUE(pool.release(lows[0]));
  EXPECT_EQ(pool.in_use(), 68u);
  EXPECT_EQ(pool.acquire(2048), lows[0]);
  EXPECT_EQ(pool.size_of(lows[0]), 2048u);
  EXPECT_EQ(pool.in_use(), 69u);
}

TEST_F(stack_pool_test, large_segments_come_in_smaller_slabs) {
  stack_pool pool(source);
  const std::size_t big = stack_pool::max_slab_bytes / 2;
  std::uintptr_t a = pool.acquire(big);
  std::uintptr_t b = pool.acquire(big);
  EXPECT_EQ(b - a, big) << "two segments share the first slab";
  EXPECT_EQ(allocations, 1);
  pool.acquire(big);
  EXPECT_EQ(allocations, 2) << "a slab is at most max_slab_bytes";
  EXPECT_EQ(pool.acquire(stack_pool::max_slab_bytes * 2) != 0, true) << "a segment larger than a slab still gets one of its own";
  EXPECT_EQ(allocations, 3);
}
