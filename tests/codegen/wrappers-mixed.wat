;; wrappers-mixed: the wrappers of three waits, for registers of every type, after a loaded module added one (generation 2)
;; 3421 bytes, sha256 c3f497bc08143aeb1424c3df787ddf6f5b9774b39ef5951f92bc6b5af858aaf1
(module
  (type (;0;) (func (param externref)))
  (type (;1;) (func (param i32 i32)))
  (type (;2;) (func (param i32 i32) (result i32)))
  (type (;3;) (func (param i32 externref) (result i32)))
  (type (;4;) (func (param i32) (result i32)))
  (type (;5;) (func (param i32 externref) (result externref)))
  (type (;6;) (func (param i32) (result externref)))
  (type (;7;) (func (param f64) (result i32)))
  (type (;8;) (func (param externref i32) (result externref)))
  (type (;9;) (func (param i32)))
  (import "js" "tag" (tag (;0;) (type 0) (param externref)))
  (import "js" "raise" (func (;0;) (type 0)))
  (import "js" "foreign" (func (;1;) (type 1)))
  (import "js" "after_i32" (func (;2;) (type 2)))
  (import "js" "fail_i32" (func (;3;) (type 3)))
  (import "js" "park_i32" (func (;4;) (type 4)))
  (import "js" "after_externref" (func (;5;) (type 5)))
  (import "js" "fail_externref" (func (;6;) (type 5)))
  (import "js" "park_externref" (func (;7;) (type 6)))
  (import "begin" "0" (func (;8;) (type 7)))
  (import "begin" "1" (func (;9;) (type 8)))
  (import "begin" "2" (func (;10;) (type 4)))
  (import "registers" "0" (global (;0;) (mut i64)))
  (import "registers" "1" (global (;1;) (mut externref)))
  (import "registers" "2" (global (;2;) (mut f64)))
  (import "registers" "3" (global (;3;) (mut funcref)))
  (import "registers" "4" (global (;4;) (mut f32)))
  (import "registers" "5" (global (;5;) (mut i32)))
  (import "registers" "6" (global (;6;) (mut externref)))
  (import "registers" "7" (global (;7;) (mut i32)))
  (import "registers" "8" (global (;8;) (mut i32)))
  (import "js" "registers" (table (;0;) 1 funcref))
  (import "file" "externs" (table (;1;) 0 externref))
  (import "file" "funcs" (table (;2;) 0 funcref))
  (import "js" "memory" (memory (;0;) 1))
  (func (;11;) (type 2) (param i32 i32) (result i32)
    (local i32)
    loop  ;; label = @1
      i32.const 0
      i32.load offset=16
      if  ;; label = @2
        i32.const 0
        i32.load offset=12
        i32.const 2
        i32.eq
        if  ;; label = @3
          local.get 0
          i32.const 40
          i32.mul
          local.set 2
          local.get 2
          i32.load offset=64
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
            i64.load offset=32
            global.set 0
            local.get 0
            i32.const 2
            i32.mul
            i32.const 0
            i32.add
            table.get 1
            global.set 1
            local.get 2
            f64.load offset=40
            global.set 2
            local.get 0
            i32.const 1
            i32.mul
            i32.const 0
            i32.add
            table.get 2
            global.set 3
            local.get 2
            f32.load offset=48
            global.set 4
            local.get 2
            i32.load offset=52
            global.set 5
            local.get 0
            i32.const 2
            i32.mul
            i32.const 1
            i32.add
            table.get 1
            global.set 6
            local.get 2
            i32.load offset=56
            global.set 7
            local.get 2
            i32.load offset=60
            global.set 8
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
    i32.const 2
    i32.eq
    if  ;; label = @1
      local.get 0
      i32.const 40
      i32.mul
      local.set 2
      local.get 2
      i64.load offset=32
      global.set 0
      local.get 0
      i32.const 2
      i32.mul
      i32.const 0
      i32.add
      table.get 1
      global.set 1
      local.get 2
      f64.load offset=40
      global.set 2
      local.get 0
      i32.const 1
      i32.mul
      i32.const 0
      i32.add
      table.get 2
      global.set 3
      local.get 2
      f32.load offset=48
      global.set 4
      local.get 2
      i32.load offset=52
      global.set 5
      local.get 0
      i32.const 2
      i32.mul
      i32.const 1
      i32.add
      table.get 1
      global.set 6
      local.get 2
      i32.load offset=56
      global.set 7
      local.get 2
      i32.load offset=60
      global.set 8
    else
      local.get 0
      i32.const 0
      call_indirect (type 9)
    end
    local.get 1)
  (func (;12;) (type 5) (param i32 externref) (result externref)
    (local i32)
    loop  ;; label = @1
      i32.const 0
      i32.load offset=16
      if  ;; label = @2
        i32.const 0
        i32.load offset=12
        i32.const 2
        i32.eq
        if  ;; label = @3
          local.get 0
          i32.const 40
          i32.mul
          local.set 2
          local.get 2
          i32.load offset=64
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
            i64.load offset=32
            global.set 0
            local.get 0
            i32.const 2
            i32.mul
            i32.const 0
            i32.add
            table.get 1
            global.set 1
            local.get 2
            f64.load offset=40
            global.set 2
            local.get 0
            i32.const 1
            i32.mul
            i32.const 0
            i32.add
            table.get 2
            global.set 3
            local.get 2
            f32.load offset=48
            global.set 4
            local.get 2
            i32.load offset=52
            global.set 5
            local.get 0
            i32.const 2
            i32.mul
            i32.const 1
            i32.add
            table.get 1
            global.set 6
            local.get 2
            i32.load offset=56
            global.set 7
            local.get 2
            i32.load offset=60
            global.set 8
            local.get 1
            return
          end
        end
      end
      local.get 0
      local.get 1
      call 5
      local.set 1
      i32.const 0
      i32.load offset=4
      if  ;; label = @2
        i32.const 0
        i32.const 0
        i32.store offset=4
        local.get 0
        call 7
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
    i32.const 2
    i32.eq
    if  ;; label = @1
      local.get 0
      i32.const 40
      i32.mul
      local.set 2
      local.get 2
      i64.load offset=32
      global.set 0
      local.get 0
      i32.const 2
      i32.mul
      i32.const 0
      i32.add
      table.get 1
      global.set 1
      local.get 2
      f64.load offset=40
      global.set 2
      local.get 0
      i32.const 1
      i32.mul
      i32.const 0
      i32.add
      table.get 2
      global.set 3
      local.get 2
      f32.load offset=48
      global.set 4
      local.get 2
      i32.load offset=52
      global.set 5
      local.get 0
      i32.const 2
      i32.mul
      i32.const 1
      i32.add
      table.get 1
      global.set 6
      local.get 2
      i32.load offset=56
      global.set 7
      local.get 2
      i32.load offset=60
      global.set 8
    else
      local.get 0
      i32.const 0
      call_indirect (type 9)
    end
    local.get 1)
  (func (;13;) (type 7) (param f64) (result i32)
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
      i32.const 40
      i32.mul
      local.set 5
      local.get 5
      global.get 0
      i64.store offset=32
      local.get 1
      i32.const 2
      i32.mul
      i32.const 0
      i32.add
      global.get 1
      table.set 1
      local.get 5
      global.get 2
      f64.store offset=40
      local.get 1
      i32.const 1
      i32.mul
      i32.const 0
      i32.add
      global.get 3
      table.set 2
      local.get 5
      global.get 4
      f32.store offset=48
      local.get 5
      global.get 5
      i32.store offset=52
      local.get 1
      i32.const 2
      i32.mul
      i32.const 1
      i32.add
      global.get 6
      table.set 1
      local.get 5
      global.get 7
      i32.store offset=56
      local.get 5
      global.get 8
      i32.store offset=60
      local.get 6
      i64.load offset=32
      global.set 0
      local.get 6
      i32.const 2
      i32.mul
      i32.const 0
      i32.add
      table.get 1
      global.set 1
      local.get 6
      f64.load offset=40
      global.set 2
      local.get 6
      i32.const 1
      i32.mul
      i32.const 0
      i32.add
      table.get 2
      global.set 3
      local.get 6
      f32.load offset=48
      global.set 4
      local.get 6
      i32.load offset=52
      global.set 5
      local.get 6
      i32.const 2
      i32.mul
      i32.const 1
      i32.add
      table.get 1
      global.set 6
      local.get 6
      i32.load offset=56
      global.set 7
      local.get 6
      i32.load offset=60
      global.set 8
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
            call 8
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
            i32.const 2
            i32.eq
            if  ;; label = @5
              local.get 1
              i32.const 40
              i32.mul
              local.set 5
              local.get 5
              i64.load offset=32
              global.set 0
              local.get 1
              i32.const 2
              i32.mul
              i32.const 0
              i32.add
              table.get 1
              global.set 1
              local.get 5
              f64.load offset=40
              global.set 2
              local.get 1
              i32.const 1
              i32.mul
              i32.const 0
              i32.add
              table.get 2
              global.set 3
              local.get 5
              f32.load offset=48
              global.set 4
              local.get 5
              i32.load offset=52
              global.set 5
              local.get 1
              i32.const 2
              i32.mul
              i32.const 1
              i32.add
              table.get 1
              global.set 6
              local.get 5
              i32.load offset=56
              global.set 7
              local.get 5
              i32.load offset=60
              global.set 8
            else
              local.get 1
              i32.const 0
              call_indirect (type 9)
            end
            local.get 3
            return
          end
          local.get 1
          local.get 3
          call 11
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
          i32.const 2
          i32.eq
          if  ;; label = @4
            local.get 1
            i32.const 40
            i32.mul
            local.set 5
            local.get 5
            i64.load offset=32
            global.set 0
            local.get 1
            i32.const 2
            i32.mul
            i32.const 0
            i32.add
            table.get 1
            global.set 1
            local.get 5
            f64.load offset=40
            global.set 2
            local.get 1
            i32.const 1
            i32.mul
            i32.const 0
            i32.add
            table.get 2
            global.set 3
            local.get 5
            f32.load offset=48
            global.set 4
            local.get 5
            i32.load offset=52
            global.set 5
            local.get 1
            i32.const 2
            i32.mul
            i32.const 1
            i32.add
            table.get 1
            global.set 6
            local.get 5
            i32.load offset=56
            global.set 7
            local.get 5
            i32.load offset=60
            global.set 8
          else
            local.get 1
            i32.const 0
            call_indirect (type 9)
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
        i32.const 2
        i32.eq
        if  ;; label = @3
          local.get 1
          i32.const 40
          i32.mul
          local.set 5
          local.get 5
          i64.load offset=32
          global.set 0
          local.get 1
          i32.const 2
          i32.mul
          i32.const 0
          i32.add
          table.get 1
          global.set 1
          local.get 5
          f64.load offset=40
          global.set 2
          local.get 1
          i32.const 1
          i32.mul
          i32.const 0
          i32.add
          table.get 2
          global.set 3
          local.get 5
          f32.load offset=48
          global.set 4
          local.get 5
          i32.load offset=52
          global.set 5
          local.get 1
          i32.const 2
          i32.mul
          i32.const 1
          i32.add
          table.get 1
          global.set 6
          local.get 5
          i32.load offset=56
          global.set 7
          local.get 5
          i32.load offset=60
          global.set 8
        else
          local.get 1
          i32.const 0
          call_indirect (type 9)
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
      i32.const 2
      i32.eq
      if  ;; label = @2
        local.get 1
        i32.const 40
        i32.mul
        local.set 5
        local.get 5
        i64.load offset=32
        global.set 0
        local.get 1
        i32.const 2
        i32.mul
        i32.const 0
        i32.add
        table.get 1
        global.set 1
        local.get 5
        f64.load offset=40
        global.set 2
        local.get 1
        i32.const 1
        i32.mul
        i32.const 0
        i32.add
        table.get 2
        global.set 3
        local.get 5
        f32.load offset=48
        global.set 4
        local.get 5
        i32.load offset=52
        global.set 5
        local.get 1
        i32.const 2
        i32.mul
        i32.const 1
        i32.add
        table.get 1
        global.set 6
        local.get 5
        i32.load offset=56
        global.set 7
        local.get 5
        i32.load offset=60
        global.set 8
      else
        local.get 1
        i32.const 0
        call_indirect (type 9)
      end
    end
    local.get 2
    call 0
    unreachable)
  (func (;14;) (type 8) (param externref i32) (result externref)
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
        i32.const 1
        call 1
      end
      local.get 2
      i32.const 40
      i32.mul
      local.set 6
      local.get 6
      global.get 0
      i64.store offset=32
      local.get 2
      i32.const 2
      i32.mul
      i32.const 0
      i32.add
      global.get 1
      table.set 1
      local.get 6
      global.get 2
      f64.store offset=40
      local.get 2
      i32.const 1
      i32.mul
      i32.const 0
      i32.add
      global.get 3
      table.set 2
      local.get 6
      global.get 4
      f32.store offset=48
      local.get 6
      global.get 5
      i32.store offset=52
      local.get 2
      i32.const 2
      i32.mul
      i32.const 1
      i32.add
      global.get 6
      table.set 1
      local.get 6
      global.get 7
      i32.store offset=56
      local.get 6
      global.get 8
      i32.store offset=60
      local.get 7
      i64.load offset=32
      global.set 0
      local.get 7
      i32.const 2
      i32.mul
      i32.const 0
      i32.add
      table.get 1
      global.set 1
      local.get 7
      f64.load offset=40
      global.set 2
      local.get 7
      i32.const 1
      i32.mul
      i32.const 0
      i32.add
      table.get 2
      global.set 3
      local.get 7
      f32.load offset=48
      global.set 4
      local.get 7
      i32.load offset=52
      global.set 5
      local.get 7
      i32.const 2
      i32.mul
      i32.const 1
      i32.add
      table.get 1
      global.set 6
      local.get 7
      i32.load offset=56
      global.set 7
      local.get 7
      i32.load offset=60
      global.set 8
      i32.const 0
      local.get 2
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
          try_table (result externref)  ;; label = @4
            (catch 0 0 (;@3;))
            local.get 0
            local.get 1
            call 9
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
            i32.const 2
            i32.eq
            if  ;; label = @5
              local.get 2
              i32.const 40
              i32.mul
              local.set 6
              local.get 6
              i64.load offset=32
              global.set 0
              local.get 2
              i32.const 2
              i32.mul
              i32.const 0
              i32.add
              table.get 1
              global.set 1
              local.get 6
              f64.load offset=40
              global.set 2
              local.get 2
              i32.const 1
              i32.mul
              i32.const 0
              i32.add
              table.get 2
              global.set 3
              local.get 6
              f32.load offset=48
              global.set 4
              local.get 6
              i32.load offset=52
              global.set 5
              local.get 2
              i32.const 2
              i32.mul
              i32.const 1
              i32.add
              table.get 1
              global.set 6
              local.get 6
              i32.load offset=56
              global.set 7
              local.get 6
              i32.load offset=60
              global.set 8
            else
              local.get 2
              i32.const 0
              call_indirect (type 9)
            end
            local.get 4
            return
          end
          local.get 2
          local.get 4
          call 12
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
          i32.const 2
          i32.eq
          if  ;; label = @4
            local.get 2
            i32.const 40
            i32.mul
            local.set 6
            local.get 6
            i64.load offset=32
            global.set 0
            local.get 2
            i32.const 2
            i32.mul
            i32.const 0
            i32.add
            table.get 1
            global.set 1
            local.get 6
            f64.load offset=40
            global.set 2
            local.get 2
            i32.const 1
            i32.mul
            i32.const 0
            i32.add
            table.get 2
            global.set 3
            local.get 6
            f32.load offset=48
            global.set 4
            local.get 6
            i32.load offset=52
            global.set 5
            local.get 2
            i32.const 2
            i32.mul
            i32.const 1
            i32.add
            table.get 1
            global.set 6
            local.get 6
            i32.load offset=56
            global.set 7
            local.get 6
            i32.load offset=60
            global.set 8
          else
            local.get 2
            i32.const 0
            call_indirect (type 9)
          end
        end
        local.get 2
        local.get 3
        call 6
        local.set 4
        i32.const 0
        i32.load offset=4
        if  ;; label = @3
          i32.const 0
          i32.const 0
          i32.store offset=4
          local.get 2
          call 7
          local.set 4
        end
        local.get 5
        if  ;; label = @3
          local.get 4
          return
        end
        i32.const 0
        i32.load offset=12
        i32.const 2
        i32.eq
        if  ;; label = @3
          local.get 2
          i32.const 40
          i32.mul
          local.set 6
          local.get 6
          i64.load offset=32
          global.set 0
          local.get 2
          i32.const 2
          i32.mul
          i32.const 0
          i32.add
          table.get 1
          global.set 1
          local.get 6
          f64.load offset=40
          global.set 2
          local.get 2
          i32.const 1
          i32.mul
          i32.const 0
          i32.add
          table.get 2
          global.set 3
          local.get 6
          f32.load offset=48
          global.set 4
          local.get 6
          i32.load offset=52
          global.set 5
          local.get 2
          i32.const 2
          i32.mul
          i32.const 1
          i32.add
          table.get 1
          global.set 6
          local.get 6
          i32.load offset=56
          global.set 7
          local.get 6
          i32.load offset=60
          global.set 8
        else
          local.get 2
          i32.const 0
          call_indirect (type 9)
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
      i32.const 2
      i32.eq
      if  ;; label = @2
        local.get 2
        i32.const 40
        i32.mul
        local.set 6
        local.get 6
        i64.load offset=32
        global.set 0
        local.get 2
        i32.const 2
        i32.mul
        i32.const 0
        i32.add
        table.get 1
        global.set 1
        local.get 6
        f64.load offset=40
        global.set 2
        local.get 2
        i32.const 1
        i32.mul
        i32.const 0
        i32.add
        table.get 2
        global.set 3
        local.get 6
        f32.load offset=48
        global.set 4
        local.get 6
        i32.load offset=52
        global.set 5
        local.get 2
        i32.const 2
        i32.mul
        i32.const 1
        i32.add
        table.get 1
        global.set 6
        local.get 6
        i32.load offset=56
        global.set 7
        local.get 6
        i32.load offset=60
        global.set 8
      else
        local.get 2
        i32.const 0
        call_indirect (type 9)
      end
    end
    local.get 3
    call 0
    unreachable)
  (func (;15;) (type 4) (param i32) (result i32)
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
        i32.const 2
        call 1
      end
      local.get 1
      i32.const 40
      i32.mul
      local.set 5
      local.get 5
      global.get 0
      i64.store offset=32
      local.get 1
      i32.const 2
      i32.mul
      i32.const 0
      i32.add
      global.get 1
      table.set 1
      local.get 5
      global.get 2
      f64.store offset=40
      local.get 1
      i32.const 1
      i32.mul
      i32.const 0
      i32.add
      global.get 3
      table.set 2
      local.get 5
      global.get 4
      f32.store offset=48
      local.get 5
      global.get 5
      i32.store offset=52
      local.get 1
      i32.const 2
      i32.mul
      i32.const 1
      i32.add
      global.get 6
      table.set 1
      local.get 5
      global.get 7
      i32.store offset=56
      local.get 5
      global.get 8
      i32.store offset=60
      local.get 6
      i64.load offset=32
      global.set 0
      local.get 6
      i32.const 2
      i32.mul
      i32.const 0
      i32.add
      table.get 1
      global.set 1
      local.get 6
      f64.load offset=40
      global.set 2
      local.get 6
      i32.const 1
      i32.mul
      i32.const 0
      i32.add
      table.get 2
      global.set 3
      local.get 6
      f32.load offset=48
      global.set 4
      local.get 6
      i32.load offset=52
      global.set 5
      local.get 6
      i32.const 2
      i32.mul
      i32.const 1
      i32.add
      table.get 1
      global.set 6
      local.get 6
      i32.load offset=56
      global.set 7
      local.get 6
      i32.load offset=60
      global.set 8
      i32.const 0
      local.get 1
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
          try_table (result i32)  ;; label = @4
            (catch 0 0 (;@3;))
            local.get 0
            call 10
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
            i32.const 2
            i32.eq
            if  ;; label = @5
              local.get 1
              i32.const 40
              i32.mul
              local.set 5
              local.get 5
              i64.load offset=32
              global.set 0
              local.get 1
              i32.const 2
              i32.mul
              i32.const 0
              i32.add
              table.get 1
              global.set 1
              local.get 5
              f64.load offset=40
              global.set 2
              local.get 1
              i32.const 1
              i32.mul
              i32.const 0
              i32.add
              table.get 2
              global.set 3
              local.get 5
              f32.load offset=48
              global.set 4
              local.get 5
              i32.load offset=52
              global.set 5
              local.get 1
              i32.const 2
              i32.mul
              i32.const 1
              i32.add
              table.get 1
              global.set 6
              local.get 5
              i32.load offset=56
              global.set 7
              local.get 5
              i32.load offset=60
              global.set 8
            else
              local.get 1
              i32.const 0
              call_indirect (type 9)
            end
            local.get 3
            return
          end
          local.get 1
          local.get 3
          call 11
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
          i32.const 2
          i32.eq
          if  ;; label = @4
            local.get 1
            i32.const 40
            i32.mul
            local.set 5
            local.get 5
            i64.load offset=32
            global.set 0
            local.get 1
            i32.const 2
            i32.mul
            i32.const 0
            i32.add
            table.get 1
            global.set 1
            local.get 5
            f64.load offset=40
            global.set 2
            local.get 1
            i32.const 1
            i32.mul
            i32.const 0
            i32.add
            table.get 2
            global.set 3
            local.get 5
            f32.load offset=48
            global.set 4
            local.get 5
            i32.load offset=52
            global.set 5
            local.get 1
            i32.const 2
            i32.mul
            i32.const 1
            i32.add
            table.get 1
            global.set 6
            local.get 5
            i32.load offset=56
            global.set 7
            local.get 5
            i32.load offset=60
            global.set 8
          else
            local.get 1
            i32.const 0
            call_indirect (type 9)
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
        i32.const 2
        i32.eq
        if  ;; label = @3
          local.get 1
          i32.const 40
          i32.mul
          local.set 5
          local.get 5
          i64.load offset=32
          global.set 0
          local.get 1
          i32.const 2
          i32.mul
          i32.const 0
          i32.add
          table.get 1
          global.set 1
          local.get 5
          f64.load offset=40
          global.set 2
          local.get 1
          i32.const 1
          i32.mul
          i32.const 0
          i32.add
          table.get 2
          global.set 3
          local.get 5
          f32.load offset=48
          global.set 4
          local.get 5
          i32.load offset=52
          global.set 5
          local.get 1
          i32.const 2
          i32.mul
          i32.const 1
          i32.add
          table.get 1
          global.set 6
          local.get 5
          i32.load offset=56
          global.set 7
          local.get 5
          i32.load offset=60
          global.set 8
        else
          local.get 1
          i32.const 0
          call_indirect (type 9)
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
      i32.const 2
      i32.eq
      if  ;; label = @2
        local.get 1
        i32.const 40
        i32.mul
        local.set 5
        local.get 5
        i64.load offset=32
        global.set 0
        local.get 1
        i32.const 2
        i32.mul
        i32.const 0
        i32.add
        table.get 1
        global.set 1
        local.get 5
        f64.load offset=40
        global.set 2
        local.get 1
        i32.const 1
        i32.mul
        i32.const 0
        i32.add
        table.get 2
        global.set 3
        local.get 5
        f32.load offset=48
        global.set 4
        local.get 5
        i32.load offset=52
        global.set 5
        local.get 1
        i32.const 2
        i32.mul
        i32.const 1
        i32.add
        table.get 1
        global.set 6
        local.get 5
        i32.load offset=56
        global.set 7
        local.get 5
        i32.load offset=60
        global.set 8
      else
        local.get 1
        i32.const 0
        call_indirect (type 9)
      end
    end
    local.get 2
    call 0
    unreachable)
  (export "0" (func 13))
  (export "1" (func 14))
  (export "2" (func 15)))
