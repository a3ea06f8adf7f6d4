/* The snail-core program ABI as C declarations (see docs/abi.md).
 *
 * These are the raw imports a program calls. C++ programs normally use the
 * wrappers in <snail/snail.hpp>; this header exists so that C code, and authors
 * of other compilers, can see the exact signatures in one place.
 *
 * Imports marked "suspends" are suspending imports: the runtime saves the task's
 * registers, releases the execution permit, and the call returns only when the
 * task holds the permit again, with its registers installed.
 */
#ifndef SNAIL_ABI_H
#define SNAIL_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SNAIL_ABI_VERSION 1

/* Status values (also snail::status). */
#define SNAIL_OK 0
#define SNAIL_CANCELLED 1
#define SNAIL_FAILED 2
#define SNAIL_INVALID 3
#define SNAIL_CLOSED 4
#define SNAIL_DENIED 5

#if defined(__wasm__)
#define SNAIL_IMPORT(name) __attribute__((import_module("snail"), import_name(#name)))
#define SNAIL_EXPORT(name) __attribute__((export_name(name)))
#else
/* Native builds (the core's unit tests) link these against a test host. */
#define SNAIL_IMPORT(name)
#define SNAIL_EXPORT(name)
#endif

/* Suspends for `ms` milliseconds. Returns SNAIL_OK, SNAIL_CANCELLED, SNAIL_INVALID. */
int32_t snail_sleep(double ms) SNAIL_IMPORT(sleep);

/* Suspends: gives the permit back and requeues the task behind the work that is ready. */
int32_t snail_yield(void) SNAIL_IMPORT(yield);

/* Suspends until the task `handle` finished. SNAIL_OK: it returned (see
 * snail_result); SNAIL_FAILED: it trapped; SNAIL_CANCELLED: it was cancelled, or
 * the calling task's cancellation was requested; SNAIL_INVALID: unknown handle. */
int32_t snail_join(int32_t handle) SNAIL_IMPORT(join);

/* Dispatches a child task that runs `entry(arg)`, where `entry` is an index into
 * the exported function table `__indirect_function_table` of type (i32) -> i32.
 * `drop` is 0 or a table index of type (i32) -> () that the runtime calls with
 * `arg` instead if the task is discarded before it ever runs. The child is live
 * before this returns and starts with a copy of the caller's handler bindings.
 * Returns a handle > 0, or the negated status (-SNAIL_CLOSED, -SNAIL_INVALID). */
int32_t snail_dispatch(int32_t entry, int32_t arg, int32_t drop) SNAIL_IMPORT(dispatch);

/* The value the task `handle` returned (0 if it has not returned). */
int32_t snail_result(int32_t handle) SNAIL_IMPORT(result);

/* Gives up the handle. The task keeps running; only the handle is gone. */
void snail_release(int32_t handle) SNAIL_IMPORT(release);

/* 1 if cancellation of the calling task was requested, else 0. Never suspends. */
int32_t snail_cancel_requested(void) SNAIL_IMPORT(cancel_requested);

/* Requests cancellation of the task `handle` (see docs/abi.md, "Cancellation").
 * SNAIL_OK, also for a task that has already finished; SNAIL_INVALID for an
 * unknown handle. Never suspends. */
int32_t snail_cancel(int32_t handle) SNAIL_IMPORT(cancel);

#ifdef __cplusplus
}
#endif

#endif /* SNAIL_ABI_H */
