#include "test_host.hpp"

#include <snail/abi.h>

namespace test_host {

state& host() {
  static state s;
  return s;
}

void reset() { host() = state{}; }

}  // namespace test_host

using test_host::host;

extern "C" {

int32_t snail_sleep(double ms) {
  host().slept.push_back(ms);
  return host().cancel_requested ? SNAIL_CANCELLED : SNAIL_OK;
}

int32_t snail_yield(void) {
  ++host().yields;
  return SNAIL_OK;
}

int32_t snail_join(int32_t handle) {
  host().joined.push_back(handle);
  return host().join_status;
}

int32_t snail_dispatch(int32_t entry, int32_t arg, int32_t drop) {
  if (host().dispatch_refusal > 0) return -host().dispatch_refusal;
  host().dispatches.push_back({entry, arg, drop});
  return host().next_handle++;
}

int32_t snail_result(int32_t) { return host().result_value; }

void snail_release(int32_t handle) { host().released.push_back(handle); }

int32_t snail_cancel_requested(void) { return host().cancel_requested; }

int32_t snail_cancel(int32_t handle) {
  host().cancelled.push_back(handle);
  return SNAIL_OK;
}

int32_t snail_cancel_tree(int32_t handle) {
  host().trees_cancelled.push_back(handle);
  return SNAIL_OK;
}

int32_t snail_shield_begin(double timeout_ms) {
  host().shields_begun.push_back(timeout_ms);
  if (!(timeout_ms >= 0)) return SNAIL_INVALID;
  ++host().shields_open;
  return SNAIL_OK;
}

int32_t snail_shield_end(void) {
  if (host().shields_open == 0) return SNAIL_INVALID;
  --host().shields_open;
  ++host().shields_ended;
  return SNAIL_OK;
}

}  // extern "C"
