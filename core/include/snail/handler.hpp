// Handler globals: dynamically bound handlers kept in real WebAssembly globals.
//
//   SNAIL_HANDLER(logger, const Logger*);       // declare (any number of headers)
//   snail::bind scope(logger, &my_logger);       // bind for this scope
//   if (auto* l = logger.get()) l->log("hi");    // read the current binding
//
// Each handler is a mutable i32 global exported as `snail.handler.<name>`. The
// runtime treats these globals as the executing task's registers: it saves them
// when the task waits, installs them when it resumes, and copies them to a child
// at dispatch. The value a handler holds after the program's initialisation is
// its default, which root tasks start with.
//
// Handler names are program-wide: the same name declared again, in another
// namespace, another translation unit or a side module, is the same global.
// Within one namespace of a translation unit, declare a name once, as any C++
// definition (a header with an include guard does). The value type must be 32
// bits wide (a pointer or a 32-bit integer): SNAIL_HANDLER declares i32
// globals. The other value types docs/abi.md allows (i64, f32, f64,
// externref) have the macros of <snail/snail.h>, SNAIL_HANDLER_I64 and the
// others, which C++ may use too.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "snail/abi.h"
#include "snail/snail.h"

// Everything these headers define is inline: hidden, so that a side module
// (snail_add_side_module) binds its own copies instead of importing them.
#pragma GCC visibility push(hidden)

namespace snail {

// A scoped binding: sets the handler for the lifetime of this object and puts the
// previous value back when it ends (also when the task unwinds after a
// cancellation, because cancellation travels as a status value).
template <class Handler>
class [[nodiscard]] bind {
 public:
  using value_type = typename Handler::value_type;

  bind(Handler, value_type value) noexcept : previous_(Handler::get()) { Handler::set(value); }
  ~bind() { Handler::set(previous_); }

  bind(const bind&) = delete;
  bind& operator=(const bind&) = delete;

  // The value this binding replaced (what the handler holds again after the scope).
  value_type previous() const noexcept { return previous_; }

 private:
  value_type previous_;
};

}  // namespace snail

#if defined(__wasm__)

namespace snail::detail {
template <class T>
inline constexpr bool handler_value_ok = sizeof(T) == 4 && std::is_trivially_copyable_v<T>;

// std::bit_cast where the standard library has it. The libc++ of Emscripten
// 3.1.6 predates it; clang's builtin is what it is made of.
template <class To, class From>
inline To bit_cast(const From& from) noexcept {
#if defined(__cpp_lib_bit_cast)
  return std::bit_cast<To>(from);
#else
  return __builtin_bit_cast(To, from);
#endif
}
}  // namespace snail::detail

// The global's definition is <snail/snail.h>'s, which C declarations share:
// the same name declared in C and in C++ is one global. The symbol is named
// with SNAIL_ABI_SEP (see abi.h): the clang of Emscripten 3.1.6 exports a
// global under the symbol's own name.
#define SNAIL_DETAIL_HANDLER_STORAGE(NAME) SNAIL_DETAIL_HANDLER_GLOBAL(NAME, i32)

#define SNAIL_DETAIL_CXX_HANDLER_ACCESS(NAME, TYPE)                                          \
  static TYPE get() noexcept {                                                          \
    std::int32_t v;                                                                     \
    __asm__ volatile("global.get " SNAIL_DETAIL_HANDLER_SYMBOL(NAME) "\n\tlocal.set %0"  \
                     : "=r"(v));                                                        \
    return ::snail::detail::bit_cast<TYPE>(v);                                          \
  }                                                                                     \
  static void set(TYPE value) noexcept {                                                \
    std::int32_t v = ::snail::detail::bit_cast<std::int32_t>(value);                    \
    __asm__ volatile("local.get %0\n\tglobal.set " SNAIL_DETAIL_HANDLER_SYMBOL(NAME)     \
                     ::"r"(v));                                                         \
  }

#else  // native builds (unit tests): one variable per handler name and thread

namespace snail::detail {
template <class T>
inline constexpr bool handler_value_ok =
    sizeof(T) <= sizeof(void*) && std::is_trivially_copyable_v<T>;

// A handler's name as a template argument.
template <std::size_t N>
struct handler_name {
  char text[N];
  constexpr handler_name(const char (&name)[N]) noexcept {
    for (std::size_t i = 0; i < N; ++i) text[i] = name[i];
  }
};

// The storage of the handlers named Name, shared by every declaration of that
// name as the Wasm global is. Zero until set, like the global.
template <handler_name Name>
inline thread_local unsigned char handler_slot[sizeof(void*)] = {};
}  // namespace snail::detail

#define SNAIL_DETAIL_HANDLER_STORAGE(NAME) static_assert(true, "")

#define SNAIL_DETAIL_CXX_HANDLER_ACCESS(NAME, TYPE)                                          \
  static TYPE get() noexcept {                                                          \
    TYPE value;                                                                         \
    std::memcpy(&value, ::snail::detail::handler_slot<#NAME>, sizeof value);            \
    return value;                                                                       \
  }                                                                                     \
  static void set(TYPE value) noexcept {                                                \
    std::memcpy(::snail::detail::handler_slot<#NAME>, &value, sizeof value);            \
  }

#endif

// Declares the handler global `snail.handler.NAME` holding a TYPE and an object
// NAME with get() and set(). Usable at namespace scope in headers.
#define SNAIL_HANDLER(NAME, TYPE)                                                        \
  SNAIL_DETAIL_HANDLER_STORAGE(NAME);                                                   \
  struct snail_handler_##NAME##_t {                                                     \
    using value_type = TYPE;                                                            \
    static_assert(::snail::detail::handler_value_ok<TYPE>,                              \
                  "snail handler values must be 32-bit trivially copyable types "       \
                  "(a pointer or a 32-bit integer)");                                   \
    [[maybe_unused]] static constexpr const char* name = #NAME;                         \
    SNAIL_DETAIL_CXX_HANDLER_ACCESS(NAME, TYPE)                                         \
  };                                                                                    \
  inline constexpr snail_handler_##NAME##_t NAME {}

#pragma GCC visibility pop
