// Waiting for a flag: spin, then yield, then sleep on a futex.
//
//   spin   busy-poll with the pause instruction (best with one process per core)
//   yield  poll, sched_yield() between polls
//   futex  poll a few times, then sleep until the writer wakes us
//   auto   spin briefly, then yield, then sleep; when processes outnumber the
//          CPUs they may run on, spin only a few polls and yield at once
//
// Every wait also watches, now and then, the team's abort words and the
// liveness of the process it waits for, so a dead peer gives an error instead
// of a hang. Chosen with OSMP_WAIT or the API; default auto.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "core/status.hpp"
#include "shm/flag.hpp"
#include "shm/peers.hpp"

namespace osmp {

enum class WaitPolicy { spin, yield, futex, automatic };

// Called now and then while any wait of this process lasts (with the abort
// checks, every abort_check_ns of waiting), never from inside itself: what
// else must move while osmp waits. Under MPI, the MPI's own progress
// (mpi_glue/pmpi: opal_progress in the Open MPI component, the interposer's
// pending calls and a probe), so that a peer that needs this rank's
// point-to-point traffic or non-blocking calls to reach the collective gets
// it. Null: nothing (the default).
void set_progress_hook(void (*hook)());

Result<WaitPolicy> parse_wait_policy(std::string_view text);
const char* to_string(WaitPolicy p);

// Phase lengths of a wait; derived from the policy, adjustable for tuning.
struct WaitTuning {
  std::uint64_t spin_ns;         // busy-polling before yielding (UINT64_MAX: forever)
  int quick_polls;               // polls before the clock is first read (0 when oversubscribed)
  std::uint64_t yield_ns;        // yielding before sleeping (UINT64_MAX: forever)
  std::uint64_t sleep_slice_ns;  // longest single futex sleep
  std::uint64_t abort_check_ns;  // how often the abort words are read while spinning
  std::uint64_t liveness_ns;     // how often the awaited process is checked
};
WaitTuning tuning_for(WaitPolicy policy, bool oversubscribed);

// stale: the call being waited in will not complete (WaitCheck said so).
enum class WaitStatus : int { ok = 0, aborted, peer_dead, timeout, stale };

// Asked now and then while waiting, as the abort words are: true when the
// wait is for a call that another rank has already found to have failed, or
// that the waiter itself now finds to have failed (collectives/calls.hpp),
// so that the waiter gives up instead of hanging.
class WaitCheck {
 public:
  virtual bool stale() noexcept = 0;

 protected:
  ~WaitCheck() = default;
};

// Non-zero abort word: the team (or the job) gave up; see team/ for encoding.
struct AbortWords {
  const std::atomic<std::uint64_t>* team = nullptr;
  const std::atomic<std::uint64_t>* job = nullptr;
  bool any() const noexcept {
    // Relaxed: a stale zero only delays noticing by one check interval.
    return (team && team->load(std::memory_order_relaxed)) || (job && job->load(std::memory_order_relaxed));
  }
};

class Waiter {
 public:
  Waiter() : Waiter(WaitPolicy::automatic, false) {}
  Waiter(WaitPolicy policy, bool oversubscribed)
      : policy_(policy),
        tuning_(tuning_for(policy, oversubscribed)),
        writers_wake_(policy == WaitPolicy::futex || (policy == WaitPolicy::automatic && oversubscribed)) {}

  void watch(AbortWords abort, PeerWatch* peers) {
    abort_ = abort;
    peers_ = peers;
  }
  // Watches `check` too (null: nothing more).
  void watch_calls(WaitCheck* check) { check_ = check; }
  WaitCheck* watching() const { return check_; }
  void set_tuning(const WaitTuning& t) { tuning_ = t; }
  WaitPolicy policy() const { return policy_; }
  const WaitTuning& tuning() const { return tuning_; }
  // Whether writers must wake sleepers (publish() then pays a locked swap).
  // futex: always. auto, with a CPU per process: no. Its waiters sleep only
  // after 2 ms of waiting, and then in short slices they end themselves, so a
  // late wake-up costs at most a slice after a long wait, while every publish
  // on the fast path stays a plain store. auto, oversubscribed: yes, sleeping
  // early and being woken at once is what keeps the CPUs for runnable peers.
  bool may_sleep() const { return writers_wake_; }

  // Waits until `f` reaches `target`. `peer` is the rank expected to publish it
  // (-1: none in particular); `timeout_ns` 0 means no limit.
  WaitStatus wait(const Flag& f, std::uint64_t target, int peer = -1, std::uint64_t timeout_ns = 0) {
    if (poll(f, target)) return WaitStatus::ok;  // fast path: one acquire load
    return wait_slow(f, target, peer, timeout_ns);
  }

  // Waits for a live peer that copies into or out of this rank's memory,
  // after an error ended the wait for it (collectives/ops/common.hpp,
  // outlive_copier): only the peer's death ends this wait early, not the
  // abort words nor a stale call, as the copy is under way and ends by itself.
  WaitStatus outlive(const Flag& f, std::uint64_t target, int peer) {
    WaitCheck* calls = check_;
    check_ = nullptr;
    hear_aborts_ = false;
    const WaitStatus ws = wait(f, target, peer);
    hear_aborts_ = true;
    check_ = calls;
    return ws;
  }

  // For a non-blocking test of a flag that has not reached its target: the
  // checks wait() makes now and then (the abort words, the WaitCheck, the
  // liveness of `peer`), made here at the same intervals (one clock read per
  // call). ok: the wait may go on; else why it will not complete.
  WaitStatus check(int peer);

  // Rank found dead by the last wait that returned peer_dead.
  int dead_peer() const { return dead_peer_; }

 private:
  WaitStatus wait_slow(const Flag& f, std::uint64_t target, int peer, std::uint64_t timeout_ns);
  WaitStatus sleep_once(const Flag& f, std::uint64_t target, std::uint64_t max_ns);

  WaitPolicy policy_;
  WaitTuning tuning_;
  bool writers_wake_;
  AbortWords abort_{};
  PeerWatch* peers_ = nullptr;
  WaitCheck* check_ = nullptr;
  bool hear_aborts_ = true;  // false inside outlive()
  int dead_peer_ = -1;
  std::uint64_t next_abort_ = 0, next_alive_ = 0;  // check()'s schedule
};

}  // namespace osmp
