/* The C program of tests/node/c-api.test.mjs: the C API (<snail/snail.h>)
 * against the real runtime. It reports through imports of module "test":
 *   test.event(kind, a, b)        records an event in order
 *   test.note_i64(kind, value)    records an i64 (JavaScript gets a BigInt)
 *   test.note_f32(kind, value), test.note_f64(kind, value)
 *   test.note_ref(kind, value)    records an externref
 *   test.make(n) -> externref     a host object for n (a plain import)
 *   test.op(n) -> i32             a suspending operation the test controls
 *                                 (suspend(); cancelled: SNAIL_CANCELLED)
 *   test.buffer(n) -> i32         a suspending operation that resolves with a
 *                                 buffer it allocated with snail.alloc; an
 *                                 undelivered one goes to the disposer below
 *   test.read(ptr, len, n) -> i32 a suspending read that fills [ptr, ptr+len)
 *                                 when it completes
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <snail/snail.h>

void test_event(int32_t kind, int32_t a, int32_t b) SNAIL_IMPORT_FROM(test, event);
void test_note_i64(int32_t kind, int64_t value) SNAIL_IMPORT_FROM(test, note_i64);
void test_note_f32(int32_t kind, float value) SNAIL_IMPORT_FROM(test, note_f32);
void test_note_f64(int32_t kind, double value) SNAIL_IMPORT_FROM(test, note_f64);
void test_note_ref(int32_t kind, __externref_t value) SNAIL_IMPORT_FROM(test, note_ref);
__externref_t test_make(int32_t n) SNAIL_IMPORT_FROM(test, make);
int32_t test_op(int32_t n) SNAIL_IMPORT_FROM(test, op);
int32_t test_buffer(int32_t n) SNAIL_IMPORT_FROM(test, buffer);
int32_t test_read(void* buffer, uint32_t size, int32_t n) SNAIL_IMPORT_FROM(test, read);

/* Event kinds (mirrored in tests/node/c-api.test.mjs). */
enum {
  EV_I32 = 1,      /* a = who reports (task arg), b = its i32 handler */
  EV_I64 = 2,      /* note_i64: kind = EV_I64 + 100 * who */
  EV_F32 = 3,
  EV_F64 = 4,
  EV_REF = 5,
  EV_STATUS = 6,   /* a = what, b = a status */
  EV_DROPPED = 7,  /* a = the dropped argument's value */
  EV_RAN = 8,      /* a = the argument's value */
  EV_FREED = 9,    /* a = buffer freed by the native disposer */
  EV_HANDLE = 10,  /* a = what, b = the handle snail_dispatch_task left */
  EV_READ = 11,    /* a = task arg, b = checksum of what the read delivered */
};

SNAIL_HANDLER_I32(depth, int32_t);
SNAIL_HANDLER_I64(wide, int64_t);
SNAIL_HANDLER_F32(single);
SNAIL_HANDLER_F64(twice);
SNAIL_HANDLER_EXTERNREF(host);

static void report(int32_t who) {
  test_event(EV_I32, who, snail_get(depth));
  test_note_i64(EV_I64 + 100 * who, snail_get(wide));
  test_note_f32(EV_F32 + 100 * who, snail_get(single));
  test_note_f64(EV_F64 + 100 * who, snail_get(twice));
  test_note_ref(EV_REF + 100 * who, snail_get(host));
}

static void bind_all(int32_t n) {
  snail_set(depth, n);
  snail_set(wide, (int64_t)n << 33);
  snail_set(single, (float)n + 0.5f);
  snail_set(twice, n * 0.25);
  snail_set(host, test_make(n));
}

/* A child reports what it inherited, after a wait. */
static int32_t inherit_child(int32_t n) {
  if (test_op(n) != SNAIL_OK) return -1;
  report(n + 1);
  return 0;
}

/* handlers(n): reports the defaults it starts with, binds every handler, and
 * dispatches a child; rebinds its own after the dispatch, waits, and reports
 * its own values, then joins the child. Many at once: each sees its own. */
