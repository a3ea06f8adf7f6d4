#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include <snail/services.hpp>

TEST(services, as_bytes_views_the_text_without_a_copy) {
  const std::string text = "key\0value";
  const auto bytes = snail::as_bytes(text);
  EXPECT_EQ(static_cast<const void*>(bytes.data()), static_cast<const void*>(text.data()));
  EXPECT_EQ(bytes.size(), text.size());
  EXPECT_EQ(bytes[0], std::byte{'k'});
}

// Binary values are spans of bytes; text has overloads of its own, and a
// string literal picks the text overload without ambiguity. (Unevaluated:
// the imports behind them exist only in Wasm.)
TEST(services, binary_values_take_byte_spans_and_text_takes_string_views) {
  using bytes = std::span<const std::byte>;
  static_assert(std::is_same_v<decltype(snail::storage_put("s", "k", std::declval<bytes>())), snail::status>);
  static_assert(std::is_same_v<decltype(snail::storage_put("s", "k", std::declval<const std::vector<std::byte>&>())), snail::status>);
  static_assert(std::is_same_v<decltype(snail::storage_put("s", "k", "text")), snail::status>);
  static_assert(std::is_same_v<decltype(snail::file_write("p", std::declval<bytes>())), snail::status>);
  static_assert(std::is_same_v<decltype(snail::file_write("p", std::string("text"))), snail::status>);
  static_assert(!std::is_convertible_v<const char (&)[4], bytes>);
  static_assert(std::is_same_v<decltype(std::declval<const snail::buffer&>().bytes()), bytes>);
  SUCCEED();
}
