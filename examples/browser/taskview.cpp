// taskview: the program of the live task view (examples/browser/index.html).
//
// Each worker sleeps a little, waits until someone clicks the page's "Go"
// button, and stores what it saw of the click in the page's storage
// (IndexedDB). `visits` reads a counter from storage and writes it back plus
// one, so the page can show that its storage survives a reload. Every wait
// suspends only the calling task and returns a status: a cancelled worker
// returns early, and close() cancels whatever still waits.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <snail/snail.hpp>

SNAIL_ENTRY(worker) {
  // Staggered sleeps, so that the view shows tasks arriving at the wait.
  if (snail::sleep(100.0 + (arg % 4) * 100.0) != snail::status::ok) return -1;
  snail::buffer click;
  if (snail::wait_event("click #go", &click) != snail::status::ok) return -1;
  std::string key = "worker-" + std::to_string(arg);
  if (snail::storage_put("results", key, click.view()) != snail::status::ok) return -1;
  return arg;
}

SNAIL_ENTRY(visits) {
  (void)arg;
  snail::buffer value;
  int n = 0;
  auto s = snail::storage_get("page", "visits", value);
  if (s == snail::status::ok) n = std::atoi(value.str().c_str());
  else if (s != snail::status::not_found) return -1;
  if (snail::storage_put("page", "visits", std::to_string(n + 1)) != snail::status::ok) return -1;
  std::printf("this page ran the program %d time%s\n", n + 1, n == 0 ? "" : "s");
  return n + 1;
}
