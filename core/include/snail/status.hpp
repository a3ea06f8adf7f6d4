// Status values returned by every snail-core wait and operation.
//
// The numbers are part of the program ABI (docs/abi.md): a wait import returns
// one of them as an i32, so a compiler that is not ours sees the same codes.
#pragma once

#include <cstdint>

// Everything these headers define is inline: hidden, so that a side module
// (snail_add_side_module) binds its own copies instead of importing them.
#pragma GCC visibility push(hidden)

namespace snail {

enum class [[nodiscard]] status : std::int32_t {
  ok = 0,         // the wait or operation completed
  cancelled = 1,  // cancellation of the calling task was requested; unwind
  failed = 2,     // the operation failed (a joined task trapped, an adapter rejected)
  invalid = 3,    // a bad argument: an unknown task handle, a negative time
  closed = 4,     // the runtime is closing and accepts no new work
  denied = 5,     // the host refused the operation (a permission is missing, or the
                  // service does not exist here)
  not_found = 6,  // what the operation looked for does not exist (a storage key)
};

// The number of status values; every value below it is defined.
inline constexpr std::int32_t status_count = 7;

// A short lower-case name for a status ("ok", "cancelled", ...), or "unknown".
constexpr const char* to_string(status s) noexcept {
  switch (s) {
    case status::ok: return "ok";
    case status::cancelled: return "cancelled";
    case status::failed: return "failed";
    case status::invalid: return "invalid";
    case status::closed: return "closed";
    case status::denied: return "denied";
    case status::not_found: return "not_found";
  }
  return "unknown";
}

// Converts a raw ABI value to a status; values outside the enum become `invalid`.
constexpr status status_from_abi(std::int32_t raw) noexcept {
  return raw >= 0 && raw < status_count ? static_cast<status>(raw) : status::invalid;
}

}  // namespace snail

#pragma GCC visibility pop
