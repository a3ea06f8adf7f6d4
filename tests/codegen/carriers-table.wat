;; carriers-table: the carriers of a program that starts tasks only through its function table
;; 277 bytes, sha256 cf360bbf6580645553bcf78dad3433e858ad2b508a0193a43ce1e0bfde6381ce
(module
  (type (;0;) (func (param i32 i32) (result i32)))
  (type (;1;) (func (result i32)))
  (type (;2;) (func (param i32)))
  (type (;3;) (func (param i32 i32)))
  (type (;4;) (func (param i32 i32 i32)))
  (type (;5;) (func (param i32) (result i32)))
  (import "js" "next" (func (;0;) (type 0)))
  (import "js" "idle" (func (;1;) (type 1)))
  (import "js" "ask" (func (;2;) (type 1)))
  (import "program" "table" (table (;0;) 0 funcref))
  (func (;3;) (type 3) (param i32 i32)
    local.get 1
    local.get 0
    call_indirect (type 2))
  (func (;4;) (type 5) (param i32) (result i32)
    (local i32 i32 i32)
    loop  ;; label = @1
      local.get 0
      i32.const 20
      i32.mul
      local.set 3
      local.get 3
      i32.load offset=16
      local.get 3
      i32.load offset=12
      i32.const 65536
      i32.const 0
      call_indirect 1 (type 4)
      local.get 3
      i32.load
      local.set 1
      local.get 1
      i32.const 0
      i32.ge_s
      if  ;; label = @2
        local.get 3
        i32.load offset=4
        local.get 1
        call_indirect (type 5)
        local.set 2
      else
        unreachable
      end
      i32.const 0
      i32.const 1
      call_indirect 1 (type 2)
      local.get 0
      local.get 2
      call 0
      local.set 0
      block  ;; label = @2
        loop  ;; label = @3
          local.get 0
          i32.const 0
          i32.ge_s
          br_if 1 (;@2;)
          call 1
          local.tee 0
          i32.const 0
          i32.ge_s
          br_if 1 (;@2;)
          call 2
          local.set 0
          br 0 (;@3;)
        end
      end
      local.get 0
      br_if 0 (;@1;)
    end
    i32.const 0)
  (table (;1;) 2 funcref)
  (memory (;0;) 1)
  (export "drop" (func 3))
  (export "carrier" (func 4))
  (export "memory" (memory 0))
  (export "registers" (table 1)))
