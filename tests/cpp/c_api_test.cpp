#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <snail/snail.hpp>

#include "test_host.hpp"

// tests/cpp/c_api_probe.c, compiled as C.
extern "C" {
snail_status probe_dispatch(int32_t* handle, int32_t arg, int with_drop);
snail_entry_fn probe_entry_pointer(void);
snail_drop_fn probe_drop_pointer(void);
int32_t probe_bind(int32_t depth, int64_t wide, float single, double twice);
int32_t probe_depth(void);
int64_t probe_wide_value(void);
float probe_single_value(void);
double probe_twice_value(void);
const char* probe_status_name(snail_status s);
}

namespace {

class c_api_test : public ::testing::Test {
 protected:
  void SetUp() override { test_host::reset(); }
};

}  // namespace

TEST_F(c_api_test, dispatch_task_passes_function_indices_and_sets_the_handle) {
  int32_t handle = -1;
  EXPECT_EQ(probe_dispatch(&handle, 41, 1), SNAIL_OK);
  EXPECT_EQ(handle, 1);
  ASSERT_EQ(test_host::host().dispatches.size(), 1u);
  const auto& d = test_host::host().dispatches[0];
  EXPECT_EQ(d.arg, 41);
  EXPECT_EQ(reinterpret_cast<snail_entry_fn>(snail::detail::function_at(d.entry)), probe_entry_pointer());
  EXPECT_EQ(reinterpret_cast<snail_drop_fn>(snail::detail::function_at(d.drop)), probe_drop_pointer());
  EXPECT_EQ(probe_entry_pointer()(1), 2);
}

TEST_F(c_api_test, dispatch_task_without_drop_passes_zero) {
  int32_t handle = 0;
  EXPECT_EQ(probe_dispatch(&handle, 0, 0), SNAIL_OK);
  EXPECT_EQ(test_host::host().dispatches.at(0).drop, 0);
}

TEST_F(c_api_test, a_refused_dispatch_is_its_status_and_leaves_no_handle) {
  test_host::host().dispatch_refusal = SNAIL_CLOSED;
  int32_t handle = 77;
  EXPECT_EQ(probe_dispatch(&handle, 1, 1), SNAIL_CLOSED);
  EXPECT_EQ(handle, 0);
  EXPECT_TRUE(test_host::host().dispatches.empty());
}

TEST_F(c_api_test, handlers_of_every_number_type_read_what_was_bound) {
  EXPECT_EQ(probe_bind(5, int64_t{1} << 40, 1.5f, -0.25), 0) << "an i32 handler starts at zero";
  EXPECT_EQ(probe_depth(), 5);
  EXPECT_EQ(probe_wide_value(), int64_t{1} << 40);
  EXPECT_EQ(probe_single_value(), 1.5f);
  EXPECT_EQ(probe_twice_value(), -0.25);
  EXPECT_EQ(probe_bind(6, 0, 0, 0), 5) << "snail_exchange returns the value it replaced";
}

TEST_F(c_api_test, status_names_match_the_cpp_names) {
  for (int32_t s = 0; s < 7; ++s) EXPECT_EQ(std::string(probe_status_name(s)), snail::to_string(static_cast<snail::status>(s)));
  EXPECT_EQ(std::string(probe_status_name(99)), "unknown");
}
