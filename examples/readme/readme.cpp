#include <snail/snail.hpp>

struct printer { const char* prefix; };
SNAIL_HANDLER(out, const printer*);            // a handler global: snail.handler.out

SNAIL_ENTRY(main) {                            // an entry: snail.entry.main(i32) -> i32
  static const printer root{"[root] "};
  snail::bind scope(out, &root);               // bound for this task and its children
  auto child = snail::dispatch([] {
    if (snail::sleep(5) != snail::status::ok)  // suspends this task only
      return 0;                                // cancelled: unwind at once
    return out.get() != nullptr ? 1 : 0;       // the child kept the parent's binding
  });
  return child.join() == snail::status::ok ? child.result() - 1 : 2;
}
