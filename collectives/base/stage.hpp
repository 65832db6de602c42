// What every base case of a step shares: the resumable-stage contract and
// the step's own state.
//
// A stage is an object holding all of its progress. progress() runs until it
// either completes (returns an empty Wait) or needs a flag another rank has
// not yet published: it returns that flag, the value it waits for and the
// rank expected to publish it, having done nothing it would redo when called
// again. A non-blocking call keeps the stage and calls progress() when it
// may; a blocking one is start + loop { progress; wait on what it returned }
// (drive() below). On the blocking path the step may instead wait in place
// (StepState::block): the same code, which then returns a Wait only when the
// wait failed, and saves re-entering the stages after every hand-off (small
// calls are a few hand-offs of tens of nanoseconds each).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "collectives/engine.hpp"
#include "collectives/payload.hpp"
#include "collectives/plan.hpp"
#include "collectives/protocol.hpp"
#include "shm/copy.hpp"
#include "shm/flag.hpp"

namespace osmp {

// What a stage waits for: `flag` reaching `target`, published by rank `peer`.
struct Wait {
  const Flag* flag = nullptr;  // null: done
  std::uint64_t target = 0;
  int peer = -1;
  explicit operator bool() const { return flag != nullptr; }
};

// Runs a stage to completion, blocking in the team's waiter. A stage whose
// own wait failed (failed() != ok) ends with that error. Flattened: the
// stages' progress() calls are inlined into one loop per payload, as one
// function was before the stages were split (small calls are latency-bound).
template <class S>
[[gnu::flatten]] Status drive(TeamCore& team, S& stage) {
  for (;;) {
    Wait w = stage.progress();
    if (!w) return {};
    if (stage.failed() != WaitStatus::ok) return team.fail(stage.failed());
    WaitStatus ws = team.waiter().wait(*w.flag, w.target, w.peer);
    if (ws != WaitStatus::ok) return team.fail(ws);
  }
}

inline int parity(std::uint64_t step) { return static_cast<int>(step % kBuffers); }

inline CtrlLine& mline(const Lane& l, int u, std::uint64_t step) {
  return *l.member[parity(step)][static_cast<std::size_t>(u)];
}

// Where unit u's up data of `len` bytes goes: its line, or its slot.
inline std::byte* up_ptr(const Lane& l, std::size_t len, int u, std::uint64_t step) {
  return len <= kInlineBytes ? inline_of(mline(l, u, step)) : l.slot[parity(step)][static_cast<std::size_t>(u)];
}

// The local root's release line of a step (by parity: Lane::rel).
inline CtrlLine& rel_line(const Lane& l, std::uint64_t step) { return *l.rel[parity(step)]; }

// Where the local root's down data of `len` bytes goes: its line, or the area.
inline std::byte* down_ptr(const Lane& l, std::size_t len, std::uint64_t step) {
  return len <= kInlineBytes ? inline_of(rel_line(l, step)) : l.bcast[parity(step)];
}

// The line-level protocol every driver of a step writes and reads by (the
// Walk's stages, the one-group step): docs/protocol.md, "A step".
//
// A unit's line: its header and status, then the release store of `ready`
// after them and after the data the step put in the line or slot before;
// pairs with the acquire of every reader's wait on `ready`.
inline void publish_line(CtrlLine& line, const OpHeader& h, StatusWord status, std::uint64_t step, bool sleepy) {
  *header_of(line) = h;
  line.ready.word = status;
  publish(line.ready, step, sleepy);
}
// What a reader takes from unit `who`'s line, acquired with its `ready`:
// the unit's status (its error, or what it found below), else a mismatch
// of its header against `against`, else 0.
inline StatusWord line_status(const CtrlLine& line, const OpHeader& against, int who) {
  if (line.ready.word != 0) return line.ready.word;
  if (const Field f = compare(*header_of(line), against); f != Field::none) return make_status(Errc::mismatch, f, who);
  return 0;
}
// A local root's release of a lane: the verdict and its own header (every
// member compares it: check_release), then the release store after them
// and the data of the lane's area; pairs with the members' acquire.
inline void publish_release(CtrlLine& rel, StatusWord verdict, const OpHeader& h, std::uint64_t step, bool sleepy) {
  rel.ready.word = verdict;
  *header_of(rel) = h;
  publish(rel.ready, step, sleepy);
}
// A member's comparison of a release's header with its own (`me`: its
// rank, which the mismatch names): 0 when they agree.
inline StatusWord release_status(const CtrlLine& rel, const OpHeader& mine, int me) {
  const Field f = compare(*header_of(rel), mine);
  return f == Field::none ? 0 : make_status(Errc::mismatch, f, me);
}

// The end of a one-pass step, once its data moved (the drivers call it
// before the ack): what the payload found wrong in it (data_error: a lazy
// gatherv's or scatterv's length that is not the root's count) is the
// step's verdict and finding, as a header that differed would be (raised
// before the ack: step_to_raise).
template <class X>
void take_data_error(X& x) {
  if constexpr (HasDataError<std::remove_cvref_t<decltype(x.p)>>) {
    if (x.plan.one_pass && x.verdict == 0) {
      if (const StatusWord f = x.p.data_error()) x.verdict = x.found = f;
    }
  }
}

// The plan of a one-group step of kind K (base/one_group.hpp): StepPlan's
// fields as constants, as step_to_raise and inline_step_result read them
// (walk.hpp); such a step runs only where its plan is this
// (one_group_kind, engine.hpp).
template <OneGroupKind K>
struct FixedStep {
  static_assert(K != OneGroupKind::none);
  static constexpr bool header = true;
  static constexpr bool up = K != OneGroupKind::down;
  static constexpr bool down = K == OneGroupKind::down || K == OneGroupKind::symmetric;
  static constexpr TopCase top = K == OneGroupKind::prefix      ? TopCase::prefix
                                 : K == OneGroupKind::symmetric ? TopCase::symmetric
                                                                : TopCase::tree;
  static constexpr bool one_pass = K != OneGroupKind::symmetric;
};

// One step of a call on this rank: what the plan says it is, and what the
// base cases of its lanes share while it runs. Its role (local root of lanes
// 0..m-1, an ordinary member of lane m; m == k: the top) is fixed at start.
template <PayloadHooks P>
struct StepState {
  // `block`: wait in place (the blocking path), else return what to wait for.
  StepState(Engine& eng, P& pay, const StepPlan& sp, std::uint64_t s, const OpHeader& h, StatusWord local, int r,
            std::uint64_t first, bool block)
      : e(eng),
        p(pay),
        lanes(eng.lanes().data()),
        work(eng.work().data()),
        plan(sp),
        step(s),
        first_chunk(first),
        header(h),
        status(local),
        root(r),
        k(static_cast<int>(eng.lanes().size())),
        sleepy(eng.team().waiter().may_sleep()),
        uniform(pay.uniform_up_len()),
        unit_acks(eng.unit_acks()),
        one_group(eng.one_group()),
        waiter(block ? &eng.team().waiter() : nullptr) {
    while (m < k && lane(m).g->me == lane(m).lroot(root)) ++m;
    top_member = plan.top != TopCase::tree && m >= k - 1;
    lroots = plan.top != TopCase::tree ? std::min(m, k - 1) : m;
  }

