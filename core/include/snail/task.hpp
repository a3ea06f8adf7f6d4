// Tasks and waits: dispatch, join, sleep, yield and the cancellation check.
//
// Every wait returns a snail::status instead of throwing: the core is built
// without exceptions, and a cancelled task unwinds by returning, so destructors
// (including snail::bind scopes) run on the way out.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "snail/abi.h"
#include "snail/snail.h"
#include "snail/status.hpp"

// Everything these headers define is inline: hidden, so that a side module
// (snail_add_side_module) binds its own copies instead of importing them.
#pragma GCC visibility push(hidden)

namespace snail {

// The wrappers are inline, so that code in a dynamically loaded module calls the
// ABI imports itself instead of importing these functions from the program.

// Suspends the calling task for `ms` milliseconds.
inline status sleep(double ms) noexcept { return status_from_abi(snail_sleep(ms)); }

// Gives the execution permit back and requeues the calling task behind the work
// that is ready now.
inline status yield() noexcept { return status_from_abi(snail_yield()); }

// True once cancellation of the calling task was requested. Never suspends.
inline bool cancel_requested() noexcept { return snail_cancel_requested() != 0; }

// A handle to a dispatched task. Destroying the handle does not stop the task.
class task {
 public:
  task() noexcept = default;
  task(task&& other) noexcept : handle_(std::exchange(other.handle_, 0)), error_(other.error_) {}
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, 0);
      error_ = other.error_;
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() { reset(); }

  // Adopts a raw handle returned by snail_dispatch (or its negated status).
  static task from_abi(std::int32_t raw) noexcept {
    task t;
    if (raw > 0) {
      t.handle_ = raw;
    } else {
      t.error_ = status_from_abi(-raw);
    }
    return t;
  }

  // True if the dispatch succeeded.
  explicit operator bool() const noexcept { return handle_ > 0; }

  // Why the dispatch failed (status::ok when it did not).
  status error() const noexcept { return error_; }

  // The runtime's id of the task (0 for an empty handle).
  std::int32_t id() const noexcept { return handle_; }

  // Waits until the task finished. ok: it returned (see result()); failed: it
  // trapped; cancelled: it was cancelled, or the caller's cancellation was
  // requested (check cancel_requested()); invalid: an empty handle.
  status join() noexcept {
    return handle_ > 0 ? status_from_abi(snail_join(handle_)) : status::invalid;
  }

  // What the task returned: 0 unless the task returned (join gives ok). A
  // cancelled task has no result, even if its entry returned a value after the
  // cancellation (join gives cancelled).
  std::int32_t result() const noexcept { return handle_ > 0 ? snail_result(handle_) : 0; }

  // Requests cancellation of the task: a queued task is discarded without
  // running, a waiting one resumes with status::cancelled and unwinds, a
  // running one sees it at its next wait. ok, also when it already finished;
  // invalid for an empty handle.
  status cancel() noexcept {
    return handle_ > 0 ? status_from_abi(snail_cancel(handle_)) : status::invalid;
  }

  // Requests cancellation of the task and of its tree: every task it
  // dispatched, the tasks those dispatched, and so on, also through tasks
  // that have finished (a child that outlived its parent is reached); each
  // dispatches its later children cancelled, except inside a shield. ok,
  // also when they have all finished; invalid for an empty handle.
  status cancel_tree() noexcept {
    return handle_ > 0 ? status_from_abi(snail_cancel_tree(handle_)) : status::invalid;
  }

  // Releases the handle now (the task keeps running).
  void reset() noexcept {
    if (handle_ > 0) snail_release(handle_);
    handle_ = 0;
  }

 private:
  std::int32_t handle_ = 0;
  status error_ = status::ok;
};

// Requests cancellation of `t`; the same as t.cancel().
inline status cancel(task& t) noexcept { return t.cancel(); }

// Requests cancellation of `t` and its tree; the same as t.cancel_tree().
inline status cancel_tree(task& t) noexcept { return t.cancel_tree(); }

