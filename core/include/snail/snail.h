/* snail-core for C: entries, handler globals of every value type the ABI
 * allows, dispatch and join, waits, cancellation and native disposers, with
 * every outcome a status value. C11 (with the clang or GCC attributes every
 * wasm32 compiler has); it compiles as C++ too, and <snail/snail.hpp> builds
 * on it. docs/guide.md, "A C program", walks through it.
 *
 *   #include <snail/snail.h>
 *
 *   SNAIL_HANDLER_I32(depth, int32_t);          // snail.handler.depth, an i32
 *
 *   static int32_t child(int32_t n) {            // any (i32) -> i32 function
 *     if (snail_sleep(5) != SNAIL_OK) return -1; // cancelled: unwind
 *     return snail_get(depth) + n;               // the parent's binding
 *   }
 *
 *   SNAIL_ENTRY(main) {                          // snail.entry.main
 *     snail_set(depth, 40);
 *     int32_t task;
 *     if (snail_dispatch_task(&task, child, 2, NULL) != SNAIL_OK) return 1;
 *     snail_status s = snail_join(task);
 *     int32_t value = snail_result(task);
 *     snail_release(task);
 *     return s == SNAIL_OK ? value : 1;
 *   }
 *
 * The raw imports (snail_sleep, snail_yield, snail_join, snail_result,
 * snail_release, snail_cancel, snail_cancel_tree, snail_cancel_requested,
 * snail_shield_begin, snail_shield_end and the host services) are declared in
 * <snail/abi.h>, which this header includes; they are C functions already, and
 * their statuses are the SNAIL_* values.
 *
 * Cleanup that must wait after a cancellation (a rollback, a flush) runs
 * between snail_shield_begin and snail_shield_end: its waits run as though
 * the task had not been cancelled, for at most the shield's timeout:
 *
 *   if (write_block(...) == SNAIL_CANCELLED) {
 *     if (snail_shield_begin(1000) == SNAIL_OK) {   // at most one second
 *       (void)rollback(...);                         // waits, and they run
 *       snail_shield_end();
 *     }
 *     return -1;                                     // cancelled again: unwind
 *   }
 *
 * snail_cancel_tree(handle) cancels a child with every task below it.
 */
#ifndef SNAIL_SNAIL_H
#define SNAIL_SNAIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "snail/abi.h"

#ifdef __cplusplus
#define SNAIL_DETAIL_EXTERN_C extern "C"
#define SNAIL_DETAIL_STATIC_ASSERT(COND, MESSAGE) static_assert(COND, MESSAGE)
#define SNAIL_DETAIL_THREAD_LOCAL thread_local
#else
#define SNAIL_DETAIL_EXTERN_C
#define SNAIL_DETAIL_STATIC_ASSERT(COND, MESSAGE) _Static_assert(COND, MESSAGE)
#define SNAIL_DETAIL_THREAD_LOCAL _Thread_local
#endif
#define SNAIL_DETAIL_UNUSED __attribute__((unused))

#ifdef __cplusplus
extern "C" {
#endif

/* One of SNAIL_OK, SNAIL_CANCELLED, SNAIL_FAILED, SNAIL_INVALID, SNAIL_CLOSED,
 * SNAIL_DENIED, SNAIL_NOT_FOUND (docs/abi.md, "Status codes"). */
typedef int32_t snail_status;

/* A short lower-case name for a status ("ok", "cancelled", ...), or "unknown". */
static inline const char* snail_status_name(snail_status s) {
  switch (s) {
    case SNAIL_OK: return "ok";
    case SNAIL_CANCELLED: return "cancelled";
    case SNAIL_FAILED: return "failed";
    case SNAIL_INVALID: return "invalid";
    case SNAIL_CLOSED: return "closed";
    case SNAIL_DENIED: return "denied";
    case SNAIL_NOT_FOUND: return "not_found";
    default: return "unknown";
  }
}

/* What a child task runs, and what the runtime calls instead with the same
 * argument when the child is discarded before it ever ran (so that the
 * argument may own memory). In wasm32 a function pointer is an index into the
 * exported function table, which is what the ABI's dispatch takes. */
typedef int32_t (*snail_entry_fn)(int32_t arg);
typedef void (*snail_drop_fn)(int32_t arg);

#if defined(__wasm__)
static inline int32_t snail_detail_function_index(void (*fn)(void)) {
  return (int32_t)(uintptr_t)fn;
}
#else
/* Native builds (the core's unit tests): an index in a registry. */
int32_t snail_detail_function_index(void (*fn)(void));
#endif

/* Dispatches a child task that runs entry(arg). The child is live before this
 * returns and starts with a copy of the caller's handler bindings. `drop` may
 * be NULL. SNAIL_OK: *handle is the child's handle (> 0), to be joined and
 * released. SNAIL_CLOSED (the runtime takes no new work) or SNAIL_INVALID: no
 * child, *handle is 0 (drop is not called: the argument is still the
 * caller's). */
SNAIL_NODISCARD static inline snail_status snail_dispatch_task(int32_t* handle, snail_entry_fn entry,
                                                               int32_t arg, snail_drop_fn drop) {
  int32_t raw = snail_dispatch(snail_detail_function_index((void (*)(void))entry), arg,
                               drop ? snail_detail_function_index((void (*)(void))drop) : 0);
  *handle = raw > 0 ? raw : 0;
  return raw > 0 ? SNAIL_OK : -raw;
}

/* A value a host service delivered into an out cell: its bytes, and freeing
 * them (the program owns them; docs/abi.md, "Host services"). */
static inline const uint8_t* snail_out_data(const snail_out* cell) {
  return (const uint8_t*)(uintptr_t)cell->ptr;
}
static inline void snail_out_free(snail_out* cell) {
  free((void*)(uintptr_t)cell->ptr);
  cell->ptr = 0;
  cell->len = 0;
}

#ifdef __cplusplus
}
#endif

