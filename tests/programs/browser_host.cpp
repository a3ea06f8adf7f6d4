// The browser host's waits from C++: events registered by a page, storage in
// IndexedDB, fetch, frames and idle time, and a churn of yielding tasks for
// the input-starvation test. Every entry prints what it got.
#include <wasi/api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <snail/snail.hpp>

#include "wasi_args.hpp"

namespace {

const char* name(snail::status s) { return snail::to_string(s); }

// The event sources the suites register, by number.
const char* const event_names[] = {"click #save", "saved", "port", "click #hit"};
constexpr int event_count = sizeof(event_names) / sizeof(event_names[0]);

// Set by the task that saw the click; the churning tasks stop when they see it.
bool clicked = false;

}  // namespace

// Waits once for the event source number `arg`.
SNAIL_ENTRY(wait_named) {
  if (arg < 0 || arg >= event_count) return -1;
  snail::buffer detail;
  auto s = snail::wait_event(event_names[arg], &detail);
  std::printf("event %s %s [%s]\n", event_names[arg], name(s), detail.str().c_str());
  return static_cast<std::int32_t>(s);
}

// Waits `arg` times in a row for "port" and prints every message.
SNAIL_ENTRY(wait_many) {
  int received = 0;
  for (int i = 0; i < arg; ++i) {
    snail::buffer detail;
    auto s = snail::wait_event("port", &detail);
    std::printf("message %d %s [%s]\n", i, name(s), detail.str().c_str());
    if (s != snail::status::ok) break;
    ++received;
  }
  return received;
}

// Counts its runs in storage: reads "visits" of store "page", stores it plus 1.
SNAIL_ENTRY(visits) {
  (void)arg;
  snail::buffer value;
  auto s = snail::storage_get("page", "visits", value);
  int n = 0;
  if (s == snail::status::ok) {
    n = std::atoi(value.str().c_str());
  } else if (s != snail::status::not_found) {
    std::printf("visits get %s\n", name(s));
    return -1;
  }
  std::string next = std::to_string(n + 1);
  s = snail::storage_put("page", "visits", next);
  std::printf("visits %s %d\n", name(s), n + 1);
  return s == snail::status::ok ? n + 1 : -1;
}

// Puts `arg` bytes of 'n' under "big" in store "atomic".
SNAIL_ENTRY(put_big) {
  std::string value(static_cast<std::size_t>(arg), 'n');
  auto s = snail::storage_put("atomic", "big", value);
  std::printf("put_big %s\n", name(s));
  return static_cast<std::int32_t>(s);
}

// Fetches argv[1] and prints the status, the HTTP code and the body's length.
SNAIL_ENTRY(fetch_arg1) {
  (void)arg;
  snail::buffer body;
  int code = 0;
  auto s = snail::fetch(test::arg_at(1), body, &code);
  std::printf("fetch %s %d %zu\n", name(s), code, body.size());
  return static_cast<std::int32_t>(s);
}

SNAIL_ENTRY(frame_once) {
  (void)arg;
  auto s = snail::wait_frame();
  std::printf("frame %s\n", name(s));
  return static_cast<std::int32_t>(s);
}

SNAIL_ENTRY(idle_once) {
  auto s = snail::wait_idle(arg);
  std::printf("idle %s\n", name(s));
  return static_cast<std::int32_t>(s);
}

// Yields up to `arg` times, and stops early once a task saw the click.
SNAIL_ENTRY(churn) {
  int rounds = 0;
  while (!clicked && rounds < arg) {
    if (snail::yield() != snail::status::ok) break;
    ++rounds;
  }
  return rounds;
}

// Waits for "click #hit" and tells the churning tasks to stop.
SNAIL_ENTRY(click_hit) {
  (void)arg;
  snail::buffer detail;
  auto s = snail::wait_event("click #hit", &detail);
  clicked = s == snail::status::ok;
  std::printf("hit %s [%s]\n", name(s), detail.str().c_str());
  return static_cast<std::int32_t>(s);
}