  // An empty Wait when `f` has reached `target` (one acquire load, which
  // pairs with the writer's publish()), after waiting in place when blocking;
  // else what to wait for (blocking: only when the wait failed, in `failed`).
  Wait need(const Flag& f, std::uint64_t target, int peer) {
    if constexpr (CountsWaits<P>) p.waited(peer);
    return acquire(f, target, peer);
  }
  // need() without the count: the acks of reuse().
  Wait acquire(const Flag& f, std::uint64_t target, int peer) {
    if (poll(f, target)) return {};
    if (waiter) {
      failed = waiter->wait(f, target, peer);
      if (failed == WaitStatus::ok) return {};
    }
    return Wait{&f, target, peer};
  }

  Lane& lane(int j) { return lanes[j]; }
  LaneWork& work_of(int j) { return work[j]; }
  Lane& top() { return lanes[k - 1]; }
  int actor(const Lane& l, int u) const { return l.g->actor(u, root); }
  // Whether data moves: always in chunk steps, in the header step only while
  // nobody has failed.
  bool data_ok() const { return !plan.header || status == 0; }
  bool verdict_ok() const { return !plan.header || verdict == 0; }
  BaseCase base(const Lane& l) const { return level_base(plan, l.base); }

  // Takes a unit's header and status into the running status.
  void check(const CtrlLine& line, const OpHeader& against, int who) {
    if (!plan.header || status != 0) return;
    // Acquired with `ready`: the header and status word were written before it.
    if (const StatusWord s = line_status(line, against, who); s != 0) {
      status = s;
      if (line.ready.word == 0) saw(line, who);  // a header that differed
    }
  }

