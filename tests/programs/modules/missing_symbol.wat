;; Does not link: it imports a function that neither the program nor a loaded
;; module exports.
(module
  (import "env" "no_such_function" (func $missing (param i32) (result i32)))
  (func (export "call_it") (result i32) (call $missing (i32.const 1))))
