;; Does not link: it imports the program's malloc with the wrong type
;; (the program's takes an i32 and returns an i32).
(module
  (import "env" "malloc" (func $alloc (param f64) (result f64)))
  (func (export "call_it") (result f64) (call $alloc (f64.const 1))))