  // Keeps the header that differed from mine (a one-pass step's own message).
  void saw(const CtrlLine& line, int who) {
    seen = *header_of(const_cast<CtrlLine&>(line));
    seen_rank = who;
  }

  // The lanes this rank acts in during the step: 0..m-1 as local root, m as
  // an ordinary member (or the top's case). Units above the bottom lane are
  // subtrees, acted for by the call's root where it lies in one, else by
  // their leader (Group::actor): who acts for a unit changes with the root.
  int last_lane() const { return std::min(m, k - 1); }

  // In a team with unit acks, before this step writes anything: every unit
  // of each lane I act in finished the step two before, which used the
  // same lines and areas (a one-pass step's readers may still read them;
  // none of its writers waits for them). My own unit counts above the
  // bottom lane: another rank may have acted for it then (the root of that
  // step, or its leader). Known without waiting after a round trip
  // (done_all).
  Wait reuse() {
    if (one_group) return reuse_one_lane();
    if (step >= 2) {
      const int before = e.root_of_step(step);  // the root of step - 2 (same parity)
      for (int j = 0; j <= last_lane(); ++j) {
        Lane& l = lane(j);
        if (reached(l.done_all, step - 2)) continue;
        for (int u = 0; u < l.n(); ++u) {
          if (j == 0 && u == l.g->me) continue;  // the bottom lane's units are ranks: mine is me
          if (Wait w = acquire(mline(l, u, step).ack, step - 2, l.g->actor(u, before))) return w;
        }
        l.done_all = step - 2;
      }
    }
    e.root_of_step(step) = root;
    return stop_if_raised();
  }

  // reuse() in a team of one group (OneGroupStep's, and the Walk's there):
  // one lane, whose units are ranks.
  Wait reuse_one_lane() {
    Lane& l = lane(0);
    if (step >= 2 && !reached(l.done_all, step - 2)) {
      for (int u = 0; u < l.n(); ++u) {
        if (u == l.g->me) continue;
        if (Wait w = acquire(mline(l, u, step).ack, step - 2, actor(l, u))) return w;
      }
      l.done_all = step - 2;
    }
    return stop_if_raised();
  }

  // A rank that found an error in step s - 2 raised it before its ack,
  // which I have acquired (here, or through a round trip since): stop
  // before writing anything (the call fails as stale; the next one
  // resynchronises). So a rank whose calls wait for nobody learns of an
  // error at the latest two steps on in a team of one group (two more per
  // lane between it and the finder in a tree of several: docs/protocol.md,
  // "When a rank learns it"). The Wait returned with `failed` set
  // is never waited on: drivers check failed() first (drive()).
  Wait stop_if_raised() {
    if (e.error_pending()) {
      failed = WaitStatus::stale;
      Lane& l = lane(0);
      return Wait{&mline(l, l.g->me, step).ack, step, e.team().rank()};
    }
    return {};
  }

