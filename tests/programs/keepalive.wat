;; One task that waits on a host operation the test provides
;; (test.wait_unref(ms) -> ms + 1), settled by an unreferenced Node timer: only
;; the runtime's keep-alive token keeps the process alive meanwhile.
(module
  (import "test" "wait_unref" (func $wait (param i32) (result i32)))
  (func (export "snail.entry.main") (param $ms i32) (result i32)
    (call $wait (local.get $ms))))