// A shield: while it lives, the calling task's waits run as though its
// cancellation had not been requested (and cancel_requested() is false), for
// cleanup that must still wait, such as a rollback. When its deadline passes
// (`timeout_ms` after it began; by default none), or the runtime's close()
// gives up at its timeout, the waits inside return status::cancelled. A
// shield inside another ends no later than the outer one. Once the shield is
// destroyed, a cancelled task's waits return cancelled again, and it unwinds.
//
//   if (write(block) == snail::status::cancelled) {
//     snail::shield cleanup(1000);  // at most a second
//     rollback();                   // its waits run
//   }                               // cancelled again from here on
class shield {
 public:
  [[nodiscard]] explicit shield(double timeout_ms = std::numeric_limits<double>::infinity()) noexcept
      : begun_(status_from_abi(snail_shield_begin(timeout_ms))) {}
  shield(const shield&) = delete;
  shield& operator=(const shield&) = delete;
  ~shield() {
    if (begun_ == status::ok) static_cast<void>(snail_shield_end());
  }

  // ok, or invalid when the timeout was negative or NaN (no shield began).
  status begun() const noexcept { return begun_; }

 private:
  status begun_;
};



namespace detail {

// The table index of a function (wasm32), or its index in a registry (native).
#if defined(__wasm__)
inline std::int32_t function_index(void (*fn)()) noexcept {
  return static_cast<std::int32_t>(reinterpret_cast<std::uintptr_t>(fn));
}
#else
std::int32_t function_index(void (*fn)()) noexcept;
#endif

// A pointer as an ABI i32 and back: the address itself in wasm32; natively
// (unit tests, 64-bit pointers) a registry index.
#if defined(__wasm__)
inline std::int32_t pointer_to_abi(void* p) noexcept {
  return static_cast<std::int32_t>(reinterpret_cast<std::uintptr_t>(p));
}
inline void* pointer_from_abi(std::int32_t raw) noexcept {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(static_cast<std::uint32_t>(raw)));
}
#else
void (*function_at(std::int32_t index) noexcept)();
std::int32_t pointer_to_abi(void* p) noexcept;
void* pointer_from_abi(std::int32_t raw) noexcept;
#endif

// The closure of a dispatched callable lives on the heap until the child runs it
// (or is discarded): dispatch() owns it until the runtime accepted the child,
// then exactly one of the entry and drop trampolines takes it over and
// deletes it.
template <class F>
std::int32_t closure_entry(std::int32_t raw) noexcept {
  const std::unique_ptr<F> f(static_cast<F*>(pointer_from_abi(raw)));
  if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
    (*f)();
    return 0;
  } else {
    return static_cast<std::int32_t>((*f)());
  }
}

template <class F>
void closure_drop(std::int32_t raw) noexcept {
  const std::unique_ptr<F> f(static_cast<F*>(pointer_from_abi(raw)));
}

template <class F>
std::int32_t closure_arg(F* f) noexcept {
  return pointer_to_abi(static_cast<void*>(f));
}

}  // namespace detail

// Dispatches `entry(arg)` as a child task. The child is live before this returns
// and starts with a copy of the caller's handler bindings. `drop`, if given, is
// called with `arg` instead of `entry` when the child is discarded before it runs.
inline task dispatch(std::int32_t (*entry)(std::int32_t), std::int32_t arg,
                     void (*drop)(std::int32_t) = nullptr) noexcept {
  auto index = [](auto* fn) { return detail::function_index(reinterpret_cast<void (*)()>(fn)); };
  return task::from_abi(snail_dispatch(index(entry), arg, drop ? index(drop) : 0));
}

// Dispatches a callable (returning an integer or nothing) as a child task.
template <class F>
  requires std::invocable<std::decay_t<F>&> &&
           (std::is_void_v<std::invoke_result_t<std::decay_t<F>&>> ||
            std::is_convertible_v<std::invoke_result_t<std::decay_t<F>&>, std::int32_t>)
task dispatch(F&& f) noexcept {
  using Closure = std::decay_t<F>;
  auto closure = std::make_unique<Closure>(std::forward<F>(f));
  task child = dispatch(&detail::closure_entry<Closure>, detail::closure_arg(closure.get()),
                        &detail::closure_drop<Closure>);
  // Accepted: the child's trampolines own the closure now. Refused: the
  // runtime never saw it, and the unique_ptr deletes it here.
  if (child) static_cast<void>(closure.release());
  return child;
}

}  // namespace snail

// SNAIL_ENTRY(NAME) and SNAIL_DISPOSER(MODULE, NAME) are <snail/snail.h>'s,
// the same for C and C++.

#pragma GCC visibility pop