  // In a team with unit acks, once this rank is done with everything of the
  // step: its ack in its unit's line of every lane it acted in, so that the
  // lines and areas of the step may be written again two steps on (reuse()).
  void ack_lanes() {
    for (int j = 0; j <= last_lane(); ++j) {
      Lane& l = lane(j);
      publish(mline(l, l.g->me, step).ack, step, sleepy);
    }
  }

  // Every unit that saw all units' lines of this step (a local root at the
  // end of its collect, a member released after a round trip, the symmetric
  // top) knows that all finished the step before: each acked it before it
  // published here. In a tree of several groups only when the same ranks
  // acted for the units then (the same root), since a unit's ack is its
  // actor's.
  void all_finished_before(Lane& l) {
    if (!unit_acks || step < 1 || reached(l.done_all, step - 1)) return;
    if (!one_group && e.root_of_step(step - 1) != root) return;
    l.done_all = step - 1;
  }

  // My line of lane l with my header and status, published (publish_line).
  void publish_mine(Lane& l) { publish_line(mline(l, l.g->me, step), header, status, step, sleepy); }

  // Before a slot of lane l is written again, its local root must have
  // consumed what was written there two steps ago. A release seen since says
  // so; after up-only steps (chunked reduce), whose writers move on without
  // waiting, only the local root's ack does.
  Wait slot_free(Lane& l, std::size_t len) {
    if (unit_acks) return {};  // reuse() waited for this at the start of the step
    if (len <= kInlineBytes || step < 2 || reached(l.up_ok, step - 2)) return {};
    if (Wait w = need(l.release->ack, step - 2, actor(l, l.lroot(root)))) return w;
    l.up_ok = step - 2;
    return {};
  }

  std::size_t up_len(const Lane& l, int u) const { return uniform != Payload::kVaries ? uniform : p.up_len(l, u); }

  Engine& e;
  P& p;
  Lane* lanes;     // the engine's, k of them
  LaneWork* work;  // the engine's, one per lane
  StepPlan plan;
  std::uint64_t step;
  std::uint64_t first_chunk;  // the op's first chunk step (0: none)
  OpHeader header;            // this rank's view of the op
  StatusWord status;          // errors seen so far (mine, my units')
  int root;
  int k;
  bool sleepy;
  std::size_t uniform;
  bool unit_acks;  // Engine::unit_acks
  bool one_group;  // Engine::one_group
  Waiter* waiter;  // blocking: wait in place
  WaitStatus failed = WaitStatus::ok;
  int m = 0;                // local root of lanes 0..m-1
  int lroots = 0;           // lanes whose local root this rank is in the tree sense
  bool top_member = false;  // this rank runs the top's symmetric or slices case
  StatusWord verdict = 0;
  const std::byte* result = nullptr;  // what the top produced
  // A one-pass step: what this rank found that others may not see (to be
  // raised: collectives/calls.hpp), and the header that differed from mine.
  StatusWord found = 0;
  OpHeader seen{};
  int seen_rank = -1;
};

// Waits for the units of w.from in lane l (resumable: `next` is the first not
// yet seen), checks their headers, and points w.src at their data.
struct Collect {
  std::size_t next = 0;

  template <class P>
  Wait progress(StepState<P>& x, const Lane& l, LaneWork& w) {
    for (; next < w.from.size(); ++next) {
      const int u = w.from[next];
      CtrlLine& line = mline(l, u, x.step);
      if (Wait wt = x.need(line.ready, x.step, x.actor(l, u))) return wt;
      x.check(line, x.header, x.actor(l, u));
      w.src[static_cast<std::size_t>(u)] = up_ptr(l, x.up_len(l, u), u, x.step);
    }
    return {};
  }
};

}  // namespace osmp