/* Defines a program entry NAME, exported as `snail.entry.NAME`, of type
 * (i32 arg) -> i32. Write the body after it:
 *   SNAIL_ENTRY(main) { return 0; }
 * The same macro serves C and C++. */
#define SNAIL_ENTRY(NAME)                                                               \
  SNAIL_DETAIL_EXTERN_C SNAIL_EXPORT("snail" SNAIL_ABI_SEP "entry" SNAIL_ABI_SEP #NAME) \
  int32_t snail_entry_##NAME(SNAIL_DETAIL_UNUSED int32_t arg)

/* Defines the native disposer of the suspending import MODULE.NAME, exported as
 * `snail.dispose.MODULE.NAME`: the runtime calls it, exactly once, with a
 * successful result of that import that is never delivered because the task
 * was cancelled (for example to free a buffer the host allocated in linear
 * memory). It must not wait or dispatch. Write the parameter, of the import's
 * result type, and the body after it:
 *   SNAIL_DISPOSER(env, read_buffer)(int32_t buffer) { free(...); } */
#define SNAIL_DISPOSER(MODULE, NAME)                                                       \
  SNAIL_DETAIL_EXTERN_C SNAIL_EXPORT("snail" SNAIL_ABI_SEP "dispose" SNAIL_ABI_SEP #MODULE \
                                     SNAIL_ABI_SEP #NAME)                                  \
  void snail_dispose_##MODULE##_##NAME

/* Declares an import of the embedder's: a function `NAME` of module `MODULE`
 * that the embedder provides in Runtime.load's `imports` option, as a
 * suspending import with suspend() (docs/bridge.md) or a plain function:
 *   int32_t read_block(int32_t fd, void* buffer, uint32_t size) SNAIL_IMPORT_FROM(env, read_block);
 * A suspending import suspends only the calling task; by default it returns
 * SNAIL_CANCELLED when the task was cancelled and SNAIL_FAILED when the
 * operation rejected, so an import that returns a status reads like the
 * built-in waits. */
#if defined(__wasm__)
#define SNAIL_IMPORT_FROM(MODULE, NAME) __attribute__((import_module(#MODULE), import_name(#NAME)))
#else
#define SNAIL_IMPORT_FROM(MODULE, NAME)
#endif

/* Handler globals (docs/abi.md, "Handler globals"): mutable globals exported
 * as `snail.handler.NAME` that the runtime keeps per task. Each macro declares
 * one, usable at file scope in any number of translation units and headers
 * (handler names are program-wide: the same name is the same global), and
 * defines snail_get(NAME) and snail_set(NAME, value):
 *
 *   SNAIL_HANDLER_I32(NAME, TYPE)   an i32: TYPE is 32 bits wide, such as a
 *                                   pointer, int32_t, uint32_t or a function
 *                                   pointer (a table index)
 *   SNAIL_HANDLER_I64(NAME, TYPE)   an i64: TYPE is 64 bits wide (int64_t, uint64_t)
 *   SNAIL_HANDLER_F32(NAME)         an f32: float
 *   SNAIL_HANDLER_F64(NAME)         an f64: double
 *   SNAIL_HANDLER_EXTERNREF(NAME)   an externref: __externref_t (clang), a host
 *                                   value C can pass to imports and compare
 *                                   with nothing; wasm only
 *
 * Declare a name once per translation unit (a header with an include guard
 * does). A handler holds its default (the value after the program's initialisation,
 * zero unless the program sets it there) in root tasks; a child starts with
 * its parent's value at dispatch. C has no destructors: to bind a value for a
 * part of a task, keep the previous one and put it back,
 *   const struct printer* previous = snail_exchange(out, &mine);
 *   ...
 *   snail_set(out, previous);
 * (what the task leaves bound when it returns does not matter: nobody sees it).
 * A funcref handler cannot be called from C with clang 19; keep a function
 * pointer in an i32 handler instead. */
#define snail_get(NAME) snail_handler_##NAME##_get()
#define snail_set(NAME, VALUE) snail_handler_##NAME##_set(VALUE)
#define snail_exchange(NAME, VALUE) snail_handler_##NAME##_exchange(VALUE)

#define SNAIL_DETAIL_HANDLER_SYMBOL(NAME) "snail" SNAIL_ABI_SEP "handler" SNAIL_ABI_SEP #NAME

#if defined(__wasm__)

/* The global is weak so that every translation unit declaring it defines it and
 * the linker keeps one; `.export_name` exports it under the ABI name without
 * linker flags, and `.no_dead_strip` keeps it when unused. Within one
 * translation unit the declarations' assembly is one text, so `.ifndef` defines
 * the global only at the first declaration of the name. */
#define SNAIL_DETAIL_HANDLER_GLOBAL(NAME, WASM_TYPE)                            \
  __asm__(".ifndef " SNAIL_DETAIL_HANDLER_SYMBOL(NAME) "\n"                     \
          ".globaltype " SNAIL_DETAIL_HANDLER_SYMBOL(NAME) ", " #WASM_TYPE "\n" \
          ".weak " SNAIL_DETAIL_HANDLER_SYMBOL(NAME) "\n"                       \
          ".export_name " SNAIL_DETAIL_HANDLER_SYMBOL(NAME) ", "                \
          SNAIL_DETAIL_HANDLER_SYMBOL(NAME) "\n"                                \
          ".no_dead_strip " SNAIL_DETAIL_HANDLER_SYMBOL(NAME) "\n"              \
          SNAIL_DETAIL_HANDLER_SYMBOL(NAME) ":\n"                               \
          ".endif\n")

/* Accessors of a number-typed global: the raw value in a Wasm local of RAW, and
 * the declared TYPE by its bytes. */
#define SNAIL_DETAIL_HANDLER_ACCESS(NAME, TYPE, RAW)                                    \
  SNAIL_DETAIL_UNUSED static inline TYPE snail_handler_##NAME##_get(void) {             \
    RAW raw;                                                                            \
    TYPE value;                                                                         \
    __asm__ volatile("global.get " SNAIL_DETAIL_HANDLER_SYMBOL(NAME) "\n\tlocal.set %0" \
                     : "=r"(raw));                                                      \
    __builtin_memcpy(&value, &raw, sizeof value);                                       \
    return value;                                                                       \
  }                                                                                     \
  SNAIL_DETAIL_UNUSED static inline void snail_handler_##NAME##_set(TYPE value) {       \
    RAW raw;                                                                            \
    __builtin_memcpy(&raw, &value, sizeof raw);                                         \
    __asm__ volatile("local.get %0\n\tglobal.set " SNAIL_DETAIL_HANDLER_SYMBOL(NAME)    \
                     ::"r"(raw));                                                       \
  }

