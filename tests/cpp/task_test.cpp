#include <gtest/gtest.h>

#include <snail/snail.hpp>

#include "test_host.hpp"

namespace {

int destroyed = 0;
int calls = 0;

struct counted {
  int value;
  counted(int v) : value(v) {}
  counted(const counted& o) : value(o.value) {}
  counted(counted&& o) noexcept : value(o.value) {}
  ~counted() { ++destroyed; }
};

class task_test : public ::testing::Test {
 protected:
  void SetUp() override {
    test_host::reset();
    destroyed = calls = 0;
  }
};

std::int32_t plain_entry(std::int32_t arg) { return arg * 2; }
void plain_drop(std::int32_t) {}

using entry_fn = std::int32_t (*)(std::int32_t);
using drop_fn = void (*)(std::int32_t);

}  // namespace

TEST_F(task_test, dispatch_passes_entry_arg_and_drop_to_the_host) {
  snail::task t = snail::dispatch(&plain_entry, 21, &plain_drop);
  ASSERT_TRUE(t);
  EXPECT_EQ(t.id(), 1);
  ASSERT_EQ(test_host::host().dispatches.size(), 1u);
  const auto& d = test_host::host().dispatches[0];
  EXPECT_EQ(d.arg, 21);
  auto entry = reinterpret_cast<entry_fn>(snail::detail::function_at(d.entry));
  auto drop = reinterpret_cast<drop_fn>(snail::detail::function_at(d.drop));
  EXPECT_EQ(entry, &plain_entry);
  EXPECT_EQ(drop, &plain_drop);
  EXPECT_EQ(entry(d.arg), 42);
}

TEST_F(task_test, dispatch_without_drop_passes_zero) {
  snail::task t = snail::dispatch(&plain_entry, 1);
  ASSERT_EQ(test_host::host().dispatches.size(), 1u);
  EXPECT_EQ(test_host::host().dispatches[0].drop, 0);
}

TEST_F(task_test, handle_is_released_exactly_once_and_moves) {
  {
    snail::task a = snail::dispatch(&plain_entry, 1);
    snail::task b = std::move(a);
    EXPECT_FALSE(a);
    EXPECT_TRUE(b);
    snail::task c;
    c = std::move(b);
    EXPECT_TRUE(test_host::host().released.empty());
  }
  ASSERT_EQ(test_host::host().released.size(), 1u);
  EXPECT_EQ(test_host::host().released[0], 1);
}

TEST_F(task_test, reset_releases_now_and_the_destructor_does_not_again) {
  snail::task a = snail::dispatch(&plain_entry, 1);
  a.reset();
  EXPECT_EQ(test_host::host().released.size(), 1u);
  a.reset();
  EXPECT_EQ(test_host::host().released.size(), 1u);
}

TEST_F(task_test, refused_dispatch_reports_the_status_and_releases_nothing) {
  test_host::host().dispatch_refusal = SNAIL_CLOSED;
  {
    snail::task t = snail::dispatch(&plain_entry, 1);
    EXPECT_FALSE(t);
    EXPECT_EQ(t.error(), snail::status::closed);
    EXPECT_EQ(t.join(), snail::status::invalid);
    EXPECT_EQ(t.result(), 0);
  }
  EXPECT_TRUE(test_host::host().released.empty());
  EXPECT_TRUE(test_host::host().joined.empty());
}

TEST_F(task_test, join_and_result_go_to_the_host_with_the_handle) {
  snail::task t = snail::dispatch(&plain_entry, 1);
  test_host::host().join_status = SNAIL_FAILED;
  EXPECT_EQ(t.join(), snail::status::failed);
  test_host::host().join_status = 77;  // out of range
  EXPECT_EQ(t.join(), snail::status::invalid);
  test_host::host().result_value = 5;
  EXPECT_EQ(t.result(), 5);
  EXPECT_EQ(test_host::host().joined, (std::vector<std::int32_t>{1, 1}));
}

TEST_F(task_test, closure_runs_once_and_is_deleted_by_its_entry) {
  snail::task t = snail::dispatch([c = counted{20}] {
    ++calls;
    return c.value + 1;
  });
  ASSERT_TRUE(t);
  int destroyed_before = destroyed;
  const auto& d = test_host::host().dispatches.at(0);
  auto entry = reinterpret_cast<entry_fn>(snail::detail::function_at(d.entry));
  EXPECT_EQ(entry(d.arg), 21);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(destroyed, destroyed_before + 1);
}

