// hello: tasks printing through inherited handler bindings.
//
// The root task binds the `out` handler to a printer with a prefix. Children
// get a copy of that binding when they are dispatched; one child rebinds it for
// itself, which changes nothing for its siblings or its parent.
#include <cstdio>

#include <snail/snail.hpp>

struct printer {
  const char* prefix;
};

SNAIL_HANDLER(out, const printer*);

static void say(const char* text) {
  const printer* p = out.get();
  std::printf("%s%s\n", p ? p->prefix : "(unbound) ", text);
}

SNAIL_ENTRY(main) {
  static const printer root{"[root] "};
  static const printer quiet{"[child b, rebound] "};
  snail::bind scope(out, &root);
  say("hello from the root task");

  auto a = snail::dispatch([] {
    if (snail::sleep(5) != snail::status::ok) return 0;  // cancelled
    say("child a woke up after 5 ms and still has the root's printer");
    return 1;
  });
  auto b = snail::dispatch([] {
    snail::bind mine(out, &quiet);
    say("child b bound its own printer");
    if (snail::yield() != snail::status::ok) return 0;
    say("child b still has it after a yield");
    return 2;
  });
  if (a.join() != snail::status::ok || b.join() != snail::status::ok) return 1;
  std::printf("[root] children returned %d and %d\n", a.result(), b.result());
  return 0;
}
