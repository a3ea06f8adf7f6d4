(module
  (func (export "snail.entry.main") (param i32) (result i32) (local.get 0)))
