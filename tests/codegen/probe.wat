;; probe: what canWrap instantiates: the JS tag, try_table, a tail call
;; 64 bytes, sha256 02861fc6a59084d9ce4f3751186c34b160445aa03db3b6dffd1ae949787c41c7
(module
  (type (;0;) (func (param externref)))
  (type (;1;) (func))
  (import "js" "tag" (tag (;0;) (type 0) (param externref)))
  (func (;0;) (type 1)
    block (result externref)  ;; label = @1
      try_table  ;; label = @2
        (catch 0 0 (;@1;))
      end
      unreachable
    end
    drop
    i32.const 0
    return_call_indirect (type 1))
  (table (;0;) 1 funcref))
