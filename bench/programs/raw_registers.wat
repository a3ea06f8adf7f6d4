;; What a switch through snail-core adds to a raw JSPI round trip in Wasm and
;; at the boundary, piece by piece: the suspension wrapper, reached from the
;; program through a stub's tail call, that saves three registers and installs
;; their defaults before the wait and installs them again after it, in its
;; own code, as the runtime's wrappers do for a program with a shadow stack
;; (bench.op_loop of raw.wat calls `wrapped_op` in place of the Suspending
;; import); and one more call into JavaScript after each resumption (what a
;; wait costs when the permit must be claimed from JavaScript).
(module
  (type $op_fn (func (param i32) (result i32)))
  (import "bench" "op" (func $op (param i32) (result i32)))
  (import "bench" "after" (func $after (param i32 i32) (result i32)))
  (import "bench" "sp" (global $sp (mut i32)))
  (import "bench" "base" (global $base (mut i32)))
  (import "bench" "limit" (global $limit (mut i32)))
  (memory 1)
  (table 1 funcref)
  (elem (i32.const 0) $wrapper)
  ;; The task's slot: bytes 16..27; the defaults: bytes 0..11.
  (func $wrapper (param $i i32) (result i32) (local $v i32)
    (i32.store offset=16 (i32.const 0) (global.get $sp))
    (i32.store offset=20 (i32.const 0) (global.get $base))
    (i32.store offset=24 (i32.const 0) (global.get $limit))
    (global.set $sp (i32.load offset=0 (i32.const 0)))
    (global.set $base (i32.load offset=4 (i32.const 0)))
    (global.set $limit (i32.load offset=8 (i32.const 0)))
    (local.set $v (call $op (local.get $i)))
    (global.set $sp (i32.load offset=16 (i32.const 0)))
    (global.set $base (i32.load offset=20 (i32.const 0)))
    (global.set $limit (i32.load offset=24 (i32.const 0)))
    (local.get $v))
  ;; wrapped_op(i): the stub, passing its argument on to the wrapper.
  (func (export "wrapped_op") (param $i i32) (result i32)
    (return_call_indirect (type $op_fn) (local.get $i) (i32.const 0)))
  ;; after_loop(n): n waits, each followed by a call of bench.after.
  (func (export "after_loop") (param $n i32) (result i32)
    (local $i i32) (local $sum i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $sum (i32.add (local.get $sum) (call $after (local.get $i) (call $op (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $sum)))
