/* The snail-core program ABI as C declarations (see docs/abi.md).
 *
 * These are the raw imports a program calls, with the exact signatures in one
 * place for authors of other compilers. C programs include <snail/snail.h>,
 * which adds entries, handler globals, dispatch by function pointer and
 * disposers to these; C++ programs include <snail/snail.hpp>.
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
#define SNAIL_NOT_FOUND 6

/* A wait's status tells whether the task was cancelled and must unwind: the
 * compiler warns when one is dropped (-Wunused-result); cast it to void to
 * ignore it on purpose. */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define SNAIL_NODISCARD [[nodiscard]]
#else
#define SNAIL_NODISCARD __attribute__((warn_unused_result))
#endif

#if defined(__wasm__)
#define SNAIL_IMPORT(name) __attribute__((import_module("snail"), import_name(#name)))
#define SNAIL_EXPORT(name) __attribute__((export_name(name)))
#else
/* Native builds (the core's unit tests) link these against a test host. */
#define SNAIL_IMPORT(name)
#define SNAIL_EXPORT(name)
#endif

/* The separator of the names a program exports ("snail.entry.main"). The
 * JavaScript emcc generates declares a variable for every export, and a dot
 * cannot be part of one: a program linked with that JavaScript is compiled
 * with SNAIL_EMSCRIPTEN_JS defined, its names use "__" ("snail__entry__main"),
 * and the post-link step (tools/wasm/postlink-emscripten.mjs) exports each of
 * them again under its ABI name (docs/emscripten.md). */
#if defined(__EMSCRIPTEN__) && defined(SNAIL_EMSCRIPTEN_JS)
#define SNAIL_ABI_SEP "__"
#else
#define SNAIL_ABI_SEP "."
#endif

/* Suspends for `ms` milliseconds. Returns SNAIL_OK, SNAIL_CANCELLED, SNAIL_INVALID. */
SNAIL_NODISCARD int32_t snail_sleep(double ms) SNAIL_IMPORT(sleep);

/* Suspends: gives the permit back and requeues the task behind the work that is ready. */
SNAIL_NODISCARD int32_t snail_yield(void) SNAIL_IMPORT(yield);

/* Suspends until the task `handle` finished. SNAIL_OK: it returned (see
 * snail_result); SNAIL_FAILED: it trapped; SNAIL_CANCELLED: it was cancelled, or
 * the calling task's cancellation was requested; SNAIL_INVALID: unknown handle. */
SNAIL_NODISCARD int32_t snail_join(int32_t handle) SNAIL_IMPORT(join);

/* Dispatches a child task that runs `entry(arg)`, where `entry` is an index into
 * the exported function table `__indirect_function_table` of type (i32) -> i32.
 * `drop` is 0 or a table index of type (i32) -> () that the runtime calls with
 * `arg` instead if the task is discarded before it ever runs. The child is live
 * before this returns and starts with a copy of the caller's handler bindings.
 * Returns a handle > 0, or the negated status (-SNAIL_CLOSED, -SNAIL_INVALID). */
SNAIL_NODISCARD int32_t snail_dispatch(int32_t entry, int32_t arg, int32_t drop) SNAIL_IMPORT(dispatch);

/* The value the task `handle` returned: 0 unless it returned (snail_join gives
 * SNAIL_OK). A cancelled task has none, even if its entry returned a value. */
int32_t snail_result(int32_t handle) SNAIL_IMPORT(result);

/* Gives up the handle. The task keeps running; only the handle is gone. */
void snail_release(int32_t handle) SNAIL_IMPORT(release);

/* 1 if cancellation of the calling task was requested, else 0; inside a
 * shield, 1 only once the shield expired (its waits return SNAIL_CANCELLED).
 * Never suspends. */
int32_t snail_cancel_requested(void) SNAIL_IMPORT(cancel_requested);

/* Requests cancellation of the task `handle` (see docs/abi.md, "Cancellation").
 * SNAIL_OK, also for a task that has already finished; SNAIL_INVALID for an
 * unknown handle. Never suspends. */
SNAIL_NODISCARD int32_t snail_cancel(int32_t handle) SNAIL_IMPORT(cancel);

/* Requests cancellation of the task `handle` and of its tree: every task it
 * dispatched, the tasks those dispatched, and so on, also through tasks that
 * have finished; each dispatches its later children cancelled (docs/abi.md,
 * "Cancelling a tree"). SNAIL_OK, also when they have all finished;
 * SNAIL_INVALID for an unknown handle. Never suspends. */
