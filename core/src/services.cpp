#include "snail/services.hpp"

namespace snail {

namespace {

std::uint32_t size32(std::string_view s) { return static_cast<std::uint32_t>(s.size()); }

}  // namespace

status wait_event(std::string_view name, buffer* detail) noexcept {
  return status_from_abi(snail_event_wait(name.data(), size32(name), detail ? detail->out() : nullptr));
}

status storage_get(std::string_view store, std::string_view key, buffer& value) noexcept {
  return status_from_abi(
      snail_storage_get(store.data(), size32(store), key.data(), size32(key), value.out()));
}

status storage_put(std::string_view store, std::string_view key, std::string_view value) noexcept {
  return status_from_abi(snail_storage_put(store.data(), size32(store), key.data(), size32(key),
                                           value.data(), size32(value)));
}

status storage_delete(std::string_view store, std::string_view key) noexcept {
  return status_from_abi(snail_storage_delete(store.data(), size32(store), key.data(), size32(key)));
}

status storage_list(std::string_view store, std::string_view prefix,
                    std::vector<std::string>& keys) {
  buffer joined;
  status s = status_from_abi(
      snail_storage_list(store.data(), size32(store), prefix.data(), size32(prefix), joined.out()));
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

status fetch(std::string_view url, buffer& body, int* http_status) noexcept {
  std::int32_t code = 0;
  status s = status_from_abi(snail_fetch(url.data(), size32(url), body.out(), &code));
  if (http_status) *http_status = code;
  return s;
}

status wait_frame() noexcept { return status_from_abi(snail_frame_wait()); }

status wait_idle(double timeout_ms) noexcept { return status_from_abi(snail_idle_wait(timeout_ms)); }

status file_read(std::string_view path, buffer& contents) noexcept {
  return status_from_abi(snail_file_read(path.data(), size32(path), contents.out()));
}

status file_write(std::string_view path, std::string_view data) noexcept {
  return status_from_abi(
      snail_file_write(path.data(), size32(path), data.data(), size32(data)));
}

status stdin_line(buffer& line) noexcept { return status_from_abi(snail_stdin_line(line.out())); }

}  // namespace snail
