/* The raw JSPI floor of the realistic rows: the store of kv.h in a plain
 * module without snail-core, its entries plain exports that the benchmark
 * calls through WebAssembly.promising (run_async, disk.read and disk.write
 * made WebAssembly.Suspending) or directly (run_sync). No scheduler, no
 * registers, no stack segments, no cancellation: what the engine alone pays.
 */
#include "kv.h"

__attribute__((export_name("run_async"))) int32_t run_async(int32_t arg) { return kv_run(arg, 1); }

__attribute__((export_name("run_sync"))) int32_t run_sync(int32_t arg) { return kv_run(arg, 0); }
