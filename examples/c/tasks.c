/* tasks: the C API of snail-core (<snail/snail.h>) in one program.
 *
 * The root task binds handler globals of three value types, dispatches
 * workers that inherit them, rebinds one for a part of itself, cancels a
 * sleeper and reads every outcome as a status. Its output is deterministic:
 *
 *   snail-core run build/programs/c_tasks.wasm
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <snail/snail.h>

struct printer {
  const char* prefix;
};

SNAIL_HANDLER_I32(out, const struct printer*); /* a pointer: snail.handler.out, i32 */
SNAIL_HANDLER_I64(request, int64_t);           /* snail.handler.request, i64 */
SNAIL_HANDLER_F64(scale);                      /* snail.handler.scale, f64 */

static void say(const char* text) {
  const struct printer* p = snail_get(out);
  printf("%s%s\n", p ? p->prefix : "(unbound) ", text);
}

/* A worker's argument owns memory: the dispatcher allocates it, whoever runs
 * (the worker) or drops (the runtime, for a worker discarded before it ran)
 * the task frees it. */
struct job {
  int32_t items;
};

static int32_t worker(int32_t arg) {
  struct job* job = (struct job*)(uintptr_t)arg;
  int32_t items = job->items;
  free(job);
  if (snail_sleep(items) != SNAIL_OK) return -1; /* cancelled: unwind */
  char line[96];
  snprintf(line, sizeof line, "worker of request %lld: %d items, %.1f units", (long long)snail_get(request),
           (int)items, items * snail_get(scale));
  say(line);
  return items;
}

static void drop_job(int32_t arg) { free((void*)(uintptr_t)arg); }

static int32_t sleeper(int32_t arg) {
  (void)arg;
  snail_status s = snail_sleep(60000); /* a minute, unless cancelled */
  char line[64];
  snprintf(line, sizeof line, "sleeper woke: %s, cancel requested: %d", snail_status_name(s),
           (int)snail_cancel_requested());
  say(line);
  return 0;
}

static int32_t dispatch_job(int32_t* handle, int32_t items) {
  struct job* job = malloc(sizeof *job);
  if (!job) return SNAIL_FAILED;
  job->items = items;
  snail_status s = snail_dispatch_task(handle, worker, (int32_t)(uintptr_t)job, drop_job);
  if (s != SNAIL_OK) free(job); /* refused: the argument is still ours */
  return s;
}

SNAIL_ENTRY(main) {
  static const struct printer root = {"[root] "};
  static const struct printer quiet = {"[root, rebound] "};
  snail_set(out, &root);
  snail_set(request, 1234567890123LL);
  snail_set(scale, 0.5);
  say("hello from C");

  int32_t a, b, sleeping;
  if (dispatch_job(&a, 3) != SNAIL_OK || dispatch_job(&b, 5) != SNAIL_OK) return 1;
  if (snail_dispatch_task(&sleeping, sleeper, 0, NULL) != SNAIL_OK) return 1;

  /* Rebinding for a part of this task changes nothing for the children, which
   * copied the bindings when they were dispatched. */
  const struct printer* previous = snail_exchange(out, &quiet);
  if (snail_yield() != SNAIL_OK) return 1;
  say("rebound for a while; the children keep the printer they were dispatched with");
  snail_set(out, previous);

  snail_status sa = snail_join(a);
  snail_status sb = snail_join(b);
  (void)snail_cancel(sleeping); /* ok: the handle is valid */
  snail_status ss = snail_join(sleeping);
  char line[96];
  snprintf(line, sizeof line, "joined: %s %d, %s %d, sleeper %s", snail_status_name(sa), (int)snail_result(a),
           snail_status_name(sb), (int)snail_result(b), snail_status_name(ss));
  say(line);
  snail_release(a);
  snail_release(b);
  snail_release(sleeping);
  return sa == SNAIL_OK && sb == SNAIL_OK && ss == SNAIL_CANCELLED ? 0 : 1;
}
