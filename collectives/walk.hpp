// The walk driver: one step of a call on this rank, the base cases of its
// lanes strung over the tree (up, down, or up then down, as the step's plan
// says). Bottom-up the rank is the local root of lanes 0..m-1 (RootUp each),
// then an ordinary member of lane m (MemberUp), or at the top the top's case
// (the tree's local root, SymmetricTop, SlicesTop); top-down it takes what
// comes to it and releases the lanes it leads (FanOut).
//
// The walk is itself a resumable stage (base/stage.hpp): its whole state is
// this object (the phase it is in and its stages' own); progress() returns
// what it waits for. run_step() is how a call's coroutine awaits it
// (task.hpp): in place when the engine blocks. A template over the payload, as its stages: every hook call is
// direct and small ones inline (the hot path of small collectives is a few
// hundred instructions).
#pragma once

#include "collectives/base/fan_in.hpp"
#include "collectives/base/fan_out.hpp"
#include "collectives/base/one_group.hpp"
#include "collectives/base/prefix.hpp"
#include "collectives/base/slices.hpp"
#include "collectives/base/stage.hpp"
#include "collectives/base/symmetric.hpp"
#include "collectives/task.hpp"

namespace osmp {

// Whether a mismatch in `f` may have sent some ranks on a one-pass plan
// (which waits for, and tells, nobody) while I take a round trip: the
// operation is one that may take one, or ranks disagree on which operation
// it is (or on running it at all). Else every rank is in the round trip and
// gets its verdict.
inline bool elsewhere(const OpHeader& mine, Field f) {
  return may_one_pass(static_cast<OpKind>(mine.kind)) || f == Field::kind || f == Field::declined;
}

// What a finished step found that other ranks may not have, to be raised
// (collectives/calls.hpp; 0: nothing): a one-pass step's finding; a header
// step's verdict about the call before (nobody compared it there); in a
// team with unit acks, a mismatch that may have sent ranks on a one-pass
// plan, which waits for no verdict.
template <class X>
[[gnu::always_inline]] inline StatusWord step_to_raise(const X& x) {
  if (x.plan.one_pass) return x.found;
  if (!x.plan.header) return 0;
  const StatusWord v = x.verdict;
  if (status_field(v) == Field::earlier) return v;
  if (x.unit_acks && status_code(v) == Errc::mismatch && elsewhere(x.header, status_field(v))) return v;
  return 0;
}

template <PayloadHooks P>
class Walk {
 public:
  // `header`: this rank's view of the op; `local`: its own argument check
  // (0: fine); `first_chunk`: the op's first chunk step (0: none).
  // `block`: wait in place (the blocking path; base/stage.hpp).
  Walk(Engine& e, P& p, const StepPlan& plan, std::uint64_t step, const OpHeader& header, StatusWord local, int root,
       std::uint64_t first_chunk = 0, bool block = false)
      : x_(e, p, plan, step, header, local, root, first_chunk, block), mine_(p.own_up()) {
    phase_ = plan.up ? Phase::up : plan.down ? Phase::down : Phase::done;
  }

  Wait progress() {
    if (!started_) {
      if (x_.unit_acks) {
        if (Wait w = x_.reuse()) return w;
        if (x_.plan.header && !x_.plan.up) {
          // A down-only header step writes no line of mine; a peer on another
          // plan may wait for one (and compare) in any lane I act in: my
          // header, unread otherwise.
          for (int j = 0; j <= x_.last_lane(); ++j) {
            x_.publish_mine(x_.lane(j));
          }
        }
      }
      started_ = true;
    }
    Wait w = walk();
    if (!w && x_.unit_acks && !acked_) {
      take_data_error(x_);
      // What others may not have goes out before my ack (Engine::raise_found).
      if (StatusWord r = to_raise()) x_.e.raise_found(r);
      // Done with everything of this step: the lines and areas it used may
      // be written again two steps on (StepState::reuse).
      x_.ack_lanes();
      acked_ = true;
    }
    return w;
  }

  bool done() const { return phase_ == Phase::done && (acked_ || !x_.unit_acks); }
  // Not ok: a wait in place failed (a dead peer, an abort, a timeout).
  WaitStatus failed() const { return x_.failed; }
  // The verdict of a header step (0: every rank agreed and had good arguments).
  StatusWord verdict() const { return x_.verdict; }
  // A one-pass step: what only this rank found, and the header that differed.
  StatusWord found() const { return x_.found; }
  const OpHeader& seen() const { return x_.seen; }
  // What this step found that other ranks may not have (step_to_raise).
  StatusWord to_raise() const { return step_to_raise(x_); }
  int seen_rank() const { return x_.seen_rank; }
  bool one_pass() const { return x_.plan.one_pass; }
  bool header_step() const { return x_.plan.header; }
  const StepState<P>& state() const { return x_; }

 private:
  enum class Phase : std::uint8_t { up, top, down, done };

  Wait walk() {
    switch (phase_) {
      case Phase::up:
        for (; j_ < x_.lroots; root_up_ = RootUp<P>(++j_)) {  // local root
          if (Wait w = root_up_.progress(x_, mine_)) return w;
        }
        phase_ = Phase::top;
        [[fallthrough]];
      case Phase::top:
        if (Wait w = top()) return w;
        phase_ = x_.plan.down ? Phase::down : Phase::done;
        if (phase_ == Phase::done) return {};
        [[fallthrough]];
      case Phase::down:
        if (Wait w = down_.progress(x_, mine_)) return w;
        phase_ = Phase::done;
        [[fallthrough]];
      case Phase::done: return {};
    }
    return {};
  }