/* Inline assembly has no register class for reference types: the accessors of
 * an externref global are functions written in assembly, weak and hidden so
 * that each module has one copy. */
#define SNAIL_DETAIL_HANDLER_EXTERNREF_ACCESS(NAME)                                                      \
  __asm__(".ifndef snail_handler_" #NAME "_get\n"                                                        \
          ".weak snail_handler_" #NAME "_get\n"                                                          \
          ".hidden snail_handler_" #NAME "_get\n"                                                        \
          ".type snail_handler_" #NAME "_get,@function\n"                                                \
          "snail_handler_" #NAME "_get:\n"                                                               \
          ".functype snail_handler_" #NAME "_get () -> (externref)\n"                                    \
          "global.get " SNAIL_DETAIL_HANDLER_SYMBOL(NAME) "\n"                                           \
          "end_function\n"                                                                               \
          ".weak snail_handler_" #NAME "_set\n"                                                          \
          ".hidden snail_handler_" #NAME "_set\n"                                                        \
          ".type snail_handler_" #NAME "_set,@function\n"                                                \
          "snail_handler_" #NAME "_set:\n"                                                               \
          ".functype snail_handler_" #NAME "_set (externref) -> ()\n"                                    \
          "local.get 0\n"                                                                                \
          "global.set " SNAIL_DETAIL_HANDLER_SYMBOL(NAME) "\n"                                           \
          "end_function\n"                                                                               \
          ".endif\n");                                                                                   \
  SNAIL_DETAIL_EXTERN_C __externref_t snail_handler_##NAME##_get(void);                                  \
  SNAIL_DETAIL_EXTERN_C void snail_handler_##NAME##_set(__externref_t value);                            \
  SNAIL_DETAIL_UNUSED static inline __externref_t snail_handler_##NAME##_exchange(__externref_t value) { \
    __externref_t previous = snail_handler_##NAME##_get();                                               \
    snail_handler_##NAME##_set(value);                                                                   \
    return previous;                                                                                     \
  }