TEST_F(task_test, void_closure_returns_zero) {
  snail::task t = snail::dispatch([] { ++calls; });
  const auto& d = test_host::host().dispatches.at(0);
  auto entry = reinterpret_cast<entry_fn>(snail::detail::function_at(d.entry));
  EXPECT_EQ(entry(d.arg), 0);
  EXPECT_EQ(calls, 1);
}

TEST_F(task_test, discarded_closure_is_deleted_by_its_drop_without_running) {
  snail::task t = snail::dispatch([c = counted{1}] {
    ++calls;
    return c.value;
  });
  int destroyed_before = destroyed;
  const auto& d = test_host::host().dispatches.at(0);
  auto drop = reinterpret_cast<drop_fn>(snail::detail::function_at(d.drop));
  ASSERT_NE(drop, nullptr);
  drop(d.arg);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(destroyed, destroyed_before + 1);
}

TEST_F(task_test, refused_closure_dispatch_deletes_the_closure) {
  test_host::host().dispatch_refusal = SNAIL_CLOSED;
  int destroyed_before = destroyed;
  {
    snail::task t = snail::dispatch([c = counted{1}] { return c.value; });
    EXPECT_FALSE(t);
  }
  // The temporary lambda and the heap copy are both gone; nothing ran.
  EXPECT_GE(destroyed, destroyed_before + 2);
  EXPECT_EQ(calls, 0);
}

TEST_F(task_test, waits_map_host_values_to_statuses) {
  EXPECT_EQ(snail::sleep(5), snail::status::ok);
  EXPECT_EQ(snail::yield(), snail::status::ok);
  EXPECT_FALSE(snail::cancel_requested());
  test_host::host().cancel_requested = 1;
  EXPECT_TRUE(snail::cancel_requested());
  EXPECT_EQ(snail::sleep(1), snail::status::cancelled);
  EXPECT_EQ(test_host::host().slept, (std::vector<double>{5, 1}));
  EXPECT_EQ(test_host::host().yields, 1);
}

TEST_F(task_test, cancel_goes_to_the_host_with_the_handle_and_empty_handles_are_invalid) {
  snail::task t = snail::dispatch(&plain_entry, 1);
  EXPECT_EQ(t.cancel(), snail::status::ok);
  EXPECT_EQ(snail::cancel(t), snail::status::ok);
  EXPECT_EQ(test_host::host().cancelled, (std::vector<std::int32_t>{1, 1}));
  snail::task empty;
  EXPECT_EQ(empty.cancel(), snail::status::invalid);
  EXPECT_EQ(test_host::host().cancelled.size(), 2u);
}

TEST_F(task_test, cancel_tree_goes_to_the_host_with_the_handle_and_empty_handles_are_invalid) {
  snail::task t = snail::dispatch(&plain_entry, 1);
  EXPECT_EQ(t.cancel_tree(), snail::status::ok);
  EXPECT_EQ(snail::cancel_tree(t), snail::status::ok);
  EXPECT_EQ(test_host::host().trees_cancelled, (std::vector<std::int32_t>{1, 1}));
  EXPECT_TRUE(test_host::host().cancelled.empty());
  snail::task empty;
  EXPECT_EQ(empty.cancel_tree(), snail::status::invalid);
  EXPECT_EQ(test_host::host().trees_cancelled.size(), 2u);
}

TEST_F(task_test, a_shield_begins_with_its_timeout_and_ends_once_when_destroyed) {
  {
    snail::shield outer;
    EXPECT_EQ(outer.begun(), snail::status::ok);
    {
      snail::shield inner(250);
      EXPECT_EQ(inner.begun(), snail::status::ok);
      EXPECT_EQ(test_host::host().shields_open, 2);
    }
    EXPECT_EQ(test_host::host().shields_open, 1);
    EXPECT_EQ(test_host::host().shields_ended, 1);
  }
  EXPECT_EQ(test_host::host().shields_open, 0);
  EXPECT_EQ(test_host::host().shields_ended, 2);
  ASSERT_EQ(test_host::host().shields_begun.size(), 2u);
  EXPECT_EQ(test_host::host().shields_begun[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(test_host::host().shields_begun[1], 250);
}

TEST_F(task_test, a_shield_that_did_not_begin_ends_nothing) {
  {
    snail::shield open;
    {
      snail::shield bad(-1);
      EXPECT_EQ(bad.begun(), snail::status::invalid);
    }
    // The invalid one did not end the valid one.
    EXPECT_EQ(test_host::host().shields_open, 1);
    EXPECT_EQ(test_host::host().shields_ended, 0);
  }
  EXPECT_EQ(test_host::host().shields_ended, 1);
}