SNAIL_ENTRY(handlers) {
  report(-arg - 1);  /* a root task: the defaults */
  bind_all(arg);
  int32_t child;
  if (snail_dispatch_task(&child, inherit_child, arg * 10, NULL) != SNAIL_OK) return -1;
  bind_all(arg + 1000);
  if (test_op(arg) != SNAIL_OK) return -2;
  report(arg);
  snail_status s = snail_join(child);
  snail_release(child);
  return s;
}

/* waits(n): the built-in waits and a program's own suspending import, each
 * reported as a status; after a cancellation every wait returns at once. */
SNAIL_ENTRY(waits) {
  test_event(EV_STATUS, 1, snail_sleep(1));
  test_event(EV_STATUS, 2, snail_yield());
  test_event(EV_STATUS, 3, test_op(arg));  /* the test cancels the task here */
  test_event(EV_STATUS, 4, snail_cancel_requested());
  test_event(EV_STATUS, 5, snail_sleep(60000));
  test_event(EV_STATUS, 6, snail_yield());
  return 0;
}

static int32_t counted(int32_t n) {
  test_event(EV_RAN, n, 0);
  return n * 2;
}

static void counted_drop(int32_t n) { test_event(EV_DROPPED, n, 0); }

/* children(n): a child that runs and one cancelled before it ran (its drop
 * function is called instead), an invalid dispatch, and joins. */
SNAIL_ENTRY(children) {
  int32_t ran, dropped, invalid = -1;
  if (snail_dispatch_task(&ran, counted, arg, counted_drop) != SNAIL_OK) return -1;
  if (snail_dispatch_task(&dropped, counted, arg + 1, counted_drop) != SNAIL_OK) return -1;
  test_event(EV_STATUS, 1, snail_cancel(dropped));
  /* A table index the table does not have. */
  snail_status refused = snail_dispatch_task(&invalid, (snail_entry_fn)(uintptr_t)0x7fffff, 0, NULL);
  test_event(EV_STATUS, 2, refused);
  test_event(EV_HANDLE, 2, invalid);
  test_event(EV_STATUS, 3, snail_join(ran));
  test_event(EV_STATUS, 4, snail_result(ran));
  test_event(EV_STATUS, 5, snail_join(dropped));
  test_event(EV_STATUS, 6, snail_join(12345));  /* no such handle */
  snail_release(ran);
  snail_release(dropped);
  return 0;
}

/* The native disposer of test.buffer, in its C form. */
SNAIL_DISPOSER(test, buffer)(int32_t buffer) {
  test_event(EV_FREED, buffer, 0);
  free((void*)(uintptr_t)buffer);
}

/* buffer(n): waits for a buffer; frees a delivered one itself. */
SNAIL_ENTRY(buffer) {
  int32_t b = test_buffer(arg);
  test_event(EV_STATUS, 1, snail_cancel_requested());
  if (b > SNAIL_NOT_FOUND) free((void*)(uintptr_t)b);
  return b > SNAIL_NOT_FOUND ? 0 : b;
}

/* read(n): reads n bytes into a buffer of its own and reports their sum,
 * which the operation wrote when it completed, maybe after other tasks
 * grew the memory. */
SNAIL_ENTRY(read) {
  uint8_t* buffer = malloc((size_t)arg);
  if (!buffer) return -1;
  memset(buffer, 0, (size_t)arg);
  snail_status s = test_read(buffer, (uint32_t)arg, arg);
  uint32_t sum = 0;
  for (int32_t i = 0; i < arg; i++) sum += buffer[i];
  free(buffer);
  test_event(EV_READ, arg, (int32_t)sum);
  return s;
}

/* grow(n): allocates n MiB and keeps them, growing the memory. */
static void* volatile kept;

SNAIL_ENTRY(grow) {
  void* memory = malloc((size_t)arg << 20);
  if (!memory) return -1;
  memset(memory, 1, (size_t)arg << 20);
  kept = memory;
  return 0;
}