  // Above the lanes I lead: the top's case, or my part as an ordinary member.
  Wait top() {
    if (x_.top_member) {
      if constexpr (HasPrefix<P>) {
        if (x_.plan.top == TopCase::prefix) return prefix_.progress(x_, mine_);
      }
      return x_.plan.top == TopCase::slices ? slices_.progress(x_, mine_) : symmetric_.progress(x_, mine_);
    }
    if (x_.m < x_.k) return member_.progress(x_, mine_);
    reached_top(x_, mine_);  // the top local root: the up result is complete
    return {};
  }

  StepState<P> x_;
  const std::byte* mine_;  // what this rank brings to the next lane up (at last, the up result)
  Phase phase_;
  bool started_ = false;
  bool acked_ = false;
  int j_ = 0;
  RootUp<P> root_up_{0};
  MemberUp<P> member_;
  SymmetricTop<P> symmetric_;
  SlicesTop<P> slices_;
  PrefixTop<P> prefix_;
  FanOut<P> down_;
};

// What a finished step means for its call: the error its walk ended with
// (`st`), else the verdict's (header steps), having noted what the call
// raises or forgets (Engine::note_found, note_agreed_error). A correct
// call takes only its first lines: inlined into the blocking step
// (block_on_step, ops/common.hpp), called out of line by the awaited one (StepAwait).
// Inlined into its await_resume too (GCC 12.2, -O3), the steps of
// chunk_steps in a 72000-byte bcast across simulated nodes saw the call's
// first chunk step as 1 (it was 63), so the root waited for acks of step 61
// that no member writes (mpi.mpich.pmpi_corners_4_on_2_nodes hung on every
// run; read with gdb in both ranks' StepState::first_chunk). Not reduced
// yet: a miscompiled coroutine frame, or undefined behaviour of ours that
// the inlining exposes.
template <class X>
[[gnu::always_inline]] inline Status inline_step_result(Engine& e, const X& x, Status st) {
  OSMP_RETURN_IF_ERROR(std::move(st));
  const bool one_pass = x.plan.one_pass, header_step = x.plan.header;
  const StatusWord raise = step_to_raise(x);
  if (one_pass || raise != 0) {
    e.note_found(raise);  // Engine::call raises it (the walk did, before its ack)
  } else if (header_step && x.verdict != 0) {
    e.note_agreed_error();
  }
  if (!header_step || x.verdict == 0) [[likely]]
    return {};
  return step_verdict_error(x.verdict, x.header, e.team().rank(), x.seen, x.seen_rank, one_pass || e.unit_acks());
}
template <class X>
[[gnu::noinline]] Status step_result(Engine& e, const X& x, Status st) {
  return inline_step_result(e, x, std::move(st));
}

// One step of a call, as a call's coroutine awaits it (task.hpp): blocking
// when the engine blocks (the walk waits in place and the call never
// suspends), else run as far as it goes. Its result is the verdict's error
// (header steps) or ok.
template <PayloadHooks P>
class StepAwait : public Suspends<StepAwait<P>> {
 public:
  StepAwait(Engine& e, P& p, const StepPlan& plan, std::uint64_t step, const OpHeader& header, StatusWord local,
            int root, std::uint64_t first_chunk)
      : e_(e),
        header_(header),
        w_(e, p, plan, step, header, local, root, first_chunk, e.blocking()),
        watch_(plan.header && e.unit_acks()) {}
  StepAwait(const StepAwait&) = delete;
  StepAwait& operator=(const StepAwait&) = delete;

  bool await_ready() {
    if (watch_) e_.watch_step(&header_);
    return !advance(e_.blocking());
  }

  // Blocking: drive() (base/stage.hpp). Not blocking: until a wait that
  // has not completed (its peer checked now and then: Waiter::check).
  [[gnu::flatten]] Wait advance(bool block) {
    if (block) {
      st_ = drive(e_.team(), w_);
    } else if (Wait w = until_waiting(); w) {
      return w;
    }
    if (watch_) e_.watch_step(nullptr);
    return {};
  }

  Status await_resume() { return step_result(e_, w_.state(), std::move(st_)); }

 private:
  Wait until_waiting() {
    for (;;) {
      Wait w = w_.progress();
      if (!w) return {};
      if (poll(*w.flag, w.target)) continue;
      const WaitStatus ws = e_.team().waiter().check(w.peer);
      if (ws == WaitStatus::ok) return w;
      if (poll(*w.flag, w.target)) continue;  // it published, then died
      st_ = e_.team().fail(ws);
      return {};
    }
  }

  Engine& e_;
  OpHeader header_;
  Walk<P> w_;
  Status st_;
  bool watch_;
};

// co_await run_step(...): one step of the call.
template <PayloadHooks P>
StepAwait<P> run_step(Engine& e, P& p, const StepPlan& plan, std::uint64_t step, const OpHeader& header,
                      StatusWord local, int root, std::uint64_t first_chunk = 0) {
  return StepAwait<P>(e, p, plan, step, header, local, root, first_chunk);
}

}  // namespace osmp
