#include <gtest/gtest.h>

#include <cstdint>
#include <thread>

#include <snail/handler.hpp>

namespace {

struct logger {
  int id;
};

SNAIL_HANDLER(test_log, const logger*);
SNAIL_HANDLER(test_level, std::int32_t);

}  // namespace

TEST(handler, starts_null_and_reads_what_was_set) {
  EXPECT_EQ(test_log.get(), nullptr);
  logger a{1};
  test_log.set(&a);
  EXPECT_EQ(test_log.get(), &a);
  test_log.set(nullptr);
  EXPECT_EQ(test_log.get(), nullptr);
}

TEST(handler, bind_restores_the_previous_value_at_scope_end) {
  logger outer{1};
  logger inner{2};
  {
    snail::bind a(test_log, &outer);
    EXPECT_EQ(test_log.get(), &outer);
    EXPECT_EQ(a.previous(), nullptr);
    {
      snail::bind b(test_log, &inner);
      EXPECT_EQ(test_log.get(), &inner);
      EXPECT_EQ(b.previous(), &outer);
    }
    EXPECT_EQ(test_log.get(), &outer);
  }
  EXPECT_EQ(test_log.get(), nullptr);
}

TEST(handler, handlers_are_independent_registers) {
  logger a{1};
  snail::bind one(test_log, &a);
  snail::bind two(test_level, 7);
  EXPECT_EQ(test_log.get(), &a);
  EXPECT_EQ(test_level.get(), 7);
  {
    snail::bind three(test_level, 9);
    EXPECT_EQ(test_log.get(), &a);
    EXPECT_EQ(test_level.get(), 9);
  }
  EXPECT_EQ(test_level.get(), 7);
}

TEST(handler, names_are_the_declared_identifiers) {
  EXPECT_STREQ(decltype(test_log)::name, "test_log");
  EXPECT_STREQ(decltype(test_level)::name, "test_level");
}

TEST(handler, native_storage_is_per_thread) {
  logger a{1};
  snail::bind mine(test_log, &a);
  const logger* seen = &a;
  std::thread([&] { seen = test_log.get(); }).join();
  EXPECT_EQ(seen, nullptr);
  EXPECT_EQ(test_log.get(), &a);
}

// Handler names are program-wide: the same name declared again, in another
// namespace of the same translation unit, is the same handler.
namespace handler_test_other {
SNAIL_HANDLER(test_log, const logger*);
SNAIL_HANDLER(test_level, std::int32_t);
}  // namespace handler_test_other

TEST(handler, the_same_name_in_another_namespace_is_the_same_handler) {
  logger a{1};
  snail::bind scope(test_log, &a);
  EXPECT_EQ(handler_test_other::test_log.get(), &a);
  {
    snail::bind other(handler_test_other::test_level, 5);
    EXPECT_EQ(test_level.get(), 5);
  }
  EXPECT_EQ(test_level.get(), 0);
  EXPECT_STREQ(decltype(handler_test_other::test_log)::name, "test_log");
}
