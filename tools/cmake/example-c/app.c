/* A snail-core program in C: tasks, a handler global, waits and cancellation. */
#include <stdio.h>

#include <snail/snail.h>

struct greeting {
  const char* name;
};

/* A handler global: bound for a task and inherited by the children it dispatches. */
SNAIL_HANDLER_I32(who, const struct greeting*);

static int32_t sleeper(int32_t arg) {
  (void)arg;
  snail_status s = snail_sleep(60000); /* a minute, unless cancelled */
  printf("sleeper woke: %s\n", s == SNAIL_CANCELLED ? "cancelled" : "ok");
  /* C has no destructors: a cancelled task cleans up on its way out. */
  printf("sleeper unwound\n");
  return 7;
}

static int32_t greeter(int32_t arg) {
  (void)arg;
  if (snail_sleep(1) != SNAIL_OK) return 0; /* cancelled: unwind */
  printf("hello, %s\n", snail_get(who)->name); /* the binding it inherited */
  return 1;
}

SNAIL_ENTRY(main) {
  static const struct greeting world = {"world"};
  snail_set(who, &world);

  int32_t sleeping, greeting;
  if (snail_dispatch_task(&sleeping, sleeper, 0, NULL) != SNAIL_OK) return 1;
  if (snail_dispatch_task(&greeting, greeter, 0, NULL) != SNAIL_OK) return 1;

  if (snail_join(greeting) != SNAIL_OK) return 1;
  (void)snail_cancel(sleeping); /* ok: the handle is valid, the task may have finished */
  snail_status s = snail_join(sleeping);
  printf("sleeper joined: %s\n", s == SNAIL_CANCELLED ? "cancelled" : "not cancelled");
  int ok = snail_result(greeting) == 1 && s == SNAIL_CANCELLED;
  snail_release(greeting);
  snail_release(sleeping);
  return ok ? 0 : 1;
}
