;; wrappers-stack: the wrappers of six waits, for the registers of a C++ program (generation 1)
;; 4788 bytes, sha256 651c47fc972103b278de1c92a8061cc19aaaaebba535ff582cbe078d9c1c028d
(module
  (type (;0;) (func (param externref)))
  (type (;1;) (func (param i32 i32)))
  (type (;2;) (func (param i32 i32) (result i32)))
  (type (;3;) (func (param i32 externref) (result i32)))
  (type (;4;) (func (param i32) (result i32)))
  (type (;5;) (func (param i32)))
  (type (;6;) (func (param i32 externref)))
  (type (;7;) (func (param i32 i64) (result i64)))
  (type (;8;) (func (param i32 externref) (result i64)))
  (type (;9;) (func (param i32) (result i64)))
  (type (;10;) (func (param i32 f32) (result f32)))
  (type (;11;) (func (param i32 externref) (result f32)))
  (type (;12;) (func (param i32) (result f32)))
  (type (;13;) (func (param i32 f64) (result f64)))
  (type (;14;) (func (param i32 externref) (result f64)))
  (type (;15;) (func (param i32) (result f64)))
  (type (;16;) (func (param i32 externref) (result externref)))
  (type (;17;) (func (param i32) (result externref)))
  (type (;18;) (func (param f64) (result i32)))
  (type (;19;) (func))
  (type (;20;) (func (param i64 f64) (result i64)))
  (type (;21;) (func (param f32) (result f32)))
  (type (;22;) (func (param externref i32) (result externref)))
  (import "js" "tag" (tag (;0;) (type 0) (param externref)))
  (import "js" "raise" (func (;0;) (type 0)))
  (import "js" "foreign" (func (;1;) (type 1)))
  (import "js" "after_i32" (func (;2;) (type 2)))
  (import "js" "fail_i32" (func (;3;) (type 3)))
  (import "js" "park_i32" (func (;4;) (type 4)))
  (import "js" "after_void" (func (;5;) (type 5)))
  (import "js" "fail_void" (func (;6;) (type 6)))
  (import "js" "park_void" (func (;7;) (type 5)))
  (import "js" "after_i64" (func (;8;) (type 7)))
  (import "js" "fail_i64" (func (;9;) (type 8)))
  (import "js" "park_i64" (func (;10;) (type 9)))
  (import "js" "after_f32" (func (;11;) (type 10)))
  (import "js" "fail_f32" (func (;12;) (type 11)))
  (import "js" "park_f32" (func (;13;) (type 12)))
  (import "js" "after_f64" (func (;14;) (type 13)))
  (import "js" "fail_f64" (func (;15;) (type 14)))
  (import "js" "park_f64" (func (;16;) (type 15)))
  (import "js" "after_externref" (func (;17;) (type 16)))
  (import "js" "fail_externref" (func (;18;) (type 16)))
  (import "js" "park_externref" (func (;19;) (type 17)))
  (import "begin" "0" (func (;20;) (type 18)))
  (import "begin" "1" (func (;21;) (type 19)))
  (import "begin" "2" (func (;22;) (type 20)))
  (import "begin" "3" (func (;23;) (type 21)))
  (import "begin" "4" (func (;24;) (type 15)))
  (import "begin" "5" (func (;25;) (type 22)))
  (import "registers" "0" (global (;0;) (mut i32)))
  (import "registers" "1" (global (;1;) (mut i32)))
  (import "registers" "2" (global (;2;) (mut i32)))
  (import "registers" "3" (global (;3;) (mut i32)))
  (import "js" "registers" (table (;0;) 1 funcref))
  (import "file" "externs" (table (;1;) 0 externref))
  (import "file" "funcs" (table (;2;) 0 funcref))
  (import "js" "memory" (memory (;0;) 1))
  (func (;26;) (type 2) (param i32 i32) (result i32)
    (local i32)
    loop  ;; label = @1
      i32.const 0
      i32.load offset=16
      if  ;; label = @2
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 0
          i32.const 24
          i32.mul
          local.set 2
          local.get 2
          i32.load offset=48
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.const 0
            i32.load offset=8
            i32.store offset=24
            i32.const 0
            local.get 0
            i32.store offset=20
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            local.get 0
            i32.store
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
            global.set 3
            local.get 1
            return
          end
        end
      end
      local.get 0
      local.get 1
      call 2
      local.set 1
      i32.const 0
      i32.load offset=4
      if  ;; label = @2
        i32.const 0
        i32.const 0
        i32.store offset=4
        local.get 0
        call 4
        local.set 1
        i32.const 0
        i32.load
        local.get 0
        i32.ne
        br_if 1 (;@1;)
      end
    end
    i32.const 0
    i32.load offset=12
    i32.const 1
    i32.eq
    if  ;; label = @1
      local.get 0
      i32.const 24
      i32.mul
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
      global.set 3
    else
      local.get 0
      i32.const 0
      call_indirect (type 5)
    end
    local.get 1)
  (func (;27;) (type 5) (param i32)
    (local i32)
    loop  ;; label = @1
      i32.const 0
      i32.load offset=16
      if  ;; label = @2
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 0
          i32.const 24
          i32.mul
          local.set 1
          local.get 1
          i32.load offset=48
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.const 0
            i32.load offset=8
            i32.store offset=24
            i32.const 0
            local.get 0
            i32.store offset=20
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            local.get 0
            i32.store
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
            global.set 3
            return
          end
        end
      end
      local.get 0
      call 5
      i32.const 0
      i32.load offset=4
      if  ;; label = @2
        i32.const 0
        i32.const 0
        i32.store offset=4
        local.get 0
        call 7
        i32.const 0
        i32.load
        local.get 0
        i32.ne
        br_if 1 (;@1;)
      end
    end
    i32.const 0
    i32.load offset=12
    i32.const 1
    i32.eq
    if  ;; label = @1
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
      global.set 3
    else
      local.get 0
      i32.const 0
      call_indirect (type 5)
    end)
  (func (;28;) (type 7) (param i32 i64) (result i64)
    (local i32)
    loop  ;; label = @1
      i32.const 0
      i32.load offset=16
      if  ;; label = @2
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 0
          i32.const 24
          i32.mul
          local.set 2
          local.get 2
          i32.load offset=48
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.const 0
            i32.load offset=8
            i32.store offset=24
            i32.const 0
            local.get 0
            i32.store offset=20
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            local.get 0
            i32.store
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
            global.set 3
            local.get 1
            return
          end
        end
      end
      local.get 0
      local.get 1
      call 8
      local.set 1
      i32.const 0
      i32.load offset=4
      if  ;; label = @2
        i32.const 0
        i32.const 0
        i32.store offset=4
        local.get 0
        call 10
        local.set 1
        i32.const 0
        i32.load
        local.get 0
        i32.ne
        br_if 1 (;@1;)
      end
    end
    i32.const 0
    i32.load offset=12
    i32.const 1
    i32.eq
    if  ;; label = @1
      local.get 0
      i32.const 24
      i32.mul
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
      global.set 3
    else
      local.get 0
      i32.const 0
      call_indirect (type 5)
    end
    local.get 1)
  (func (;29;) (type 10) (param i32 f32) (result f32)
    (local i32)
    loop  ;; label = @1
      i32.const 0
      i32.load offset=16
      if  ;; label = @2
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 0
          i32.const 24
          i32.mul
          local.set 2
          local.get 2
          i32.load offset=48
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.const 0
            i32.load offset=8
            i32.store offset=24
            i32.const 0
            local.get 0
            i32.store offset=20
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            local.get 0
            i32.store
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
            global.set 3
            local.get 1
            return
          end
        end
      end
      local.get 0
      local.get 1
      call 11
      local.set 1
      i32.const 0
      i32.load offset=4
      if  ;; label = @2
        i32.const 0
        i32.const 0
        i32.store offset=4
        local.get 0
        call 13
        local.set 1
        i32.const 0
        i32.load
        local.get 0
        i32.ne
        br_if 1 (;@1;)
      end
    end
    i32.const 0
    i32.load offset=12
    i32.const 1
    i32.eq
    if  ;; label = @1
      local.get 0
      i32.const 24
      i32.mul
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
      global.set 3
    else
      local.get 0
      i32.const 0
      call_indirect (type 5)
    end
    local.get 1)
  (func (;30;) (type 13) (param i32 f64) (result f64)
    (local i32)
    loop  ;; label = @1
      i32.const 0
      i32.load offset=16
      if  ;; label = @2
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 0
          i32.const 24
          i32.mul
          local.set 2
          local.get 2
          i32.load offset=48
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.const 0
            i32.load offset=8
            i32.store offset=24
            i32.const 0
            local.get 0
            i32.store offset=20
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            local.get 0
            i32.store
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
            global.set 3
            local.get 1
            return
          end
        end
      end
      local.get 0
      local.get 1
      call 14
      local.set 1
      i32.const 0
      i32.load offset=4
      if  ;; label = @2
        i32.const 0
        i32.const 0
        i32.store offset=4
        local.get 0
        call 16
        local.set 1
        i32.const 0
        i32.load
        local.get 0
        i32.ne
        br_if 1 (;@1;)
      end
    end
    i32.const 0
    i32.load offset=12
    i32.const 1
    i32.eq
    if  ;; label = @1
      local.get 0
      i32.const 24
      i32.mul
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
      global.set 3
    else
      local.get 0
      i32.const 0
      call_indirect (type 5)
    end
    local.get 1)
  (func (;31;) (type 16) (param i32 externref) (result externref)
    (local i32)
    loop  ;; label = @1
      i32.const 0
      i32.load offset=16
      if  ;; label = @2
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 0
          i32.const 24
          i32.mul
          local.set 2
          local.get 2
          i32.load offset=48
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.const 0
            i32.load offset=8
            i32.store offset=24
            i32.const 0
            local.get 0
            i32.store offset=20
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            local.get 0
            i32.store
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
            global.set 3
            local.get 1
            return
          end
        end
      end
      local.get 0
      local.get 1
      call 17
      local.set 1
      i32.const 0
      i32.load offset=4
      if  ;; label = @2
        i32.const 0
        i32.const 0
        i32.store offset=4
        local.get 0
        call 19
        local.set 1
        i32.const 0
        i32.load
        local.get 0
        i32.ne
        br_if 1 (;@1;)
      end
    end
    i32.const 0
    i32.load offset=12
    i32.const 1
    i32.eq
    if  ;; label = @1
      local.get 0
      i32.const 24
      i32.mul
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
      global.set 3
    else
      local.get 0
      i32.const 0
      call_indirect (type 5)
    end
    local.get 1)
  (func (;32;) (type 18) (param f64) (result i32)
    (local i32 externref i32 i32 i32 i32)
    i32.const 0
    i32.load
    local.set 1
    local.get 1
    if  ;; label = @1
      i32.const 0
      i32.load offset=8
      local.get 1
      i32.eq
      if  ;; label = @2
        local.get 1
        i32.const 0
        call 1
      end
      local.get 1
      i32.const 24
      i32.mul
      local.set 5
      local.get 5
      global.get 0
      i32.store offset=32
      local.get 5
      global.get 1
      i32.store offset=36
      local.get 5
      global.get 2
      i32.store offset=40
      local.get 5
      global.get 3
      i32.store offset=44
      local.get 6
      i32.load offset=32
      global.set 0
      local.get 6
      i32.load offset=36
      global.set 1
      local.get 6
      i32.load offset=40
      global.set 2
      local.get 6
      i32.load offset=44
      global.set 3
      i32.const 0
      local.get 1
      i32.store offset=8
    else
      i32.const 0
      i32.const 0
      call 1
    end
    block (result externref)  ;; label = @1
      try_table  ;; label = @2
        (catch 0 0 (;@1;))
        block (result externref)  ;; label = @3
          try_table (result i32)  ;; label = @4
            (catch 0 0 (;@3;))
            local.get 0
            call 20
          end
          local.set 3
          i32.const 0
          i32.load offset=8
          local.get 1
          i32.eq
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.load offset=12
            i32.const 1
            i32.eq
            if  ;; label = @5
              local.get 1
              i32.const 24
              i32.mul
              local.set 5
              local.get 5
              i32.load offset=32
              global.set 0
              local.get 5
              i32.load offset=36
              global.set 1
              local.get 5
              i32.load offset=40
              global.set 2
              local.get 5
              i32.load offset=44
              global.set 3
            else
              local.get 1
              i32.const 0
              call_indirect (type 5)
            end
            local.get 3
            return
          end
          local.get 1
          local.get 3
          call 26
          return
        end
        local.set 2
        i32.const 0
        i32.load offset=8
        local.get 1
        i32.eq
        local.tee 4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=8
          i32.const 0
          i32.const 0
          i32.store offset=16
          i32.const 0
          i32.load offset=12
          i32.const 1
          i32.eq
          if  ;; label = @4
            local.get 1
            i32.const 24
            i32.mul
            local.set 5
            local.get 5
            i32.load offset=32
            global.set 0
            local.get 5
            i32.load offset=36
            global.set 1
            local.get 5
            i32.load offset=40
            global.set 2
            local.get 5
            i32.load offset=44
            global.set 3
          else
            local.get 1
            i32.const 0
            call_indirect (type 5)
          end
        end
        local.get 1
        local.get 2
        call 3
        local.set 3
        i32.const 0
        i32.load offset=4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=4
          local.get 1
          call 4
          local.set 3
        end
        local.get 4
        if  ;; label = @3
          local.get 3
          return
        end
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 1
          i32.const 24
          i32.mul
          local.set 5
          local.get 5
          i32.load offset=32
          global.set 0
          local.get 5
          i32.load offset=36
          global.set 1
          local.get 5
          i32.load offset=40
          global.set 2
          local.get 5
          i32.load offset=44
          global.set 3
        else
          local.get 1
          i32.const 0
          call_indirect (type 5)
        end
        local.get 3
        return
      end
      unreachable
    end
    local.set 2
    local.get 4
    i32.eqz
    if  ;; label = @1
      i32.const 0
      i32.load offset=12
      i32.const 1
      i32.eq
      if  ;; label = @2
        local.get 1
        i32.const 24
        i32.mul
        local.set 5
        local.get 5
        i32.load offset=32
        global.set 0
        local.get 5
        i32.load offset=36
        global.set 1
        local.get 5
        i32.load offset=40
        global.set 2
        local.get 5
        i32.load offset=44
        global.set 3
      else
        local.get 1
        i32.const 0
        call_indirect (type 5)
      end
    end
    local.get 2
    call 0
    unreachable)
  (func (;33;) (type 19)
    (local i32 externref i32 i32 i32)
    i32.const 0
    i32.load
    local.set 0
    local.get 0
    if  ;; label = @1
      i32.const 0
      i32.load offset=8
      local.get 0
      i32.eq
      if  ;; label = @2
        local.get 0
        i32.const 1
        call 1
      end
      local.get 0
      i32.const 24
      i32.mul
      local.set 3
      local.get 3
      global.get 0
      i32.store offset=32
      local.get 3
      global.get 1
      i32.store offset=36
      local.get 3
      global.get 2
      i32.store offset=40
      local.get 3
      global.get 3
      i32.store offset=44
      local.get 4
      i32.load offset=32
      global.set 0
      local.get 4
      i32.load offset=36
      global.set 1
      local.get 4
      i32.load offset=40
      global.set 2
      local.get 4
      i32.load offset=44
      global.set 3
      i32.const 0
      local.get 0
      i32.store offset=8
    else
      i32.const 0
      i32.const 1
      call 1
    end
    block (result externref)  ;; label = @1
      try_table  ;; label = @2
        (catch 0 0 (;@1;))
        block (result externref)  ;; label = @3
          try_table  ;; label = @4
            (catch 0 0 (;@3;))
            call 21
          end
          i32.const 0
          i32.load offset=8
          local.get 0
          i32.eq
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.load offset=12
            i32.const 1
            i32.eq
            if  ;; label = @5
              local.get 0
              i32.const 24
              i32.mul
              local.set 3
              local.get 3
              i32.load offset=32
              global.set 0
              local.get 3
              i32.load offset=36
              global.set 1
              local.get 3
              i32.load offset=40
              global.set 2
              local.get 3
              i32.load offset=44
              global.set 3
            else
              local.get 0
              i32.const 0
              call_indirect (type 5)
            end
            return
          end
          local.get 0
          call 27
          return
        end
        local.set 1
        i32.const 0
        i32.load offset=8
        local.get 0
        i32.eq
        local.tee 2
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=8
          i32.const 0
          i32.const 0
          i32.store offset=16
          i32.const 0
          i32.load offset=12
          i32.const 1
          i32.eq
          if  ;; label = @4
            local.get 0
            i32.const 24
            i32.mul
            local.set 3
            local.get 3
            i32.load offset=32
            global.set 0
            local.get 3
            i32.load offset=36
            global.set 1
            local.get 3
            i32.load offset=40
            global.set 2
            local.get 3
            i32.load offset=44
            global.set 3
          else
            local.get 0
            i32.const 0
            call_indirect (type 5)
          end
        end
        local.get 0
        local.get 1
        call 6
        i32.const 0
        i32.load offset=4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=4
          local.get 0
          call 7
        end
        local.get 2
        if  ;; label = @3
          return
        end
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 0
          i32.const 24
          i32.mul
          local.set 3
          local.get 3
          i32.load offset=32
          global.set 0
          local.get 3
          i32.load offset=36
          global.set 1
          local.get 3
          i32.load offset=40
          global.set 2
          local.get 3
          i32.load offset=44
          global.set 3
        else
          local.get 0
          i32.const 0
          call_indirect (type 5)
        end
        return
      end
      unreachable
    end
    local.set 1
    local.get 2
    i32.eqz
    if  ;; label = @1
      i32.const 0
      i32.load offset=12
      i32.const 1
      i32.eq
      if  ;; label = @2
        local.get 0
        i32.const 24
        i32.mul
        local.set 3
        local.get 3
        i32.load offset=32
        global.set 0
        local.get 3
        i32.load offset=36
        global.set 1
        local.get 3
        i32.load offset=40
        global.set 2
        local.get 3
        i32.load offset=44
        global.set 3
      else
        local.get 0
        i32.const 0
        call_indirect (type 5)
      end
    end
    local.get 1
    call 0
    unreachable)
  (func (;34;) (type 20) (param i64 f64) (result i64)
    (local i32 externref i64 i32 i32 i32)
    i32.const 0
    i32.load
    local.set 2
    local.get 2
    if  ;; label = @1
      i32.const 0
      i32.load offset=8
      local.get 2
      i32.eq
      if  ;; label = @2
        local.get 2
        i32.const 2
        call 1
      end
      local.get 2
      i32.const 24
      i32.mul
      local.set 6
      local.get 6
      global.get 0
      i32.store offset=32
      local.get 6
      global.get 1
      i32.store offset=36
      local.get 6
      global.get 2
      i32.store offset=40
      local.get 6
      global.get 3
      i32.store offset=44
      local.get 7
      i32.load offset=32
      global.set 0
      local.get 7
      i32.load offset=36
      global.set 1
      local.get 7
      i32.load offset=40
      global.set 2
      local.get 7
      i32.load offset=44
      global.set 3
      i32.const 0
      local.get 2
      i32.store offset=8
    else
      i32.const 0
      i32.const 2
      call 1
    end
    block (result externref)  ;; label = @1
      try_table  ;; label = @2
        (catch 0 0 (;@1;))
        block (result externref)  ;; label = @3
          try_table (result i64)  ;; label = @4
            (catch 0 0 (;@3;))
            local.get 0
            local.get 1
            call 22
          end
          local.set 4
          i32.const 0
          i32.load offset=8
          local.get 2
          i32.eq
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.load offset=12
            i32.const 1
            i32.eq
            if  ;; label = @5
              local.get 2
              i32.const 24
              i32.mul
              local.set 6
              local.get 6
              i32.load offset=32
              global.set 0
              local.get 6
              i32.load offset=36
              global.set 1
              local.get 6
              i32.load offset=40
              global.set 2
              local.get 6
              i32.load offset=44
              global.set 3
            else
              local.get 2
              i32.const 0
              call_indirect (type 5)
            end
            local.get 4
            return
          end
          local.get 2
          local.get 4
          call 28
          return
        end
        local.set 3
        i32.const 0
        i32.load offset=8
        local.get 2
        i32.eq
        local.tee 5
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=8
          i32.const 0
          i32.const 0
          i32.store offset=16
          i32.const 0
          i32.load offset=12
          i32.const 1
          i32.eq
          if  ;; label = @4
            local.get 2
            i32.const 24
            i32.mul
            local.set 6
            local.get 6
            i32.load offset=32
            global.set 0
            local.get 6
            i32.load offset=36
            global.set 1
            local.get 6
            i32.load offset=40
            global.set 2
            local.get 6
            i32.load offset=44
            global.set 3
          else
            local.get 2
            i32.const 0
            call_indirect (type 5)
          end
        end
        local.get 2
        local.get 3
        call 9
        local.set 4
        i32.const 0
        i32.load offset=4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=4
          local.get 2
          call 10
          local.set 4
        end
        local.get 5
        if  ;; label = @3
          local.get 4
          return
        end
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 2
          i32.const 24
          i32.mul
          local.set 6
          local.get 6
          i32.load offset=32
          global.set 0
          local.get 6
          i32.load offset=36
          global.set 1
          local.get 6
          i32.load offset=40
          global.set 2
          local.get 6
          i32.load offset=44
          global.set 3
        else
          local.get 2
          i32.const 0
          call_indirect (type 5)
        end
        local.get 4
        return
      end
      unreachable
    end
    local.set 3
    local.get 5
    i32.eqz
    if  ;; label = @1
      i32.const 0
      i32.load offset=12
      i32.const 1
      i32.eq
      if  ;; label = @2
        local.get 2
        i32.const 24
        i32.mul
        local.set 6
        local.get 6
        i32.load offset=32
        global.set 0
        local.get 6
        i32.load offset=36
        global.set 1
        local.get 6
        i32.load offset=40
        global.set 2
        local.get 6
        i32.load offset=44
        global.set 3
      else
        local.get 2
        i32.const 0
        call_indirect (type 5)
      end
    end
    local.get 3
    call 0
    unreachable)
  (func (;35;) (type 21) (param f32) (result f32)
    (local i32 externref f32 i32 i32 i32)
    i32.const 0
    i32.load
    local.set 1
    local.get 1
    if  ;; label = @1
      i32.const 0
      i32.load offset=8
      local.get 1
      i32.eq
      if  ;; label = @2
        local.get 1
        i32.const 3
        call 1
      end
      local.get 1
      i32.const 24
      i32.mul
      local.set 5
      local.get 5
      global.get 0
      i32.store offset=32
      local.get 5
      global.get 1
      i32.store offset=36
      local.get 5
      global.get 2
      i32.store offset=40
      local.get 5
      global.get 3
      i32.store offset=44
      local.get 6
      i32.load offset=32
      global.set 0
      local.get 6
      i32.load offset=36
      global.set 1
      local.get 6
      i32.load offset=40
      global.set 2
      local.get 6
      i32.load offset=44
      global.set 3
      i32.const 0
      local.get 1
      i32.store offset=8
    else
      i32.const 0
      i32.const 3
      call 1
    end
    block (result externref)  ;; label = @1
      try_table  ;; label = @2
        (catch 0 0 (;@1;))
        block (result externref)  ;; label = @3
          try_table (result f32)  ;; label = @4
            (catch 0 0 (;@3;))
            local.get 0
            call 23
          end
          local.set 3
          i32.const 0
          i32.load offset=8
          local.get 1
          i32.eq
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.load offset=12
            i32.const 1
            i32.eq
            if  ;; label = @5
              local.get 1
              i32.const 24
              i32.mul
              local.set 5
              local.get 5
              i32.load offset=32
              global.set 0
              local.get 5
              i32.load offset=36
              global.set 1
              local.get 5
              i32.load offset=40
              global.set 2
              local.get 5
              i32.load offset=44
              global.set 3
            else
              local.get 1
              i32.const 0
              call_indirect (type 5)
            end
            local.get 3
            return
          end
          local.get 1
          local.get 3
          call 29
          return
        end
        local.set 2
        i32.const 0
        i32.load offset=8
        local.get 1
        i32.eq
        local.tee 4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=8
          i32.const 0
          i32.const 0
          i32.store offset=16
          i32.const 0
          i32.load offset=12
          i32.const 1
          i32.eq
          if  ;; label = @4
            local.get 1
            i32.const 24
            i32.mul
            local.set 5
            local.get 5
            i32.load offset=32
            global.set 0
            local.get 5
            i32.load offset=36
            global.set 1
            local.get 5
            i32.load offset=40
            global.set 2
            local.get 5
            i32.load offset=44
            global.set 3
          else
            local.get 1
            i32.const 0
            call_indirect (type 5)
          end
        end
        local.get 1
        local.get 2
        call 12
        local.set 3
        i32.const 0
        i32.load offset=4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=4
          local.get 1
          call 13
          local.set 3
        end
        local.get 4
        if  ;; label = @3
          local.get 3
          return
        end
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 1
          i32.const 24
          i32.mul
          local.set 5
          local.get 5
          i32.load offset=32
          global.set 0
          local.get 5
          i32.load offset=36
          global.set 1
          local.get 5
          i32.load offset=40
          global.set 2
          local.get 5
          i32.load offset=44
          global.set 3
        else
          local.get 1
          i32.const 0
          call_indirect (type 5)
        end
        local.get 3
        return
      end
      unreachable
    end
    local.set 2
    local.get 4
    i32.eqz
    if  ;; label = @1
      i32.const 0
      i32.load offset=12
      i32.const 1
      i32.eq
      if  ;; label = @2
        local.get 1
        i32.const 24
        i32.mul
        local.set 5
        local.get 5
        i32.load offset=32
        global.set 0
        local.get 5
        i32.load offset=36
        global.set 1
        local.get 5
        i32.load offset=40
        global.set 2
        local.get 5
        i32.load offset=44
        global.set 3
      else
        local.get 1
        i32.const 0
        call_indirect (type 5)
      end
    end
    local.get 2
    call 0
    unreachable)
  (func (;36;) (type 15) (param i32) (result f64)
    (local i32 externref f64 i32 i32 i32)
    i32.const 0
    i32.load
    local.set 1
    local.get 1
    if  ;; label = @1
      i32.const 0
      i32.load offset=8
      local.get 1
      i32.eq
      if  ;; label = @2
        local.get 1
        i32.const 4
        call 1
      end
      local.get 1
      i32.const 24
      i32.mul
      local.set 5
      local.get 5
      global.get 0
      i32.store offset=32
      local.get 5
      global.get 1
      i32.store offset=36
      local.get 5
      global.get 2
      i32.store offset=40
      local.get 5
      global.get 3
      i32.store offset=44
      local.get 6
      i32.load offset=32
      global.set 0
      local.get 6
      i32.load offset=36
      global.set 1
      local.get 6
      i32.load offset=40
      global.set 2
      local.get 6
      i32.load offset=44
      global.set 3
      i32.const 0
      local.get 1
      i32.store offset=8
    else
      i32.const 0
      i32.const 4
      call 1
    end
    block (result externref)  ;; label = @1
      try_table  ;; label = @2
        (catch 0 0 (;@1;))
        block (result externref)  ;; label = @3
          try_table (result f64)  ;; label = @4
            (catch 0 0 (;@3;))
            local.get 0
            call 24
          end
          local.set 3
          i32.const 0
          i32.load offset=8
          local.get 1
          i32.eq
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.load offset=12
            i32.const 1
            i32.eq
            if  ;; label = @5
              local.get 1
              i32.const 24
              i32.mul
              local.set 5
              local.get 5
              i32.load offset=32
              global.set 0
              local.get 5
              i32.load offset=36
              global.set 1
              local.get 5
              i32.load offset=40
              global.set 2
              local.get 5
              i32.load offset=44
              global.set 3
            else
              local.get 1
              i32.const 0
              call_indirect (type 5)
            end
            local.get 3
            return
          end
          local.get 1
          local.get 3
          call 30
          return
        end
        local.set 2
        i32.const 0
        i32.load offset=8
        local.get 1
        i32.eq
        local.tee 4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=8
          i32.const 0
          i32.const 0
          i32.store offset=16
          i32.const 0
          i32.load offset=12
          i32.const 1
          i32.eq
          if  ;; label = @4
            local.get 1
            i32.const 24
            i32.mul
            local.set 5
            local.get 5
            i32.load offset=32
            global.set 0
            local.get 5
            i32.load offset=36
            global.set 1
            local.get 5
            i32.load offset=40
            global.set 2
            local.get 5
            i32.load offset=44
            global.set 3
          else
            local.get 1
            i32.const 0
            call_indirect (type 5)
          end
        end
        local.get 1
        local.get 2
        call 15
        local.set 3
        i32.const 0
        i32.load offset=4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=4
          local.get 1
          call 16
          local.set 3
        end
        local.get 4
        if  ;; label = @3
          local.get 3
          return
        end
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 1
          i32.const 24
          i32.mul
          local.set 5
          local.get 5
          i32.load offset=32
          global.set 0
          local.get 5
          i32.load offset=36
          global.set 1
          local.get 5
          i32.load offset=40
          global.set 2
          local.get 5
          i32.load offset=44
          global.set 3
        else
          local.get 1
          i32.const 0
          call_indirect (type 5)
        end
        local.get 3
        return
      end
      unreachable
    end
    local.set 2
    local.get 4
    i32.eqz
    if  ;; label = @1
      i32.const 0
      i32.load offset=12
      i32.const 1
      i32.eq
      if  ;; label = @2
        local.get 1
        i32.const 24
        i32.mul
        local.set 5
        local.get 5
        i32.load offset=32
        global.set 0
        local.get 5
        i32.load offset=36
        global.set 1
        local.get 5
        i32.load offset=40
        global.set 2
        local.get 5
        i32.load offset=44
        global.set 3
      else
        local.get 1
        i32.const 0
        call_indirect (type 5)
      end
    end
    local.get 2
    call 0
    unreachable)
  (func (;37;) (type 22) (param externref i32) (result externref)
    (local i32 externref externref i32 i32 i32)
    i32.const 0
    i32.load
    local.set 2
    local.get 2
    if  ;; label = @1
      i32.const 0
      i32.load offset=8
      local.get 2
      i32.eq
      if  ;; label = @2
        local.get 2
        i32.const 5
        call 1
      end
      local.get 2
      i32.const 24
      i32.mul
      local.set 6
      local.get 6
      global.get 0
      i32.store offset=32
      local.get 6
      global.get 1
      i32.store offset=36
      local.get 6
      global.get 2
      i32.store offset=40
      local.get 6
      global.get 3
      i32.store offset=44
      local.get 7
      i32.load offset=32
      global.set 0
      local.get 7
      i32.load offset=36
      global.set 1
      local.get 7
      i32.load offset=40
      global.set 2
      local.get 7
      i32.load offset=44
      global.set 3
      i32.const 0
      local.get 2
      i32.store offset=8
    else
      i32.const 0
      i32.const 5
      call 1
    end
    block (result externref)  ;; label = @1
      try_table  ;; label = @2
        (catch 0 0 (;@1;))
        block (result externref)  ;; label = @3
          try_table (result externref)  ;; label = @4
            (catch 0 0 (;@3;))
            local.get 0
            local.get 1
            call 25
          end
          local.set 4
          i32.const 0
          i32.load offset=8
          local.get 2
          i32.eq
          if  ;; label = @4
            i32.const 0
            i32.const 0
            i32.store offset=8
            i32.const 0
            i32.const 0
            i32.store offset=16
            i32.const 0
            i32.load offset=12
            i32.const 1
            i32.eq
            if  ;; label = @5
              local.get 2
              i32.const 24
              i32.mul
              local.set 6
              local.get 6
              i32.load offset=32
              global.set 0
              local.get 6
              i32.load offset=36
              global.set 1
              local.get 6
              i32.load offset=40
              global.set 2
              local.get 6
              i32.load offset=44
              global.set 3
            else
              local.get 2
              i32.const 0
              call_indirect (type 5)
            end
            local.get 4
            return
          end
          local.get 2
          local.get 4
          call 31
          return
        end
        local.set 3
        i32.const 0
        i32.load offset=8
        local.get 2
        i32.eq
        local.tee 5
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=8
          i32.const 0
          i32.const 0
          i32.store offset=16
          i32.const 0
          i32.load offset=12
          i32.const 1
          i32.eq
          if  ;; label = @4
            local.get 2
            i32.const 24
            i32.mul
            local.set 6
            local.get 6
            i32.load offset=32
            global.set 0
            local.get 6
            i32.load offset=36
            global.set 1
            local.get 6
            i32.load offset=40
            global.set 2
            local.get 6
            i32.load offset=44
            global.set 3
          else
            local.get 2
            i32.const 0
            call_indirect (type 5)
          end
        end
        local.get 2
        local.get 3
        call 18
        local.set 4
        i32.const 0
        i32.load offset=4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=4
          local.get 2
          call 19
          local.set 4
        end
        local.get 5
        if  ;; label = @3
          local.get 4
          return
        end
        i32.const 0
        i32.load offset=12
        i32.const 1
        i32.eq
        if  ;; label = @3
          local.get 2
          i32.const 24
          i32.mul
          local.set 6
          local.get 6
          i32.load offset=32
          global.set 0
          local.get 6
          i32.load offset=36
          global.set 1
          local.get 6
          i32.load offset=40
          global.set 2
          local.get 6
          i32.load offset=44
          global.set 3
        else
          local.get 2
          i32.const 0
          call_indirect (type 5)
        end
        local.get 4
        return
      end
      unreachable
    end
    local.set 3
    local.get 5
    i32.eqz
    if  ;; label = @1
      i32.const 0
      i32.load offset=12
      i32.const 1
      i32.eq
      if  ;; label = @2
        local.get 2
        i32.const 24
        i32.mul
        local.set 6
        local.get 6
        i32.load offset=32
        global.set 0
        local.get 6
        i32.load offset=36
        global.set 1
        local.get 6
        i32.load offset=40
        global.set 2
        local.get 6
        i32.load offset=44
        global.set 3
      else
        local.get 2
        i32.const 0
        call_indirect (type 5)
      end
    end
    local.get 3
    call 0
    unreachable)
  (export "0" (func 32))
  (export "1" (func 33))
  (export "2" (func 34))
  (export "3" (func 35))
  (export "4" (func 36))
  (export "5" (func 37)))
