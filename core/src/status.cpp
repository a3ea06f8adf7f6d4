#include "snail/status.hpp"

namespace snail {

const char* to_string(status s) noexcept {
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

}  // namespace snail
