;; stubs-later: the stubs of two waits a loaded module adds, after six
;; 229 bytes, sha256 31298ddc0decf0c89f9ee00583c948047034abf108379528f79e4f92506c62c4
(module
  (type (;0;) (func (param i32 i32)))
  (type (;1;) (func (param i32) (result i32)))
  (type (;2;) (func (param externref) (result externref)))
  (type (;3;) (func (param i32)))
  (import "js" "foreign" (func (;0;) (type 0)))
  (import "js" "dispatch" (table (;0;) 8 funcref))
  (import "js" "memory" (memory (;0;) 1))
  (func (;1;) (type 1) (param i32) (result i32)
    local.get 0
    i32.const 6
    return_call_indirect (type 1))
  (func (;2;) (type 1) (param i32) (result i32)
    i32.const 0
    i32.const 6
    call 0
    unreachable)
  (func (;3;) (type 2) (param externref) (result externref)
    local.get 0
    i32.const 7
    return_call_indirect (type 2))
  (func (;4;) (type 2) (param externref) (result externref)
    i32.const 0
    i32.const 7
    call 0
    unreachable)
  (func (;5;) (type 3) (param i32)
    i32.const 0
    local.get 0
    i32.store)
  (export "plugin.wait:i32->i32" (func 1))
  (export "refuse.6" (func 2))
  (export "plugin.read:externref->externref" (func 3))
  (export "refuse.7" (func 4))
  (export "current" (func 5)))
