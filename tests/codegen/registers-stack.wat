;; registers-stack: the register file of a C++ program: one i32 handler and the stack registers
;; 401 bytes, sha256 138540948aee6f6b73fa9c70abfdfd0a495f267ff3a37a11328581a750544348
(module
  (type (;0;) (func (param i32)))
  (type (;1;) (func (param i32 i32 i32)))
  (import "registers" "0" (global (;0;) (mut i32)))
  (import "registers" "1" (global (;1;) (mut i32)))
  (import "registers" "2" (global (;2;) (mut i32)))
  (import "registers" "3" (global (;3;) (mut i32)))
  (import "registers" "memory" (memory (;0;) 1))
  (func (;0;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 24
    i32.mul
    local.set 1
    local.get 1
    global.get 0
    i32.store offset=32
    local.get 1
    global.get 1
    i32.store offset=36
    local.get 1
    global.get 2
    i32.store offset=40
    local.get 1
    global.get 3
    i32.store offset=44)
  (func (;1;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 24
    i32.mul
    local.set 1
    local.get 1
    i32.load offset=32
    global.set 0
    local.get 1
    i32.load offset=36
    global.set 1
    local.get 1
    i32.load offset=40
    global.set 2
    local.get 1
    i32.load offset=44
    global.set 3)
  (func (;2;) (type 0) (param i32)
    (local i32 i32)
    local.get 0
    i32.const 24
    i32.mul
    local.set 1
    local.get 1
    global.get 0
    i32.store offset=32
    local.get 1
    global.get 1
    i32.store offset=36
    local.get 1
    global.get 2
    i32.store offset=40
    local.get 1
    global.get 3
    i32.store offset=44
    i32.const 0
    local.set 2
    local.get 2
    i32.load offset=32
    global.set 0
    local.get 2
    i32.load offset=36
    global.set 1
    local.get 2
    i32.load offset=40
    global.set 2
    local.get 2
    i32.load offset=44
    global.set 3)
  (func (;3;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 24
    i32.mul
    local.set 1
    local.get 1
    global.get 0
    i32.store offset=32)
  (func (;4;) (type 1) (param i32 i32 i32)
    (local i32)
    local.get 0
    i32.const 24
    i32.mul
    local.set 3
    local.get 3
    i32.load offset=32
    global.set 0
    local.get 1
    local.get 2
    i32.add
    global.set 1
    local.get 1
    local.get 2
    i32.add
    global.set 2
    local.get 1
    global.set 3)
  (table (;0;) 0 externref)
  (table (;1;) 0 funcref)
  (export "save" (func 0))
  (export "install" (func 1))
  (export "suspend" (func 2))
  (export "capture" (func 3))
  (export "start" (func 4))
  (export "externs" (table 0))
  (export "funcs" (table 1)))
