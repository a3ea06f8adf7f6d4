// Exercises the host services from C++; every entry prints what it got.
#include <wasi/api.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <snail/snail.hpp>

#include "wasi_args.hpp"

namespace {

const char* name(snail::status s) { return snail::to_string(s); }

}  // namespace

SNAIL_ENTRY(event_once) {
  snail::buffer detail;
  auto s = snail::wait_event("click #save", &detail);
  std::printf("event %s [%s]\n", name(s), detail.str().c_str());
  return static_cast<std::int32_t>(s) + arg * 0;
}

SNAIL_ENTRY(event_unknown) {
  auto s = snail::wait_event("nobody registered this");
  std::printf("event %s\n", name(s));
  return static_cast<std::int32_t>(s) + arg * 0;
}

SNAIL_ENTRY(storage_roundtrip) {
  (void)arg;
  std::printf("put a %s\n", name(snail::storage_put("prefs", "a", "1")));
  std::printf("put b %s\n", name(snail::storage_put("prefs", "b", "twenty-two")));
  std::printf("put other %s\n", name(snail::storage_put("other", "a", "elsewhere")));
  snail::buffer v;
  auto s = snail::storage_get("prefs", "b", v);
  std::printf("get b %s [%s]\n", name(s), v.str().c_str());
  std::vector<std::string> keys;
  s = snail::storage_list("prefs", "", keys);
  std::printf("list %s", name(s));
  for (auto& k : keys) std::printf(" %s", k.c_str());
  std::printf("\n");
  std::printf("delete a %s\n", name(snail::storage_delete("prefs", "a")));
  std::printf("delete a again %s\n", name(snail::storage_delete("prefs", "a")));
  s = snail::storage_get("prefs", "a", v);
  std::printf("get a %s [%s]\n", name(s), v.str().c_str());
  s = snail::storage_get("other", "a", v);
  std::printf("get other a %s [%s]\n", name(s), v.str().c_str());
  return 0;
}

SNAIL_ENTRY(fetch_arg1) {
  (void)arg;
  snail::buffer body;
  int code = 0;
  auto s = snail::fetch(test::arg_at(1), body, &code);
  std::printf("fetch %s %d [%s]\n", name(s), code, body.str().c_str());
  return static_cast<std::int32_t>(s);
}

SNAIL_ENTRY(frames_and_idle) {
  (void)arg;
  std::printf("frame %s\n", name(snail::wait_frame()));
  std::printf("idle %s\n", name(snail::wait_idle(100)));
  return 0;
}

SNAIL_ENTRY(files_and_stdin) {
  (void)arg;
  std::printf("write %s\n", name(snail::file_write("notes.txt", "hello")));
  snail::buffer contents;
  auto s = snail::file_read("notes.txt", contents);
  std::printf("read %s [%s]\n", name(s), contents.str().c_str());
  snail::buffer line;
  s = snail::stdin_line(line);
  std::printf("stdin %s [%s]\n", name(s), line.str().c_str());
  return 0;
}

SNAIL_ENTRY(bad_pointer) {
  (void)arg;
  snail_out out{};
  // A key that lies past the end of memory.
  auto s = snail::status_from_abi(snail_storage_get("prefs", 5, reinterpret_cast<const char*>(0x7ffffff0), 64, &out));
  std::printf("bad pointer %s\n", name(s));
  return static_cast<std::int32_t>(s);
}
