// Compiled by ctest with -Werror=unused-result (tests/cpp/CMakeLists.txt):
// ignoring a wait's status must not compile, ignoring it with (void) must.
#include <snail/snail.hpp>

void probe() {
#if defined(SNAIL_PROBE_EXPLICIT)
  (void)snail::sleep(1);
  (void)snail::yield();
  snail::task t;
  (void)t.join();
#else
  snail::sleep(1);
#endif
}
