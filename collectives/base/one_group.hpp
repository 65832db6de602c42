// The blocking step of a team whose tree is one group (the teams with unit
// acks: Engine::unit_acks), for the four kinds of step their small calls
// take: one pass down (bcast, scatter), one pass up over a flat group
// (reduce, gather), one pass through the prefix top (scan, exscan), a round
// trip through the symmetric top (barrier, allreduce, allgather,
// reduce_scatter_block, alltoall). It
// reads and writes exactly
// what the Walk (walk.hpp) does in the same step, so ranks on either meet
// in it (a rank whose call takes the general path runs the Walk); the Walk
// strings resumable stages over any tree, this is that path with the tree
// known to be one lane and every wait in place: straight-line code, which
// is most of what a small call costs on a host that moves cache lines fast.
#pragma once

#include "collectives/base/fan_in.hpp"
#include "collectives/base/fan_out.hpp"
#include "collectives/base/prefix.hpp"
#include "collectives/base/stage.hpp"
#include "collectives/base/symmetric.hpp"

namespace osmp {

// Whether OneGroupStep runs a step of `s` in a one-group team whose lane is `l`.
inline bool one_group_runs(const StepPlan& s, const Lane& l) {
  if (!s.header) return false;
  if (s.one_pass) {
    if (s.top == TopCase::prefix) return true;
    if (s.down) return !s.up;
    return s.up && level_base(s, l.base).kind == BaseCase::Kind::flat;
  }
  return s.up && s.down && s.top == TopCase::symmetric;
}

template <PayloadHooks P>
class OneGroupStep {
 public:
  OneGroupStep(Engine& e, P& p, const StepPlan& plan, std::uint64_t step, const OpHeader& header, StatusWord local,
               int root)
      : x_(e, p, plan, step, header, local, root, 0, /*block=*/true) {}

  // The step on this rank: ok, or why a wait failed (a dead peer, an abort,
  // a timeout, an error raised elsewhere). The verdict is in state().
  Status run() {
    Wait w = x_.reuse();
    if (!w)
      w = x_.plan.top == TopCase::prefix ? prefix() : x_.plan.one_pass ? (x_.plan.down ? down() : up()) : symmetric();
    if (w) return x_.e.team().fail(x_.failed);  // a wait in place returns a Wait only when it failed
    take_data_error(x_);
    // What others may not have goes out before my ack (Engine::raise_found).
    if (StatusWord r = step_to_raise(x_)) x_.e.raise_found(r);
    // Done with everything of this step: its lines and areas may be written
    // again two steps on (StepState::reuse).
    Lane& l = x_.lane(0);
    publish(mline(l, l.g->me, x_.step).ack, x_.step, x_.sleepy);
    return {};
  }

  const StepState<P>& state() const { return x_; }

 private:
  // One pass down: the root (the group's local root in a rooted operation)
  // releases the data with its header; every other unit takes it and
  // compares the header with its own (FanOut).
  Wait down() {
    StepState<P>& x = x_;
    Lane& l = x.lane(0);
    // My header in my line, unread otherwise: a peer on another plan may
    // wait for it, and compare (Walk::progress).
    x.publish_mine(l);
    if (x.m == 0) {  // a receiver: the release, checked, then my part of it
      CtrlLine& rel = rel_line(l, x.step);
      const int from = x.actor(l, l.lroot(x.root));
      if (Wait w = x.need(rel.ready, x.step, from)) return w;
      l.up_ok = x.step;
      x.verdict = rel.ready.word;  // acquired with `ready`
      check_release(x, rel, from);
      const std::size_t len = x.p.down_len(l);
      if (x.verdict == 0) x.p.deliver(0, &l, len ? down_ptr(l, len, x.step) : nullptr);
      return {};
    }
    // The root: my status is the verdict; the data into the release line
    // (or area), then the release.
    x.verdict = x.status;
    const std::byte* from = nullptr;
    if (x.verdict == 0) {
      const std::byte* up = x.p.own_up();
      from = x.p.top_down(up ? up : x.result);
      x.p.deliver(1, nullptr, from);
    }
    const std::size_t len = x.p.down_len(l);
    std::byte* area = len ? down_ptr(l, len, x.step) : nullptr;
    if (area && x.verdict == 0) forward(x.p, nullptr, l, from, area);
    l.up_ok = x.step;
    CtrlLine& rel = rel_line(l, x.step);
    rel.ready.word = x.verdict;
    *header_of(rel) = x.header;            // every member checks it (check_release)
    publish(rel.ready, x.step, x.sleepy);  // after the data, the verdict and the header
    if (x.verdict == 0) x.p.deliver(0, &l, area);
    return {};
  }

  // One pass up a flat group: every unit puts its data and header in its
  // line (or slot) and publishes; the root collects them in unit order,
  // checks the headers and combines (RootUp, MemberUp).
  Wait up() {
    StepState<P>& x = x_;
    Lane& l = x.lane(0);
    const int me = l.g->me;
    if (x.m == 0) {  // a member
      const std::size_t len = x.p.up_len(l, me);
      if (len) put_up(x.p, up_ptr(l, len, me, x.step), x.p.own_up(), len);
      x.publish_mine(l);  // after the data
      return {};
    }
    // The root. My header too, for peers that (disagreeing on the count)
    // took the symmetric top and wait for my line (RootUp).
    x.publish_mine(l);
    LaneWork& w = x.work_of(0);
    flat_sources(l.n(), me, true, w);
    if (Wait wt = collect_.progress(x, l, w)) return wt;
    w.src[static_cast<std::size_t>(me)] = x.p.own_up();
    x.all_finished_before(l);
    UpOut out;
    up_out(x, 0, out);  // the top's output: never waits
    if (x.data_ok()) combine_into(x, l, w, out);
    l.up_ok = x.step;
    // The top of an up-only one-pass step: only I know the verdict (Walk::top).
    x.result = out.out;
    x.verdict = x.status;
    x.found = x.verdict;
    if (x.data_ok()) x.p.at_top(out.out);
    return {};
  }

  // One pass through the prefix top (scan, exscan: their payloads only).
  Wait prefix() {
    if constexpr (HasPrefix<P>) return prefix_.progress(x_, x_.p.own_up());
    return {};
  }

  // A round trip through the symmetric top: every unit publishes and reads
  // every other's line, and takes the result it works out (FanOut, at the top).
  Wait symmetric() {
    StepState<P>& x = x_;
    if (Wait w = symmetric_.progress(x, x.p.own_up())) return w;
    if (x.verdict == 0) x.p.deliver(0, &x.lane(0), x.result);
    return {};
  }

  StepState<P> x_;
  Collect collect_;
  SymmetricTop<P> symmetric_;
  PrefixTop<P> prefix_;
};

}  // namespace osmp
