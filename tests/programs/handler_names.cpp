// Handler names are program-wide (<snail/handler.hpp>): the same name declared
// in two namespaces of one translation unit is one global. The program fails
// to assemble if each declaration defines the global again. Run by
// tests/node/cmake-package.test.mjs, built for wasm32-wasi here and with
// Emscripten there.
#include <snail/snail.hpp>

struct channel {
  int id;
};

SNAIL_HANDLER(sink, const channel*);

namespace plugin {
SNAIL_HANDLER(sink, const channel*);  // the same global as ::sink

int child_reads(int expected_id) {
  const channel* l = sink.get();
  return l != nullptr && l->id == expected_id ? 0 : 1;
}
}  // namespace plugin

// 0 when a binding made through either name is seen through the other, also by
// a child task, which starts with a copy of the bindings.
SNAIL_ENTRY(main) {
  static const channel outer{1};
  static const channel inner{2};
  snail::bind scope(sink, &outer);
  if (plugin::sink.get() != &outer) return 1;
  {
    snail::bind again(plugin::sink, &inner);
    if (sink.get() != &inner) return 2;
    auto child = snail::dispatch([] { return plugin::child_reads(2); });
    if (child.join() != snail::status::ok || child.result() != 0) return 3;
  }
  return sink.get() == &outer && plugin::sink.get() == &outer ? 0 : 4;
}
