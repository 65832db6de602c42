#include "shm/wait.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <limits>

#include "core/clock.hpp"
#include "core/strings.hpp"
#include "shm/futex.hpp"

namespace osmp {
namespace {

constexpr std::uint64_t kForever = std::numeric_limits<std::uint64_t>::max();

// Relaxed: set once, before the waits that should call it.
std::atomic<void (*)()> g_progress_hook{nullptr};
thread_local bool t_in_hook = false;

void run_progress_hook() {
  void (*hook)() = g_progress_hook.load(std::memory_order_relaxed);
  if (!hook || t_in_hook) return;
  t_in_hook = true;
  hook();
  t_in_hook = false;
}
constexpr std::uint64_t kUs = 1000;
constexpr std::uint64_t kMs = 1000 * kUs;

}  // namespace

Result<WaitPolicy> parse_wait_policy(std::string_view text) {
  std::string_view t = trim(text);
  if (iequals(t, "spin")) return WaitPolicy::spin;
  if (iequals(t, "yield")) return WaitPolicy::yield;
  if (iequals(t, "futex") || iequals(t, "sleep")) return WaitPolicy::futex;
  if (iequals(t, "auto") || t.empty()) return WaitPolicy::automatic;
  return Status(Errc::invalid_argument, cat("unknown wait policy '", text, "' (expected spin, yield, futex or auto)"));
}

const char* to_string(WaitPolicy p) {
  switch (p) {
    case WaitPolicy::spin: return "spin";
    case WaitPolicy::yield: return "yield";
    case WaitPolicy::futex: return "futex";
    case WaitPolicy::automatic: return "auto";
  }
  return "?";
}

WaitTuning tuning_for(WaitPolicy policy, bool oversubscribed) {
  switch (policy) {
    case WaitPolicy::spin: return {kForever, 256, 0, 20 * kMs, 20 * kUs, 100 * kMs};
    case WaitPolicy::yield: return {0, 0, kForever, 20 * kMs, 20 * kUs, 100 * kMs};
    case WaitPolicy::futex: return {1 * kUs, oversubscribed ? 0 : 64, 0, 20 * kMs, 20 * kUs, 100 * kMs};
    case WaitPolicy::automatic:
      // With a core each, a peer is usually microseconds away: spin. With more
      // processes than CPUs the peer we wait for may need our CPU: yield at
      // once, so it runs. Sleep only after 10 ms: a futex wake of an idle CPU
      // costs 20-50 us here (bench_shm wakeup), a yield round trip 3-4 us, and
      // sched_yield hands the CPU to any runnable peer anyway. Measured with 8
      // processes on 2 cores: yielding gives barrier 19 us, sleeping after
      // 100 us of yielding 67 us (Open MPI tuned with yield_when_idle: 53 us).
      if (oversubscribed) return {0, 0, 10 * kMs, 20 * kMs, 20 * kUs, 100 * kMs};
      // Nobody wakes these sleepers (see may_sleep()): short slices.
      return {50 * kUs, 256, 2 * kMs, 500 * kUs, 20 * kUs, 100 * kMs};
  }
  return {kForever, 256, 0, 20 * kMs, 20 * kUs, 100 * kMs};
}

WaitStatus Waiter::sleep_once(const Flag& f, std::uint64_t target, std::uint64_t max_ns) {
  auto& flag = const_cast<Flag&>(f);
  // seq_cst increment, then seq_cst re-read: pairs with publish()'s seq_cst
  // swap and read of `sleepers` (flag.hpp).
  flag.sleepers.fetch_add(1, std::memory_order_seq_cst);
  std::uint64_t v = flag.value.load(std::memory_order_seq_cst);
  if (!reached(v, target)) {
    futex_wait(reinterpret_cast<const std::uint32_t*>(&flag.value), static_cast<std::uint32_t>(v), max_ns);
  }
  flag.sleepers.fetch_sub(1, std::memory_order_relaxed);
  return WaitStatus::ok;
}

namespace {
// The first polls of a wait go without the pause instruction (26 ns on this
// VM's EPYC, more on recent Intel parts): a flag that lands during one would
// be seen up to that much later, on the critical path of every small call.
constexpr int kTightPolls = 16;
}  // namespace

WaitStatus Waiter::wait_slow(const Flag& f, std::uint64_t target, int peer, std::uint64_t timeout_ns) {
  // A peer one hop away answers in well under a microsecond: poll a while
  // before paying for the clock (a vDSO call, slower still in a VM).
  if (tuning_.spin_ns) {
    for (int i = 0; i < tuning_.quick_polls; ++i) {
      if (i >= kTightPolls) cpu_relax();
      if (poll(f, target)) return WaitStatus::ok;
    }
  }
  const std::uint64_t start = now_ns();
  std::uint64_t next_abort = start + tuning_.abort_check_ns;
  std::uint64_t next_alive = start + tuning_.liveness_ns;
  const std::uint64_t spin_end = tuning_.spin_ns == kForever ? kForever : start + tuning_.spin_ns;
  const std::uint64_t yield_end =
      tuning_.yield_ns == kForever || spin_end == kForever ? kForever : spin_end + tuning_.yield_ns;
  bool spinning = tuning_.spin_ns > 0;
  unsigned polls = 0;
  for (;;) {
    if (poll(f, target)) return WaitStatus::ok;
    // While spinning the clock is read every 32 polls only (a poll is ~10 ns).
    if (spinning && (++polls & 31u) != 0) {
      cpu_relax();
      continue;
    }
    const std::uint64_t now = now_ns();
    if (now >= next_abort) {
      if (hear_aborts_ && abort_.any()) return WaitStatus::aborted;
      if (check_ && check_->stale() && !poll(f, target)) return WaitStatus::stale;
      run_progress_hook();
      next_abort = now + tuning_.abort_check_ns;
    }
    if (now >= next_alive) {
      if (peers_ && peer >= 0 && !peers_->alive(peer)) {
        if (poll(f, target)) return WaitStatus::ok;  // it published before dying
        // It may have died of the failure that stopped the team: the abort
        // word names the first cause, which is what everyone should report.
        if (abort_.any()) return WaitStatus::aborted;
        dead_peer_ = peer;
        return WaitStatus::peer_dead;
      }
      next_alive = now + tuning_.liveness_ns;
    }
    if (timeout_ns && now - start >= timeout_ns) return WaitStatus::timeout;
    spinning = now < spin_end;
    if (spinning) {
      cpu_relax();
    } else if (now < yield_end) {
      ::sched_yield();
    } else {
      // Sleep until woken, or until the next liveness check or the timeout.
      std::uint64_t d = std::min(tuning_.sleep_slice_ns, next_alive - now);
      if (timeout_ns) d = std::min(d, start + timeout_ns - now);
      sleep_once(f, target, std::max<std::uint64_t>(d, 50 * kUs));
      next_abort = 0;  // re-read the abort words after every sleep
    }
  }
}

void set_progress_hook(void (*hook)()) { g_progress_hook.store(hook, std::memory_order_relaxed); }

WaitStatus Waiter::check(int peer) {
  const std::uint64_t now = now_ns();
  if (now >= next_abort_) {
    if (abort_.any()) return WaitStatus::aborted;
    if (check_ && check_->stale()) return WaitStatus::stale;
    next_abort_ = now + tuning_.abort_check_ns;
  }
  if (now >= next_alive_) {
    if (peers_ && peer >= 0 && !peers_->alive(peer)) {
      if (abort_.any()) return WaitStatus::aborted;
      dead_peer_ = peer;
      return WaitStatus::peer_dead;
    }
    next_alive_ = now + tuning_.liveness_ns;
  }
  return WaitStatus::ok;
}

}  // namespace osmp
