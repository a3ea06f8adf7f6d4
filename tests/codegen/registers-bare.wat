;; registers-bare: the register file of a program without registers
;; 196 bytes, sha256 0294395c5cf344e8d50443fc464095a8518c0fdddedc21e1bc4406f06a4395a4
(module
  (type (;0;) (func (param i32)))
  (type (;1;) (func (param i32 i32 i32)))
  (import "registers" "memory" (memory (;0;) 1))
  (func (;0;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 8
    i32.mul
    local.set 1)
  (func (;1;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 8
    i32.mul
    local.set 1)
  (func (;2;) (type 0) (param i32)
    (local i32 i32)
    local.get 0
    i32.const 8
    i32.mul
    local.set 1
    i32.const 0
    local.set 2)
  (func (;3;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 8
    i32.mul
    local.set 1)
  (func (;4;) (type 1) (param i32 i32 i32)
    (local i32)
    local.get 0
    i32.const 8
    i32.mul
    local.set 3)
  (table (;0;) 0 externref)
  (table (;1;) 0 funcref)
  (export "save" (func 0))
  (export "install" (func 1))
  (export "suspend" (func 2))
  (export "capture" (func 3))
  (export "start" (func 4))
  (export "externs" (table 0))
  (export "funcs" (table 1)))
