;; registers-stack: the register file of a C++ program: one i32 handler and the stack registers
;; 401 bytes, sha256 9b936287cb3a66af7d96ef38a562d59e2986a555e2ffc14b79b8fa89acc138ea
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
    i32.const 16
    i32.mul
    local.set 1
    local.get 1
    global.get 0
    i32.store offset=16
    local.get 1
    global.get 1
    i32.store offset=20
    local.get 1
    global.get 2
    i32.store offset=24
    local.get 1
    global.get 3
    i32.store offset=28)
  (func (;1;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 16
    i32.mul
    local.set 1
    local.get 1
    i32.load offset=16
    global.set 0
    local.get 1
    i32.load offset=20
    global.set 1
    local.get 1
    i32.load offset=24
    global.set 2
    local.get 1
    i32.load offset=28
    global.set 3)
  (func (;2;) (type 0) (param i32)
    (local i32 i32)
    local.get 0
    i32.const 16
    i32.mul
    local.set 1
    local.get 1
    global.get 0
    i32.store offset=16
    local.get 1
    global.get 1
    i32.store offset=20
    local.get 1
    global.get 2
    i32.store offset=24
    local.get 1
    global.get 3
    i32.store offset=28
    i32.const 0
    local.set 2
    local.get 2
    i32.load offset=16
    global.set 0
    local.get 2
    i32.load offset=20
    global.set 1
    local.get 2
    i32.load offset=24
    global.set 2
    local.get 2
    i32.load offset=28
    global.set 3)
  (func (;3;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 16
    i32.mul
    local.set 1
    local.get 1
    global.get 0
    i32.store offset=16)
  (func (;4;) (type 1) (param i32 i32 i32)
    (local i32)
    local.get 0
    i32.const 16
    i32.mul
    local.set 3
    local.get 3
    i32.load offset=16
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
