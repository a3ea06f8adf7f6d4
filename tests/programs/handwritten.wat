;; A program written by hand against docs/abi.md alone: no snail-core headers, no
;; C++, no shadow stack. It declares its own handler globals, an i32 and an
;; externref that start null, binds them, dispatches a child through its own
;; function table, waits, and checks that it sees only its own bindings.
;;
;; Entry "main"(n) returns 0 when every check passed, else the number of the
;; first failed check (a child's failures are 100 + its check number).
;; Entry "observe"(_) returns what a root task sees: 0 if both handlers hold
;; their defaults, else 1.
;; The host provides test.make_token(n) -> externref ({ id: n }) and
;; test.token_id(externref) -> i32 (the id, or -1 for null).
(module
  (import "snail" "sleep" (func $sleep (param f64) (result i32)))
  (import "snail" "yield" (func $yield (result i32)))
  (import "snail" "dispatch" (func $dispatch (param i32 i32 i32) (result i32)))
  (import "snail" "join" (func $join (param i32) (result i32)))
  (import "snail" "result" (func $result (param i32) (result i32)))
  (import "snail" "release" (func $release (param i32)))
  (import "test" "make_token" (func $make_token (param i32) (result externref)))
  (import "test" "token_id" (func $token_id (param externref) (result i32)))

  (global $tag (export "snail.handler.tag") (mut i32) (i32.const 0))
  (global $token (export "snail.handler.token") (mut externref) (ref.null extern))

  (table $functions (export "__indirect_function_table") 2 funcref)
  (elem (i32.const 1) $child)

  ;; Returns 0 if the handlers hold (tag, token id), else `code`.
  (func $expect (param $tag i32) (param $id i32) (param $code i32) (result i32)
    (if (i32.ne (global.get $tag) (local.get $tag)) (then (return (local.get $code))))
    (if (i32.ne (call $token_id (global.get $token)) (local.get $id))
      (then (return (i32.add (local.get $code) (i32.const 1)))))
    (i32.const 0))

  (func (export "snail.entry.main") (param $n i32) (result i32)
    (local $handle i32)
    (local $code i32)
    (local $child_result i32)
    ;; A root task starts with the defaults: 0 and null.
    (local.set $code (call $expect (i32.const 0) (i32.const -1) (i32.const 1)))
    (if (local.get $code) (then (return (local.get $code))))
    (global.set $tag (local.get $n))
    (global.set $token (call $make_token (local.get $n)))

    (local.set $handle (call $dispatch (i32.const 1) (local.get $n) (i32.const 0)))
    (if (i32.le_s (local.get $handle) (i32.const 0)) (then (return (i32.const 3))))

    (if (call $sleep (f64.const 1)) (then (return (i32.const 4))))
    (local.set $code (call $expect (local.get $n) (local.get $n) (i32.const 5)))
    (if (local.get $code) (then (return (local.get $code))))

    (if (call $yield) (then (return (i32.const 7))))
    (local.set $code (call $expect (local.get $n) (local.get $n) (i32.const 8)))
    (if (local.get $code) (then (return (local.get $code))))

    (if (call $join (local.get $handle)) (then (return (i32.const 10))))
    (local.set $child_result (call $result (local.get $handle)))
    (call $release (local.get $handle))
    (if (i32.ne (local.get $child_result) (i32.const 1)) (then (return (local.get $child_result))))
    ;; The child rebound its tag; the parent still sees its own.
    (local.set $code (call $expect (local.get $n) (local.get $n) (i32.const 11)))
    (if (local.get $code) (then (return (local.get $code))))

    (global.set $tag (i32.const 0))
    (global.set $token (ref.null extern))
    (i32.const 0))

  ;; The child starts with a copy of the parent's bindings and rebinds one.
  (func $child (param $n i32) (result i32)
    (local $code i32)
    (local.set $code (call $expect (local.get $n) (local.get $n) (i32.const 101)))
    (if (local.get $code) (then (return (local.get $code))))
    (global.set $tag (i32.add (local.get $n) (i32.const 1000)))
    (if (call $yield) (then (return (i32.const 103))))
    (local.set $code (call $expect (i32.add (local.get $n) (i32.const 1000)) (local.get $n) (i32.const 104)))
    (if (local.get $code) (then (return (local.get $code))))
    (if (call $sleep (f64.const 0)) (then (return (i32.const 106))))
    (local.set $code (call $expect (i32.add (local.get $n) (i32.const 1000)) (local.get $n) (i32.const 107)))
    (if (local.get $code) (then (return (local.get $code))))
    (i32.const 1))

  (func (export "snail.entry.observe") (param i32) (result i32)
    (if (result i32) (i32.and
          (i32.eqz (global.get $tag))
          (ref.is_null (global.get $token)))
      (then (i32.const 0))
      (else (i32.const 1))))
)
