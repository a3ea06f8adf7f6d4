;; What a switch through snail-core adds to a raw JSPI round trip, piece by
;; piece: the register save and install around each wait (two Wasm-to-Wasm
;; calls into the runtime's register file, as its suspension wrappers make
;; them), and one more call into JavaScript after each resumption (what a wait
;; costs when the permit must be claimed from JavaScript).
(module
  (type $slot_fn (func (param i32)))
  (import "bench" "op" (func $op (param i32) (result i32)))
  (import "bench" "after" (func $after (param i32 i32) (result i32)))
  (import "bench" "registers" (table 2 funcref))
  ;; saved_loop(n, slot): n waits, each between a save (table[0]) and an
  ;; install (table[1]) of the registers of `slot`.
  (func (export "saved_loop") (param $n i32) (param $slot i32) (result i32)
    (local $i i32) (local $sum i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (call_indirect (type $slot_fn) (local.get $slot) (i32.const 0))
        (local.set $sum (i32.add (local.get $sum) (call $op (local.get $i))))
        (call_indirect (type $slot_fn) (local.get $slot) (i32.const 1))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $sum))
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
