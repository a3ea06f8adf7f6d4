// Host services: wait for a named event, use a key-value store, fetch a URL,
// wait for an animation frame or idle time, read and write files, read lines
// of standard input. Each call suspends only the calling task and returns a
// status; what the host does not have, or the embedder did not grant, is
// status::denied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snail/abi.h"
#include "snail/status.hpp"

// Everything these headers define is inline: hidden, so that a side module
// (snail_add_side_module) binds its own copies instead of importing them.
#pragma GCC visibility push(hidden)

namespace snail {

namespace detail {
inline std::uint32_t size32(std::string_view s) { return static_cast<std::uint32_t>(s.size()); }
inline std::uint32_t size32(std::span<const std::byte> s) { return static_cast<std::uint32_t>(s.size()); }
}  // namespace detail

// The bytes of a text, without a copy: what the services that take bytes
// (storage_put, file_write) are given when the value is a string.
inline std::span<const std::byte> as_bytes(std::string_view text) noexcept {
  return std::as_bytes(std::span<const char>(text.data(), text.size()));
}

// Bytes the runtime delivered into the program's memory. Owns them.
class buffer {
 public:
  buffer() noexcept = default;
  buffer(buffer&& other) noexcept : cell_(std::exchange(other.cell_, snail_out{0, 0})) {}
  buffer& operator=(buffer&& other) noexcept {
    if (this != &other) {
      reset();
      cell_ = std::exchange(other.cell_, snail_out{0, 0});
    }
    return *this;
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer() { reset(); }

  const std::uint8_t* data() const noexcept {
    return reinterpret_cast<const std::uint8_t*>(static_cast<std::uintptr_t>(cell_.ptr));
  }
  std::size_t size() const noexcept { return cell_.len; }
  bool empty() const noexcept { return cell_.len == 0; }
  // The bytes, for binary values.
  std::span<const std::byte> bytes() const noexcept {
    return {reinterpret_cast<const std::byte*>(data()), size()};
  }
  // The bytes as text.
  std::string_view view() const noexcept {
    return {reinterpret_cast<const char*>(data()), size()};
  }
  std::string str() const { return std::string(view()); }

  void reset() noexcept {
    if (cell_.ptr != 0) std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(cell_.ptr)));
    cell_ = {0, 0};
  }

  // The out cell an import fills; empties the buffer first.
  snail_out* out() noexcept {
    reset();
    return &cell_;
  }

 private:
  snail_out cell_{0, 0};
};

// The wrappers are inline, so that a dynamically loaded module calls the
// imports itself instead of importing these functions from the program.

// Waits for the next event of the source the embedder registered as `name`
// (rt.events.register). `detail`, if given, receives the event's detail as
// text (JSON for structured values). invalid: no such source.
inline status wait_event(std::string_view name, buffer* detail = nullptr) noexcept {
  return status_from_abi(
      snail_event_wait(name.data(), detail::size32(name), detail ? detail->out() : nullptr));
}

// A key-value store: values are bytes, keys are strings, stores are named.
// get: not_found when the key is absent. put is atomic. delete: not_found when
// the key was absent. list: the keys that start with `prefix`, sorted.
// A key may not contain a newline, because list receives the keys separated by
// newlines: get, put and delete refuse such a key with invalid.
inline status storage_get(std::string_view store, std::string_view key, buffer& value) noexcept {
  return status_from_abi(snail_storage_get(store.data(), detail::size32(store), key.data(),
                                           detail::size32(key), value.out()));
}

inline status storage_put(std::string_view store, std::string_view key,
                          std::span<const std::byte> value) noexcept {
  return status_from_abi(snail_storage_put(store.data(), detail::size32(store), key.data(),
                                           detail::size32(key), value.data(), detail::size32(value)));
}

// A text value: its bytes.
inline status storage_put(std::string_view store, std::string_view key,
                          std::string_view text) noexcept {
  return storage_put(store, key, as_bytes(text));
}

inline status storage_delete(std::string_view store, std::string_view key) noexcept {
  return status_from_abi(
      snail_storage_delete(store.data(), detail::size32(store), key.data(), detail::size32(key)));
}

inline status storage_list(std::string_view store, std::string_view prefix,
                           std::vector<std::string>& keys) {
  buffer joined;
  status s = status_from_abi(snail_storage_list(store.data(), detail::size32(store), prefix.data(),
                                                detail::size32(prefix), joined.out()));
  keys.clear();
  if (s != status::ok) return s;
  std::string_view rest = joined.view();
  while (!rest.empty()) {
    std::size_t nl = rest.find('\n');
    keys.emplace_back(rest.substr(0, nl));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  return s;
}

// Fetches `url` (where the embedder granted network access): the body, and the
// HTTP status code if `http_status` is given. ok means a response arrived,
// whatever its code.
inline status fetch(std::string_view url, buffer& body, int* http_status = nullptr) noexcept {
  std::int32_t code = 0;
  status s = status_from_abi(snail_fetch(url.data(), detail::size32(url), body.out(), &code));
  if (http_status) *http_status = code;
  return s;
}

// Waits for the next animation frame, or for idle time (at most timeout_ms if
// above 0). denied outside browsers.
inline status wait_frame() noexcept { return status_from_abi(snail_frame_wait()); }

inline status wait_idle(double timeout_ms = 0) noexcept {
  return status_from_abi(snail_idle_wait(timeout_ms));
}

// Reads or writes a whole file under a directory the embedder granted.
inline status file_read(std::string_view path, buffer& contents) noexcept {
  return status_from_abi(snail_file_read(path.data(), detail::size32(path), contents.out()));
}

inline status file_write(std::string_view path, std::span<const std::byte> data) noexcept {
  return status_from_abi(
      snail_file_write(path.data(), detail::size32(path), data.data(), detail::size32(data)));
}

// A text file: its bytes.
inline status file_write(std::string_view path, std::string_view text) noexcept {
  return file_write(path, as_bytes(text));
}

// The next line of standard input, without its end of line; closed at the end.
inline status stdin_line(buffer& line) noexcept { return status_from_abi(snail_stdin_line(line.out())); }

}  // namespace snail

#pragma GCC visibility pop
