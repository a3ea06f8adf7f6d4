/* The C API compiled as C (C11), natively, for tests/cpp/c_api_test.cpp: the
 * functions below use <snail/snail.h> as a C program does. */
#include <snail/snail.h>

SNAIL_HANDLER_I32(probe_depth, int32_t);
SNAIL_HANDLER_I64(probe_wide, int64_t);
SNAIL_HANDLER_F32(probe_single);
SNAIL_HANDLER_F64(probe_twice);

int32_t probe_entry(int32_t arg) { return arg + 1; }
void probe_drop(int32_t arg) { (void)arg; }

snail_status probe_dispatch(int32_t* handle, int32_t arg, int with_drop) {
  return snail_dispatch_task(handle, probe_entry, arg, with_drop ? probe_drop : NULL);
}

snail_entry_fn probe_entry_pointer(void) { return probe_entry; }
snail_drop_fn probe_drop_pointer(void) { return probe_drop; }

/* Binds every handler, returns the previous i32 value. */
int32_t probe_bind(int32_t depth, int64_t wide, float single, double twice) {
  snail_set(probe_wide, wide);
  snail_set(probe_single, single);
  snail_set(probe_twice, twice);
  return snail_exchange(probe_depth, depth);
}

int32_t probe_depth(void) { return snail_get(probe_depth); }
int64_t probe_wide_value(void) { return snail_get(probe_wide); }
float probe_single_value(void) { return snail_get(probe_single); }
double probe_twice_value(void) { return snail_get(probe_twice); }

const char* probe_status_name(snail_status s) { return snail_status_name(s); }
