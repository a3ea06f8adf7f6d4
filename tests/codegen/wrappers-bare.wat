;; wrappers-bare: the wrappers of two waits, for a program without registers
;; 1187 bytes, sha256 058bffff80f314e53105c27f194cf1bae532922868c5336444b0dfeb1f4b6f11
(module
  (type (;0;) (func (param externref)))
  (type (;1;) (func (param i32 i32)))
  (type (;2;) (func (param i32 i32) (result i32)))
  (type (;3;) (func (param i32 externref) (result i32)))
  (type (;4;) (func (param i32) (result i32)))
  (type (;5;) (func (param i32)))
  (type (;6;) (func (param i32 externref)))
  (type (;7;) (func (param f64) (result i32)))
  (type (;8;) (func))
  (import "js" "tag" (tag (;0;) (type 0) (param externref)))
  (import "js" "raise" (func (;0;) (type 0)))
  (import "js" "foreign" (func (;1;) (type 1)))
  (import "js" "after_i32" (func (;2;) (type 2)))
  (import "js" "fail_i32" (func (;3;) (type 3)))
  (import "js" "park_i32" (func (;4;) (type 4)))
  (import "js" "after_void" (func (;5;) (type 5)))
  (import "js" "fail_void" (func (;6;) (type 6)))
  (import "js" "park_void" (func (;7;) (type 5)))
  (import "begin" "0" (func (;8;) (type 7)))
  (import "begin" "1" (func (;9;) (type 8)))
  (import "js" "registers" (table (;0;) 1 funcref))
  (import "file" "externs" (table (;1;) 0 externref))
  (import "file" "funcs" (table (;2;) 0 funcref))
  (import "js" "memory" (memory (;0;) 1))
  (func (;10;) (type 2) (param i32 i32) (result i32)
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
          i32.const 8
          i32.mul
          local.set 2
          local.get 2
          i32.load offset=32
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
      i32.const 8
      i32.mul
      local.set 2
    else
      local.get 0
      i32.const 0
      call_indirect (type 5)
    end
    local.get 1)
  (func (;11;) (type 5) (param i32)
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
          i32.const 8
          i32.mul
          local.set 1
          local.get 1
          i32.load offset=32
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
      i32.const 8
      i32.mul
      local.set 1
    else
      local.get 0
      i32.const 0
      call_indirect (type 5)
    end)
  (func (;12;) (type 7) (param f64) (result i32)
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
      i32.const 8
      i32.mul
      local.set 5
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
            i32.const 1
            i32.eq
            if  ;; label = @5
              local.get 1
              i32.const 8
              i32.mul
              local.set 5
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
          call 10
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
            i32.const 8
            i32.mul
            local.set 5
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
          i32.const 8
          i32.mul
          local.set 5
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
        i32.const 8
        i32.mul
        local.set 5
      else
        local.get 1
        i32.const 0
        call_indirect (type 5)
      end
    end
    local.get 2
    call 0
    unreachable)
  (func (;13;) (type 8)
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
      i32.const 8
      i32.mul
      local.set 3
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
            call 9
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
              i32.const 8
              i32.mul
              local.set 3
            else
              local.get 0
              i32.const 0
              call_indirect (type 5)
            end
            return
          end
          local.get 0
          call 11
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
            i32.const 8
            i32.mul
            local.set 3
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
          i32.const 8
          i32.mul
          local.set 3
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
        i32.const 8
        i32.mul
        local.set 3
      else
        local.get 0
        i32.const 0
        call_indirect (type 5)
      end
    end
    local.get 1
    call 0
    unreachable)
  (export "0" (func 12))
  (export "1" (func 13)))
