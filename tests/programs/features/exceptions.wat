;; A program that uses exception handling (a tag, throw, try/catch), written
;; against docs/abi.md:
;;   "catches"(n): throws n + 1 from under a wait and catches it: returns n + 1.
;;   "throws"(n): waits, then throws an exception that leaves the entry: the
;;                task fails, its error's cause is the WebAssembly.Exception.
;;   "cancelled"(n): catches everything around a wait that the host cancels,
;;                returns the wait's status (1, cancelled) as a value.
(module
  (import "snail" "sleep" (func $sleep (param f64) (result i32)))
  (tag $oops (export "oops") (param i32))

  (func $throw_after_a_wait (param $n i32)
    (drop (call $sleep (f64.const 1)))
    (throw $oops (i32.add (local.get $n) (i32.const 1))))

  (func (export "snail.entry.catches") (param $n i32) (result i32)
    (try (result i32)
      (do (call $throw_after_a_wait (local.get $n)) (i32.const -1))
      (catch $oops)))

  (func (export "snail.entry.throws") (param $n i32) (result i32)
    (call $throw_after_a_wait (local.get $n))
    (i32.const -1))

  (func (export "snail.entry.cancelled") (param $n i32) (result i32)
    (try (result i32)
      (do (call $sleep (f64.const 60000)))
      (catch_all (i32.const -2))))
)
