#include <gtest/gtest.h>

#include <set>
#include <string>

#include <snail/abi.h>
#include <snail/status.hpp>

TEST(status, abi_values_match_the_c_header) {
  EXPECT_EQ(static_cast<int>(snail::status::ok), SNAIL_OK);
  EXPECT_EQ(static_cast<int>(snail::status::cancelled), SNAIL_CANCELLED);
  EXPECT_EQ(static_cast<int>(snail::status::failed), SNAIL_FAILED);
  EXPECT_EQ(static_cast<int>(snail::status::invalid), SNAIL_INVALID);
  EXPECT_EQ(static_cast<int>(snail::status::closed), SNAIL_CLOSED);
  EXPECT_EQ(static_cast<int>(snail::status::denied), SNAIL_DENIED);
  EXPECT_EQ(static_cast<int>(snail::status::not_found), SNAIL_NOT_FOUND);
  EXPECT_EQ(snail::status_count, 7);
}

TEST(status, to_string_names_every_value_uniquely) {
  std::set<std::string> names;
  for (int i = 0; i < snail::status_count; ++i) {
    std::string name = snail::to_string(static_cast<snail::status>(i));
    EXPECT_NE(name, "unknown") << "status " << i;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(snail::status_count));
  EXPECT_STREQ(snail::to_string(snail::status::cancelled), "cancelled");
  EXPECT_STREQ(snail::to_string(static_cast<snail::status>(99)), "unknown");
}

TEST(status, from_abi_maps_out_of_range_values_to_invalid) {
  EXPECT_EQ(snail::status_from_abi(0), snail::status::ok);
  EXPECT_EQ(snail::status_from_abi(1), snail::status::cancelled);
  EXPECT_EQ(snail::status_from_abi(5), snail::status::denied);
  EXPECT_EQ(snail::status_from_abi(6), snail::status::not_found);
  EXPECT_EQ(snail::status_from_abi(7), snail::status::invalid);
  EXPECT_EQ(snail::status_from_abi(-1), snail::status::invalid);
  EXPECT_EQ(snail::status_from_abi(1 << 30), snail::status::invalid);
}
