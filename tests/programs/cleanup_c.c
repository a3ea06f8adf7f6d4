/* The C program of the shield and tree cases (tests/cases/cleanup.cases.mjs):
 * the C forms, snail_shield_begin/snail_shield_end and snail_cancel_tree. It
 * has the imports of tests/programs/cleanup.cpp that it uses, and reports the
 * same events (CLEANUP_EV in tests/cases/support.mjs). */
#include <math.h>
#include <stdint.h>

#include <snail/snail.h>

void test_event(int32_t kind, int32_t a, int32_t b) SNAIL_IMPORT_FROM(test, event);
int32_t test_op(int32_t n) SNAIL_IMPORT_FROM(test, op);

enum { EV_UNWOUND = 1, EV_WAIT = 2, EV_REQUESTED = 3, EV_STATUS = 4, EV_RAN = 5 };

static void requested(int32_t step) { test_event(EV_REQUESTED, step, snail_cancel_requested()); }

/* The transaction of cleanup.cpp in C: cancelled in its write, it rolls back
 * with three writes inside a shield of at most `arg` ms (none for 0), then
 * returns; C has no destructors, so it reports its unwinding itself. */
SNAIL_ENTRY(transaction) {
  int32_t written = test_op(10);
  test_event(EV_WAIT, 10, written);
  if (written == SNAIL_CANCELLED) {
    if (snail_shield_begin(arg > 0 ? (double)arg : INFINITY) != SNAIL_OK) return -1;
    requested(20);
    for (int32_t i = 1; i <= 3; ++i) test_event(EV_WAIT, 20 + i, test_op(20 + i));
    test_event(EV_STATUS, 25, snail_shield_end());
    test_event(EV_UNWOUND, 2, 0);
  }
  requested(30);
  test_event(EV_WAIT, 30, snail_sleep(60000));
  test_event(EV_UNWOUND, 1, 0);
  return 0;
}

/* Begins a shield, waits in it, and returns without ending it: the shield
 * ends with the task. */
SNAIL_ENTRY(forgets_to_end) {
  if (snail_shield_begin(60000) != SNAIL_OK) return -1;
  test_event(EV_WAIT, 1, test_op(1));
  return 0;
}

/* A tree of 1 + 3 + 9 = 13 tasks: ids 0..12, each sleeping until cancelled. */
static int32_t next_node = 0;

static int32_t tree_node(int32_t code) {
  int32_t id = code & 0xffff, depth = code >> 16;
  test_event(EV_RAN, id, depth);
  if (depth < 2) {
    for (int32_t i = 0; i < 3; ++i) {
      int32_t child;
      if (snail_dispatch_task(&child, tree_node, ((depth + 1) << 16) | ++next_node, NULL) == SNAIL_OK) {
        snail_release(child);
      }
    }
  }
  test_event(EV_WAIT, id, snail_sleep(600000));
  test_event(EV_UNWOUND, id, 0);
  return 0;
}

/* Dispatches the tree, waits on test.op, cancels the tree from C and joins its root. */
SNAIL_ENTRY(tree_from_wasm) {
  next_node = 0;
  int32_t root;
  if (snail_dispatch_task(&root, tree_node, 0, NULL) != SNAIL_OK) return -1;
  test_event(EV_WAIT, 1, test_op(1));
  test_event(EV_STATUS, 1, snail_cancel_tree(root));
  test_event(EV_STATUS, 2, snail_join(root));
  snail_release(root);
  return 0;
}
