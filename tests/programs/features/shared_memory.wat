;; A program with a shared memory (threads), written against docs/abi.md: the
;; runtime runs it on one agent and reads and writes the memory like any
;; other. Entry "main" (see the body) returns 0 when a wait, a WASI write and
;; a storage round trip all worked, and 5000 if WASI's random_get wrote nothing.
(module
  (import "snail" "sleep" (func $sleep (param f64) (result i32)))
  (import "snail" "storage_put" (func $put (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "snail" "storage_get" (func $get (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random (param i32 i32) (result i32)))
  (memory (export "memory") 1 1 shared)
  (func $init
    (i32.store (i32.const 100) (i32.const 0x0a6968))
    (i32.store (i32.const 104) (i32.const 0x6b))
    (i32.store (i32.const 200) (i32.const 100))
    (i32.store (i32.const 204) (i32.const 3)))
  (global $heap (mut i32) (i32.const 4096))
  (func (export "snail.alloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (local.get $n)))
    (local.get $p))

  ;; Waits, writes "hi\n" to standard output through WASI, puts "hi\n" in
  ;; storage under key "k" and reads it back: returns 0, or the number of
  ;; the step that failed (1000 + status for the put, 2000 + status for the
  ;; get, 3000 for a wrong value).
  (func (export "snail.entry.main") (param i32) (result i32)
    (local $s i32)
    (call $init)
    (if (call $sleep (f64.const 1)) (then (return (i32.const 900))))
    (drop (call $fd_write (i32.const 1) (i32.const 200) (i32.const 1) (i32.const 300)))
    (local.set $s (call $put (i32.const 0) (i32.const 0) (i32.const 104) (i32.const 1) (i32.const 100) (i32.const 3)))
    (if (local.get $s) (then (return (i32.add (i32.const 1000) (local.get $s)))))
    (local.set $s (call $get (i32.const 0) (i32.const 0) (i32.const 104) (i32.const 1) (i32.const 400)))
    (if (local.get $s) (then (return (i32.add (i32.const 2000) (local.get $s)))))
    (if (i32.ne (i32.load (i32.const 404)) (i32.const 3)) (then (return (i32.const 3000))))
    (if (i32.ne (i32.load (i32.load (i32.const 400))) (i32.load (i32.const 100))) (then (return (i32.const 3001))))
    ;; 16 random bytes: all zeros once in 2^128 runs.
    (drop (call $random (i32.const 500) (i32.const 16)))
    (if (i64.eqz (i64.or (i64.load (i32.const 500)) (i64.load (i32.const 508)))) (then (return (i32.const 5000))))
    (i32.const 0))
)