#define SNAIL_HANDLER_EXTERNREF(NAME)                       \
  SNAIL_DETAIL_HANDLER_GLOBAL(NAME, externref);             \
  SNAIL_DETAIL_HANDLER_EXTERNREF_ACCESS(NAME)               \
  SNAIL_DETAIL_STATIC_ASSERT(1, "")

#else /* native builds (the core's unit tests): one variable per name and thread */

#define SNAIL_DETAIL_HANDLER_GLOBAL(NAME, WASM_TYPE) SNAIL_DETAIL_STATIC_ASSERT(1, "")

/* Weak, so that every translation unit declaring the name shares one. (Native
 * C++ declarations of <snail/handler.hpp> keep their own storage.) */
#define SNAIL_DETAIL_HANDLER_ACCESS(NAME, TYPE, RAW)                              \
  SNAIL_DETAIL_EXTERN_C __attribute__((weak)) SNAIL_DETAIL_THREAD_LOCAL RAW       \
      snail_handler_##NAME##_slot = 0;                                            \
  SNAIL_DETAIL_UNUSED static inline TYPE snail_handler_##NAME##_get(void) {       \
    TYPE value;                                                                   \
    __builtin_memcpy(&value, &snail_handler_##NAME##_slot, sizeof value);         \
    return value;                                                                 \
  }                                                                               \
  SNAIL_DETAIL_UNUSED static inline void snail_handler_##NAME##_set(TYPE value) { \
    __builtin_memcpy(&snail_handler_##NAME##_slot, &value, sizeof value);         \
  }

#endif

#define SNAIL_DETAIL_HANDLER_EXCHANGE(NAME, TYPE)                                      \
  SNAIL_DETAIL_UNUSED static inline TYPE snail_handler_##NAME##_exchange(TYPE value) { \
    TYPE previous = snail_handler_##NAME##_get();                                      \
    snail_handler_##NAME##_set(value);                                                 \
    return previous;                                                                   \
  }

#define SNAIL_DETAIL_HANDLER_NUMBER(NAME, TYPE, WASM_TYPE, RAW, MESSAGE) \
  SNAIL_DETAIL_HANDLER_GLOBAL(NAME, WASM_TYPE);                          \
  SNAIL_DETAIL_STATIC_ASSERT(sizeof(TYPE) == sizeof(RAW), MESSAGE);      \
  SNAIL_DETAIL_HANDLER_ACCESS(NAME, TYPE, RAW)                           \
  SNAIL_DETAIL_HANDLER_EXCHANGE(NAME, TYPE)                              \
  SNAIL_DETAIL_STATIC_ASSERT(1, "")

#define SNAIL_HANDLER_I32(NAME, TYPE)                       \
  SNAIL_DETAIL_HANDLER_NUMBER(NAME, TYPE, i32, int32_t,     \
                              "SNAIL_HANDLER_I32 holds a 32-bit type (a pointer or a 32-bit integer)")
#define SNAIL_HANDLER_I64(NAME, TYPE)                       \
  SNAIL_DETAIL_HANDLER_NUMBER(NAME, TYPE, i64, int64_t,     \
                              "SNAIL_HANDLER_I64 holds a 64-bit type (int64_t, uint64_t)")
#define SNAIL_HANDLER_F32(NAME) SNAIL_DETAIL_HANDLER_NUMBER(NAME, float, f32, float, "float")
#define SNAIL_HANDLER_F64(NAME) SNAIL_DETAIL_HANDLER_NUMBER(NAME, double, f64, double, "double")

#endif /* SNAIL_SNAIL_H */
