;; Does not follow the ABI: an immutable handler global (handlers are mutable
;; globals), and a snail import whose type is not the documented one.
(module
  (import "snail" "sleep" (func $sleep (param i32) (result i32)))
  (global (export "snail.handler.bad_const") i32 (i32.const 0))
  (func (export "nap") (result i32) (call $sleep (i32.const 1))))
