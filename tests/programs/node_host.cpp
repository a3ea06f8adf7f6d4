// The Node host's services from C++ (tests/node/node-*.test.mjs): files under
// granted directories, standard input, environment variables, event waits and
// durable storage. Entries print what they got; paths and names come from argv
// so that one program serves every case.
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

using test::arg_at;
using test::argv_strings;

// The value storage_burst writes for `key` at `version`: self-describing, so
// that a torn or mixed value cannot pass the check (tests/node/node-storage.test.mjs
// builds the same text).
std::string burst_value(const std::string& key, int version) {
  std::string v = key + "|" + std::to_string(version) + "|";
  const int filler = 64 + static_cast<int>((static_cast<long long>(version) * 7919) % 20000);
  for (int j = 0; j < filler; ++j) v.push_back(static_cast<char>('a' + (version + j) % 26));
  v += "|end";
  return v;
}

}  // namespace

// file_read(argv[i]): "read STATUS SIZE [first 40 bytes]".
SNAIL_ENTRY(read_argv) {
  snail::buffer contents;
  auto s = snail::file_read(arg_at(arg), contents);
  std::printf("read %s %zu [%s]\n", name(s), contents.size(), contents.str().substr(0, 40).c_str());
  return static_cast<std::int32_t>(s);
}

// file_write(argv[i], argv[i + 1]): "write STATUS".
SNAIL_ENTRY(write_argv) {
  auto s = snail::file_write(arg_at(arg), arg_at(arg + 1));
  std::printf("write %s\n", name(s));
  return static_cast<std::int32_t>(s);
}

// Reads data/r<n % 4>.bin; returns the status, or 100 if the size is not argv[1].
SNAIL_ENTRY(read_n) {
  snail::buffer contents;
  auto s = snail::file_read("data/r" + std::to_string(arg % 4) + ".bin", contents);
  if (s == snail::status::ok && std::to_string(contents.size()) != arg_at(1)) return 100;
  return static_cast<std::int32_t>(s);
}

// Writes n-dependent bytes (hundreds of KiB) to data/w<n % 16>.bin; returns the status.
SNAIL_ENTRY(write_n) {
  std::vector<std::byte> data(static_cast<std::size_t>(256 * 1024 + arg), static_cast<std::byte>('a' + arg % 26));
  return static_cast<std::int32_t>(snail::file_write("data/w" + std::to_string(arg % 16) + ".bin", data));
}

// Prints every line of standard input until its end, then the status that ended it.
SNAIL_ENTRY(stdin_lines) {
  std::int32_t count = 0;
  for (;;) {
    snail::buffer line;
    auto s = snail::stdin_line(line);
    if (s != snail::status::ok) {
      std::printf("stdin %s after %d lines\n", name(s), count);
      return arg * 0 + count;
    }
    ++count;
    std::printf("line [%s]\n", line.str().c_str());
  }
}

// One line of standard input: "stdin STATUS [line]".
SNAIL_ENTRY(stdin_one) {
  snail::buffer line;
  auto s = snail::stdin_line(line);
  std::printf("stdin %s [%s]\n", name(s), line.str().c_str());
  return static_cast<std::int32_t>(s) + arg * 0;
}

// "env NAME=[value]" or "env NAME unset" for every name in argv[i..].
SNAIL_ENTRY(env_argv) {
  auto args = argv_strings();
  for (std::size_t i = static_cast<std::size_t>(arg); i < args.size(); ++i) {
    const char* v = std::getenv(args[i].c_str());
    if (v) std::printf("env %s=[%s]\n", args[i].c_str(), v);
    else std::printf("env %s unset\n", args[i].c_str());
  }
  return 0;
}

// Waits for the event named argv[i]: "event STATUS [detail]".
SNAIL_ENTRY(event_argv) {
  snail::buffer detail;
  auto s = snail::wait_event(arg_at(arg), &detail);
  std::printf("event %s [%s]\n", name(s), detail.str().c_str());
  std::fflush(stdout);
  return static_cast<std::int32_t>(s);
}

// Waits for the event named argv[1] `n` times, printing each.
SNAIL_ENTRY(events_n) {
  for (std::int32_t i = 0; i < arg; ++i) {
    snail::buffer detail;
    auto s = snail::wait_event(arg_at(1), &detail);
    std::printf("event %d %s [%s]\n", i, name(s), detail.str().c_str());
    std::fflush(stdout);
    if (s != snail::status::ok) return static_cast<std::int32_t>(s);
  }
  return 0;
}

// Counts runs in durable storage: "count N" (store "cli", key "runs").
SNAIL_ENTRY(storage_count) {
  snail::buffer v;
  auto s = snail::storage_get("cli", "runs", v);
  int n = s == snail::status::ok ? std::atoi(v.str().c_str()) : 0;
  ++n;
  s = snail::storage_put("cli", "runs", std::to_string(n));
  std::printf("count %d %s\n", n, name(s));
  return static_cast<std::int32_t>(s) + arg * 0;
}

// `arg` workers put values without end into store "burst", each cycling over
// 50 keys of its own with rising versions from argv[1] (default 0), and print
// "ack KEY VERSION" after every put that returned ok. Only SIGKILL ends it (or
// a failed put).
SNAIL_ENTRY(storage_burst) {
  std::vector<snail::task> workers;
  const int first = std::atoi(arg_at(1).c_str());
  for (std::int32_t w = 0; w < arg; ++w) {
    workers.push_back(snail::dispatch([w, first] {
      for (int version = first; version < first + 100000000; ++version) {
        std::string key = "w" + std::to_string(w) + "-k" + std::to_string(version % 50);
        auto s = snail::storage_put("burst", key, burst_value(key, version));
        if (s != snail::status::ok) {
          std::printf("put %s %d %s\n", key.c_str(), version, name(s));
          std::fflush(stdout);
          return 1;
        }
        std::printf("ack %s %d\n", key.c_str(), version);
        std::fflush(stdout);
      }
      return 0;
    }));
  }
  std::int32_t failed = 0;
  for (auto& t : workers) {
    if (t.join() != snail::status::ok || t.result() != 0) ++failed;
  }
  return failed;
}
