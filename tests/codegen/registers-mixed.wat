;; registers-mixed: the register file of registers of every type
;; 785 bytes, sha256 e88824dc23bdb7d66f7cf3aff591f39106ec996cbc3a24bb46fafa924d3762ce
(module
  (type (;0;) (func (param i32)))
  (type (;1;) (func (param i32 i32 i32)))
  (import "registers" "0" (global (;0;) (mut i64)))
  (import "registers" "1" (global (;1;) (mut externref)))
  (import "registers" "2" (global (;2;) (mut f64)))
  (import "registers" "3" (global (;3;) (mut funcref)))
  (import "registers" "4" (global (;4;) (mut f32)))
  (import "registers" "5" (global (;5;) (mut i32)))
  (import "registers" "6" (global (;6;) (mut externref)))
  (import "registers" "7" (global (;7;) (mut i32)))
  (import "registers" "8" (global (;8;) (mut i32)))
  (import "registers" "memory" (memory (;0;) 1))
  (func (;0;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 32
    i32.mul
    local.set 1
    local.get 1
    global.get 0
    i64.store offset=16
    local.get 0
    i32.const 2
    i32.mul
    i32.const 0
    i32.add
    global.get 1
    table.set 0
    local.get 1
    global.get 2
    f64.store offset=24
    local.get 0
    i32.const 1
    i32.mul
    i32.const 0
    i32.add
    global.get 3
    table.set 1
    local.get 1
    global.get 4
    f32.store offset=32
    local.get 1
    global.get 5
    i32.store offset=36
    local.get 0
    i32.const 2
    i32.mul
    i32.const 1
    i32.add
    global.get 6
    table.set 0
    local.get 1
    global.get 7
    i32.store offset=40
    local.get 1
    global.get 8
    i32.store offset=44)
  (func (;1;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 32
    i32.mul
    local.set 1
    local.get 1
    i64.load offset=16
    global.set 0
    local.get 0
    i32.const 2
    i32.mul
    i32.const 0
    i32.add
    table.get 0
    global.set 1
    local.get 1
    f64.load offset=24
    global.set 2
    local.get 0
    i32.const 1
    i32.mul
    i32.const 0
    i32.add
    table.get 1
    global.set 3
    local.get 1
    f32.load offset=32
    global.set 4
    local.get 1
    i32.load offset=36
    global.set 5
    local.get 0
    i32.const 2
    i32.mul
    i32.const 1
    i32.add
    table.get 0
    global.set 6
    local.get 1
    i32.load offset=40
    global.set 7
    local.get 1
    i32.load offset=44
    global.set 8)
  (func (;2;) (type 0) (param i32)
    (local i32 i32)
    local.get 0
    i32.const 32
    i32.mul
    local.set 1
    local.get 1
    global.get 0
    i64.store offset=16
    local.get 0
    i32.const 2
    i32.mul
    i32.const 0
    i32.add
    global.get 1
    table.set 0
    local.get 1
    global.get 2
    f64.store offset=24
    local.get 0
    i32.const 1
    i32.mul
    i32.const 0
    i32.add
    global.get 3
    table.set 1
    local.get 1
    global.get 4
    f32.store offset=32
    local.get 1
    global.get 5
    i32.store offset=36
    local.get 0
    i32.const 2
    i32.mul
    i32.const 1
    i32.add
    global.get 6
    table.set 0
    local.get 1
    global.get 7
    i32.store offset=40
    local.get 1
    global.get 8
    i32.store offset=44
    i32.const 0
    local.set 2
    local.get 2
    i64.load offset=16
    global.set 0
    local.get 2
    i32.const 2
    i32.mul
    i32.const 0
    i32.add
    table.get 0
    global.set 1
    local.get 2
    f64.load offset=24
    global.set 2
    local.get 2
    i32.const 1
    i32.mul
    i32.const 0
    i32.add
    table.get 1
    global.set 3
    local.get 2
    f32.load offset=32
    global.set 4
    local.get 2
    i32.load offset=36
    global.set 5
    local.get 2
    i32.const 2
    i32.mul
    i32.const 1
    i32.add
    table.get 0
    global.set 6
    local.get 2
    i32.load offset=40
    global.set 7
    local.get 2
    i32.load offset=44
    global.set 8)
  (func (;3;) (type 0) (param i32)
    (local i32)
    local.get 0
    i32.const 32
    i32.mul
    local.set 1
    local.get 1
    global.get 0
    i64.store offset=16
    local.get 0
    i32.const 2
    i32.mul
    i32.const 0
    i32.add
    global.get 1
    table.set 0
    local.get 1
    global.get 2
    f64.store offset=24
    local.get 0
    i32.const 1
    i32.mul
    i32.const 0
    i32.add
    global.get 3
    table.set 1
    local.get 1
    global.get 4
    f32.store offset=32
    local.get 1
    global.get 5
    i32.store offset=36
    local.get 0
    i32.const 2
    i32.mul
    i32.const 1
    i32.add
    global.get 6
    table.set 0)
  (func (;4;) (type 1) (param i32 i32 i32)
    (local i32)
    local.get 0
    i32.const 32
    i32.mul
    local.set 3
    local.get 3
    i64.load offset=16
    global.set 0
    local.get 0
    i32.const 2
    i32.mul
    i32.const 0
    i32.add
    table.get 0
    global.set 1
    local.get 3
    f64.load offset=24
    global.set 2
    local.get 0
    i32.const 1
    i32.mul
    i32.const 0
    i32.add
    table.get 1
    global.set 3
    local.get 3
    f32.load offset=32
    global.set 4
    local.get 3
    i32.load offset=36
    global.set 5
    local.get 0
    i32.const 2
    i32.mul
    i32.const 1
    i32.add
    table.get 0
    global.set 6
    local.get 1
    local.get 2
    i32.add
    global.set 7
    local.get 1
    global.set 8)
  (table (;0;) 0 externref)
  (table (;1;) 0 funcref)
  (export "save" (func 0))
  (export "install" (func 1))
  (export "suspend" (func 2))
  (export "capture" (func 3))
  (export "start" (func 4))
  (export "externs" (table 0))
  (export "funcs" (table 1)))
