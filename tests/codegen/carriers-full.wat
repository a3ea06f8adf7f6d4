;; carriers-full: the carriers of three named entries, a function table and current()
;; 394 bytes, sha256 eb32e8453a3c085b2e983d045e4a704bd34dd174ccad6d32607dd3e20dacca34
(module
  (type (;0;) (func (param i32 i32) (result i32)))
  (type (;1;) (func (result i32)))
  (type (;2;) (func (param i32)))
  (type (;3;) (func (param i32) (result i32)))
  (type (;4;) (func (param i32 i32)))
  (type (;5;) (func (param i32 i32 i32)))
  (import "js" "next" (func (;0;) (type 0)))
  (import "js" "idle" (func (;1;) (type 1)))
  (import "js" "ask" (func (;2;) (type 1)))
  (import "gates" "current" (func (;3;) (type 2)))
  (import "entries" "0" (func (;4;) (type 3)))
  (import "entries" "1" (func (;5;) (type 3)))
  (import "entries" "2" (func (;6;) (type 3)))
  (import "program" "table" (table (;0;) 0 funcref))
  (func (;7;) (type 4) (param i32 i32)
    local.get 1
    local.get 0
    call_indirect (type 2))
  (func (;8;) (type 3) (param i32) (result i32)
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
      call_indirect 1 (type 5)
      local.get 0
      call 3
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
        call_indirect (type 3)
        local.set 2
      else
        block  ;; label = @3
          block  ;; label = @4
            block  ;; label = @5
              block  ;; label = @6
                block  ;; label = @7
                  i32.const -1
                  local.get 1
                  i32.sub
                  br_table 0 (;@7;) 1 (;@6;) 2 (;@5;) 3 (;@4;)
                end
                local.get 3
                i32.load offset=4
                call 4
                local.set 2
                br 3 (;@3;)
              end
              local.get 3
              i32.load offset=4
              call 5
              local.set 2
              br 2 (;@3;)
            end
            local.get 3
            i32.load offset=4
            call 6
            local.set 2
            br 1 (;@3;)
          end
          unreachable
        end
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
  (export "drop" (func 7))
  (export "carrier" (func 8))
  (export "memory" (memory 0))
  (export "registers" (table 1)))
