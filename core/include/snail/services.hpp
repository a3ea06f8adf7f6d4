// Host services: wait for a named event, use a key-value store, fetch a URL,
// wait for an animation frame or idle time, read and write files, read lines
// of standard input. Each call suspends only the calling task and returns a
// status; what the host does not have, or the embedder did not grant, is
// status::denied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snail/abi.h"
#include "snail/status.hpp"

namespace snail {

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

// Waits for the next event of the source the embedder registered as `name`
// (rt.events.register). `detail`, if given, receives the event's detail as
// text (JSON for structured values). invalid: no such source.
status wait_event(std::string_view name, buffer* detail = nullptr) noexcept;

// A key-value store: values are bytes, keys are strings, stores are named.
// get: not_found when the key is absent. put is atomic. delete: not_found when
// the key was absent. list: the keys that start with `prefix`, sorted.
status storage_get(std::string_view store, std::string_view key, buffer& value) noexcept;
status storage_put(std::string_view store, std::string_view key, std::string_view value) noexcept;
status storage_delete(std::string_view store, std::string_view key) noexcept;
status storage_list(std::string_view store, std::string_view prefix,
                    std::vector<std::string>& keys);

// Fetches `url` (where the embedder granted network access): the body, and the
// HTTP status code if `http_status` is given. ok means a response arrived,
// whatever its code.
status fetch(std::string_view url, buffer& body, int* http_status = nullptr) noexcept;

// Waits for the next animation frame, or for idle time (at most timeout_ms if
// above 0). denied outside browsers.
status wait_frame() noexcept;
status wait_idle(double timeout_ms = 0) noexcept;

// Reads or writes a whole file under a directory the embedder granted.
status file_read(std::string_view path, buffer& contents) noexcept;
status file_write(std::string_view path, std::string_view data) noexcept;

// The next line of standard input, without its end of line; closed at the end.
status stdin_line(buffer& line) noexcept;

}  // namespace snail
