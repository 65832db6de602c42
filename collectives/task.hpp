// A call as a resumable object: a C++20 coroutine (docs/nonblocking.md,
// "How it works"; docs/engine.md, "A call").
//
// An operation is written once, as a coroutine returning Task, that
// co_awaits its steps (walk.hpp, run_step) and, on the flat paths, single
// flags (Engine::until). Whether it blocks is the engine's mode at each
// await (Engine::blocking):
//   - blocking (every blocking call, and osmp_wait on the only team with
//     pending calls): the awaiter waits in place, in the team's waiter, and
//     the coroutine never suspends;
//   - not blocking (osmp_test, progress from another call): the awaiter runs
//     its stage until it needs a flag nobody has published yet, then the
//     coroutine suspends, leaving its state in its frame.
// A suspended call is moved on by Task::advance(), which asks the innermost
// awaiter (Pending) to go on and resumes its coroutine once it completed.
//
// Frames come from the engine's FrameCache (frames.hpp) when a coroutine
// has the engine (or an object with one, `e`) among its parameters: a
// blocking call builds and frees one, and the hot path must not pay malloc.
#pragma once

#include <coroutine>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "collectives/base/stage.hpp"
#include "core/status.hpp"

namespace osmp {

void* frame_alloc(std::size_t bytes, FrameCache* cache);
void frame_free(void* frame, std::size_t bytes) noexcept;

// The engine's frame cache, if a coroutine's first parameter leads to one.
template <class First, class... Rest>
FrameCache* frames_of(First& first, Rest&...) {
  if constexpr (std::is_same_v<std::remove_cv_t<First>, Engine>) {
    return &first.frames();
  } else if constexpr (requires { first.e.frames(); }) {
    return &first.e.frames();
  } else {
    return nullptr;
  }
}
inline FrameCache* frames_of() { return nullptr; }

// The innermost awaiter of a suspended call, and its coroutine.
struct Pending {
  void* awaiter = nullptr;
  // Runs the awaiter's stage on. block: until it completes (or its wait
  // fails). Returns what it still waits for (empty: complete; the awaiter
  // holds its status, which the coroutine reads when resumed).
  Wait (*advance)(void* awaiter, bool block) = nullptr;
  std::coroutine_handle<> leaf;
};

class [[nodiscard]] Task {
 public:
  struct promise_type {
    Status result;
    std::coroutine_handle<> parent;  // the coroutine that co_awaits this one (null: the call itself)
    Pending* pending = nullptr;      // the call's, shared by every coroutine of its chain
    Pending own;                     // the call's own (the root of the chain)

    Task get_return_object() { return Task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    // Lazy: the call starts when first advanced, a child when awaited.
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct Final {
      bool await_ready() noexcept { return false; }
      // Symmetric transfer to the parent (nothing to do for the root).
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        std::coroutine_handle<> p = h.promise().parent;
        return p ? p : std::noop_coroutine();
      }
      void await_resume() noexcept {}
    };
    Final final_suspend() noexcept { return {}; }
    void return_value(Status s) { result = std::move(s); }
    // The engine throws nothing but std::bad_alloc: as the blocking code did.
    void unhandled_exception() { throw; }
    template <class... Args>
    static void* operator new(std::size_t n, Args&... args) {
      return frame_alloc(n, frames_of(args...));
    }
    static void operator delete(void* p, std::size_t n) noexcept { frame_free(p, n); }
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  ~Task() { reset(); }

  // As a child: starts it (symmetric transfer), sharing the caller's Pending.
  bool await_ready() const noexcept { return false; }
  template <class Promise>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> parent) noexcept {
    h_.promise().parent = parent;
    h_.promise().pending = parent.promise().pending;
    return h_;
  }
  Status await_resume() { return std::move(h_.promise().result); }

  // As a call: runs it on; `block`: to completion. True once complete
  // (then result() is its status).
  bool advance(bool block) {
    promise_type& pr = h_.promise();
    if (!pr.pending) {
      pr.pending = &pr.own;
      h_.resume();
    }
    while (!h_.done()) {
      Pending& p = *pr.pending;
      if (p.advance(p.awaiter, block)) return false;
      p.leaf.resume();
    }
    return true;
  }
  bool valid() const { return static_cast<bool>(h_); }
  bool done() const { return h_ && h_.done(); }
  Status result() { return std::move(h_.promise().result); }
  // A blocking call: start and wait.
  Status run() {
    advance(true);
    return result();
  }

 private:
  explicit Task(Handle h) : h_(h) {}
  void reset() {
    if (h_) h_.destroy();
    h_ = {};
  }
  Handle h_;
};

// The base of the awaiters a call suspends in: registers itself as what the
// call waits on. `Self` has `Wait advance(bool block)`.
template <class Self>
struct Suspends {
  template <class Promise>
  void await_suspend(std::coroutine_handle<Promise> h) noexcept {
    Pending& p = *h.promise().pending;
    p.awaiter = static_cast<Self*>(this);
    p.advance = [](void* a, bool block) { return static_cast<Self*>(a)->advance(block); };
    p.leaf = h;
  }
};

// Waits for one flag (the flat paths): in place when the engine blocks.
class FlagAwait : public Suspends<FlagAwait> {
 public:
  FlagAwait(Engine& e, const Flag& f, std::uint64_t target, int peer) : e_(e), f_(f), target_(target), peer_(peer) {}
  bool await_ready() { return !advance(e_.blocking()); }
  Wait advance(bool block) {
    if (poll(f_, target_)) return {};
    WaitStatus ws = block ? e_.team().waiter().wait(f_, target_, peer_) : e_.team().waiter().check(peer_);
    if (ws == WaitStatus::ok && !block) return Wait{&f_, target_, peer_};
    if (ws != WaitStatus::ok && !poll(f_, target_)) st_ = e_.team().fail(ws);  // it may have published, then died
    return {};
  }
  Status await_resume() { return std::move(st_); }

 private:
  Engine& e_;
  const Flag& f_;
  std::uint64_t target_;
  int peer_;
  Status st_;
};

// A call that ends before it starts, with `st`.
inline Task done_with(Status st) { co_return st; }

// co_await until(e, flag, target, peer): the flag reached its target.
inline FlagAwait until(Engine& e, const Flag& f, std::uint64_t target, int peer) {
  return FlagAwait(e, f, target, peer);
}

}  // namespace osmp

// OSMP_RETURN_IF_ERROR in a coroutine.
#define OSMP_CO_RETURN_IF_ERROR(expr)               \
  do {                                              \
    ::osmp::Status osmp_status_ = (expr);           \
    if (!osmp_status_.ok()) co_return osmp_status_; \
  } while (0)
