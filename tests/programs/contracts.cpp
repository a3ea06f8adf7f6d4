// placeholder replaced below
#include <snail/snail.hpp>
SNAIL_ENTRY(main) { return arg; }
