;; stubs: the stubs of six waits (every result type), the first build
;; 465 bytes, sha256 3eff195ae32e87778ff12c7000336a0972fcf5d239737dae07e7280848885ab9
(module
  (type (;0;) (func (param i32 i32)))
  (type (;1;) (func (param f64) (result i32)))
  (type (;2;) (func))
  (type (;3;) (func (param i64 f64) (result i64)))
  (type (;4;) (func (param f32) (result f32)))
  (type (;5;) (func (param i32) (result f64)))
  (type (;6;) (func (param externref i32) (result externref)))
  (type (;7;) (func (param i32)))
  (import "js" "foreign" (func (;0;) (type 0)))
  (import "js" "dispatch" (table (;0;) 6 funcref))
  (import "js" "memory" (memory (;0;) 1))
  (func (;1;) (type 1) (param f64) (result i32)
    local.get 0
    i32.const 0
    return_call_indirect (type 1))
  (func (;2;) (type 1) (param f64) (result i32)
    i32.const 0
    i32.const 0
    call 0
    unreachable)
  (func (;3;) (type 2)
    i32.const 1
    return_call_indirect (type 2))
  (func (;4;) (type 2)
    i32.const 0
    i32.const 1
    call 0
    unreachable)
  (func (;5;) (type 3) (param i64 f64) (result i64)
    local.get 0
    local.get 1
    i32.const 2
    return_call_indirect (type 3))
  (func (;6;) (type 3) (param i64 f64) (result i64)
    i32.const 0
    i32.const 2
    call 0
    unreachable)
  (func (;7;) (type 4) (param f32) (result f32)
    local.get 0
    i32.const 3
    return_call_indirect (type 4))
  (func (;8;) (type 4) (param f32) (result f32)
    i32.const 0
    i32.const 3
    call 0
    unreachable)
  (func (;9;) (type 5) (param i32) (result f64)
    local.get 0
    i32.const 4
    return_call_indirect (type 5))
  (func (;10;) (type 5) (param i32) (result f64)
    i32.const 0
    i32.const 4
    call 0
    unreachable)
  (func (;11;) (type 6) (param externref i32) (result externref)
    local.get 0
    local.get 1
    i32.const 5
    return_call_indirect (type 6))
  (func (;12;) (type 6) (param externref i32) (result externref)
    i32.const 0
    i32.const 5
    call 0
    unreachable)
  (func (;13;) (type 7) (param i32)
    i32.const 0
    local.get 0
    i32.store)
  (export "snail.sleep:f64->i32" (func 1))
  (export "refuse.0" (func 2))
  (export "app.tick:->" (func 3))
  (export "refuse.1" (func 4))
  (export "app.big:i64,f64->i64" (func 5))
  (export "refuse.2" (func 6))
  (export "app.real:f32->f32" (func 7))
  (export "refuse.3" (func 8))
  (export "app.wide:i32->f64" (func 9))
  (export "refuse.4" (func 10))
  (export "app.object:externref,i32->externref" (func 11))
  (export "refuse.5" (func 12))
  (export "current" (func 13)))
