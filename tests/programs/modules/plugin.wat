;; A module loaded into a running program, written by hand against docs/abi.md
;; ("Dynamically loaded modules"): no dylink.0 section, no memory of its own.
;; Two handler globals of its own, an i32 and an externref, start null in every
;; task of the program; a task binds them through `bind` and reads them back
;; through `count` and `token` (the token's id, or -1 for null). `wait` sleeps
;; through the program's scheduler, so a task suspends inside this module.
;; The host provides test.make_token(n) -> externref ({ id: n }) and
;; test.token_id(externref) -> i32, as for tests/programs/handwritten.wat.
(module
  (import "snail" "sleep" (func $sleep (param f64) (result i32)))
  (import "test" "make_token" (func $make_token (param i32) (result externref)))
  (import "test" "token_id" (func $token_id (param externref) (result i32)))

  (global $count (export "snail.handler.plugin_count") (mut i32) (i32.const 0))
  (global $token (export "snail.handler.plugin_token") (mut externref) (ref.null extern))

  (func (export "count") (result i32) (global.get $count))
  (func (export "token") (result i32) (call $token_id (global.get $token)))
  (func (export "bind") (param $n i32)
    (global.set $count (local.get $n))
    (global.set $token (call $make_token (local.get $n))))
  ;; Sleeps `ms` milliseconds; returns the status, or 100 + n when the
  ;; module's own bindings changed across the wait (n = 1 count, 2 token).
  (func (export "wait") (param $ms i32) (result i32)
    (local $count i32)
    (local $id i32)
    (local $status i32)
    (local.set $count (global.get $count))
    (local.set $id (call $token_id (global.get $token)))
    (local.set $status (call $sleep (f64.convert_i32_s (local.get $ms))))
    (if (local.get $status) (then (return (local.get $status))))
    (if (i32.ne (global.get $count) (local.get $count)) (then (return (i32.const 101))))
    (if (i32.ne (call $token_id (global.get $token)) (local.get $id)) (then (return (i32.const 102))))
    (i32.const 0))
)
