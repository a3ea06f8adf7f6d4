;; The raw JSPI baselines: no scheduler, no registers.
(module
  (import "bench" "op" (func $op (param i32) (result i32)))
  ;; op_loop(n): n calls of a Suspending import returning a resolved promise.
  (func (export "op_loop") (param $n i32) (result i32)
    (local $i i32) (local $sum i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $sum (i32.add (local.get $sum) (call $op (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $sum))
  ;; nop(x): a promising call that returns at once.
  (func (export "nop") (param $x i32) (result i32) (local.get $x))
  ;; op_once(x): a promising call that suspends once.
  (func (export "op_once") (param $x i32) (result i32) (call $op (local.get $x))))
