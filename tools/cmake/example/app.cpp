// A snail-core program: tasks, a handler global, waits and cancellation.
#include <cstdio>

#include <snail/snail.hpp>

struct greeting {
  const char* name;
};

// A handler global: bound for a task and inherited by the children it dispatches.
SNAIL_HANDLER(who, const greeting*);

// Prints when its task unwinds, also after a cancellation.
struct announce {
  const char* what;
  ~announce() { std::printf("%s unwound\n", what); }
};

SNAIL_ENTRY(main) {
  static const greeting world{"world"};
  snail::bind scope(who, &world);

  auto sleeper = snail::dispatch([] {
    announce guard{"sleeper"};
    snail::status s = snail::sleep(60000);  // a minute, unless cancelled
    std::printf("sleeper woke: %s\n", s == snail::status::cancelled ? "cancelled" : "ok");
    return 7;
  });
  auto greeter = snail::dispatch([] {
    if (snail::sleep(1) != snail::status::ok) return 0;  // cancelled: unwind
    std::printf("hello, %s\n", who.get()->name);  // the binding it inherited
    return 1;
  });

  if (greeter.join() != snail::status::ok) return 1;
  (void)sleeper.cancel();  // ok: the handle is valid, the task may have finished
  snail::status s = sleeper.join();
  std::printf("sleeper joined: %s\n", s == snail::status::cancelled ? "cancelled" : "not cancelled");
  return greeter.result() == 1 && s == snail::status::cancelled ? 0 : 1;
}