SNAIL_NODISCARD int32_t snail_cancel_tree(int32_t handle) SNAIL_IMPORT(cancel_tree);

/* Begins a shield (docs/abi.md, "Shields"): until the matching
 * snail_shield_end, the calling task's waits run as though its cancellation
 * had not been requested, and snail_cancel_requested returns 0, for at most
 * `timeout_ms` milliseconds (INFINITY: no deadline; a shield inside another
 * ends no later than the outer one). Once the deadline passed, or the runtime's
 * close() gave up at its timeout, the waits inside return SNAIL_CANCELLED.
 * SNAIL_OK, or SNAIL_INVALID for a negative or NaN timeout (no shield began).
 * Never suspends. */
SNAIL_NODISCARD int32_t snail_shield_begin(double timeout_ms) SNAIL_IMPORT(shield_begin);

/* Ends the calling task's innermost shield. SNAIL_OK, or SNAIL_INVALID when
 * the task is in no shield. Never suspends. */
int32_t snail_shield_end(void) SNAIL_IMPORT(shield_end);

/* Host services (docs/abi.md, "Host services"). Every one suspends and returns
 * a status. Strings and bytes are (pointer, length) pairs; `out`, when not 0,
 * is the address of a snail_out cell that receives a value the runtime
 * allocated with the program's `snail.alloc` export (the program frees it). */
typedef struct snail_out {
  uint32_t ptr;
  uint32_t len;
} snail_out;

SNAIL_NODISCARD int32_t snail_event_wait(const char* name, uint32_t name_len, snail_out* out) SNAIL_IMPORT(event_wait);
SNAIL_NODISCARD int32_t snail_storage_get(const char* store, uint32_t store_len, const char* key, uint32_t key_len,
                          snail_out* out) SNAIL_IMPORT(storage_get);
SNAIL_NODISCARD int32_t snail_storage_put(const char* store, uint32_t store_len, const char* key, uint32_t key_len,
                          const void* value, uint32_t value_len) SNAIL_IMPORT(storage_put);
SNAIL_NODISCARD int32_t snail_storage_delete(const char* store, uint32_t store_len, const char* key,
                             uint32_t key_len) SNAIL_IMPORT(storage_delete);
SNAIL_NODISCARD int32_t snail_storage_list(const char* store, uint32_t store_len, const char* prefix,
                           uint32_t prefix_len, snail_out* out) SNAIL_IMPORT(storage_list);
SNAIL_NODISCARD int32_t snail_fetch(const char* url, uint32_t url_len, snail_out* body, int32_t* http_status)
    SNAIL_IMPORT(fetch);
SNAIL_NODISCARD int32_t snail_frame_wait(void) SNAIL_IMPORT(frame_wait);
SNAIL_NODISCARD int32_t snail_idle_wait(double timeout_ms) SNAIL_IMPORT(idle_wait);
SNAIL_NODISCARD int32_t snail_file_read(const char* path, uint32_t path_len, snail_out* out) SNAIL_IMPORT(file_read);
SNAIL_NODISCARD int32_t snail_file_write(const char* path, uint32_t path_len, const void* data, uint32_t data_len)
    SNAIL_IMPORT(file_write);
SNAIL_NODISCARD int32_t snail_stdin_line(snail_out* out) SNAIL_IMPORT(stdin_line);

/* Dynamically loaded modules (docs/abi.md, "Dynamically loaded modules").
 * module_load suspends: it loads the module the embedder resolves `name` to (or
 * finds it loaded already) and writes its handle at `handle`; on failure
 * (SNAIL_NOT_FOUND: no module of that name; SNAIL_FAILED: it does not compile,
 * link, follow the ABI or initialise) the reason, naming the module, goes to
 * the out cell `error` (if not 0).
 * module_function returns the table index of an exported function of a loaded
 * module, or -SNAIL_INVALID (unknown handle) or -SNAIL_NOT_FOUND. */
SNAIL_NODISCARD int32_t snail_module_load(const char* name, uint32_t name_len, int32_t* handle, snail_out* error)
    SNAIL_IMPORT(module_load);
int32_t snail_module_function(int32_t handle, const char* name, uint32_t name_len)
    SNAIL_IMPORT(module_function);

#ifdef __cplusplus
}
#endif

#endif /* SNAIL_ABI_H */
