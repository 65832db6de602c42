// The blocking step of a team whose tree is one group (the teams with unit
// acks: Engine::unit_acks), for the four kinds of step their small calls
// take: one pass down (bcast, scatter), one pass up over a flat group
// (reduce, gather), one pass through the prefix top (scan, exscan), a round
// trip through the symmetric top (barrier, allreduce, allgather,
// reduce_scatter_block, alltoall). It is the Walk's own steps (take_release,
// start_down, release_lane; flat_sources, Collect, up_out, combine_into,
// reached_top; the tops), run in the order the Walk runs them over one flat
// lane with every wait in place, so
// ranks on either meet in a step (a rank whose call takes the general path
// runs the Walk): what it leaves out is only the Walk's bookkeeping for
// resuming and for trees of several lanes, which is most of what a small
// call costs besides its cache lines.
#pragma once

#include "collectives/base/fan_in.hpp"
#include "collectives/base/fan_out.hpp"
#include "collectives/base/prefix.hpp"
#include "collectives/base/stage.hpp"
#include "collectives/base/symmetric.hpp"

namespace osmp {

// A step of kind K on this rank, blocking. Its state's plan is K's
// FixedStep: what the step's plan decides in the Walk's functions is
// constant here.
template <PayloadHooks P, OneGroupKind K>
class OneGroupStep {
 public:
  OneGroupStep(Engine& e, P& p, const StepPlan& plan, std::uint64_t step, const OpHeader& header, StatusWord local,
               int root)
      : x_(e, p, plan, step, header, local, root, 0, /*block=*/true) {}

  // The step on this rank: ok, or why a wait failed (a dead peer, an abort,
  // a timeout, an error raised elsewhere). The verdict is in state().
  Status run() {
    Wait w = x_.reuse_one_lane();
    if (!w) {
      if constexpr (K == OneGroupKind::prefix) {
        w = prefix();
      } else if constexpr (K == OneGroupKind::down) {
        w = down();
      } else if constexpr (K == OneGroupKind::up) {
        w = up();
      } else {
        w = symmetric();
      }
    }
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

  const StepState<P, FixedStep<K>>& state() const { return x_; }

 private:
  // One pass down: the root (the group's local root in a rooted operation)
  // releases the data with its header; every other unit takes it and
  // compares the header with its own. My header goes in my line first,
  // unread otherwise: a peer on another plan may wait for it, and compare
  // (Walk::progress).
  Wait down() {
    auto& x = x_;
    Lane& l = x.lane(0);
    publish(x.header_in_mine(l).ready, x.step, x.sleepy);
    const std::byte* from = nullptr;
    if (x.m == 0) return take_release(x, l, 0, from);  // a receiver
    from = start_down(x, x.p.own_up());
    release_lane(x, l, 0, nullptr, from);
    return {};
  }

  // One pass up a flat group: every unit puts its data and header in its
  // line (or slot) and publishes; the root collects them in unit order,
  // checks the headers and combines, and has the result (RootUp, MemberUp
  // and the Walk's top, for one flat lane).
  Wait up() {
    auto& x = x_;
    Lane& l = x.lane(0);
    const int me = l.g->me;
    if (x.m == 0) {  // a member
      const std::size_t len = x.p.up_len(l, me);
      if (len) put_up(x.p, up_ptr(l, len, me, x.step), x.p.own_up(), len);
      publish(x.header_in_mine(l).ready, x.step, x.sleepy);  // after the data
      return {};
    }
    // The root. My header too, for peers that (disagreeing on the count)
    // took the symmetric top and wait for my line (RootUp).
    publish(x.header_in_mine(l).ready, x.step, x.sleepy);
    LaneWork& w = x.work_of(0);
    flat_sources(l.n(), me, true, w);
    if (Wait wt = collect_.progress(x, l, w)) return wt;
    w.src[static_cast<std::size_t>(me)] = x.p.own_up();
    x.all_finished_before(l);
    UpOut out;
    up_out(x, 0, out);  // the top's output: never waits
    if (x.data_ok()) combine_into(x, l, w, out);
    l.up_ok = x.step;
    reached_top(x, out.out);
    return {};
  }

  // One pass through the prefix top (scan, exscan: their payloads only).
  Wait prefix() { return prefix_.progress(x_, x_.p.own_up()); }

  // A round trip through the symmetric top: every unit publishes and reads
  // every other's line, and takes the result it works out (FanOut, at the top).
  Wait symmetric() {
    auto& x = x_;
    if (Wait w = symmetric_.progress(x, x.p.own_up())) return w;
    if (x.verdict == 0) x.p.deliver(0, &x.lane(0), x.result);
    return {};
  }

  StepState<P, FixedStep<K>> x_;
  Collect collect_;
  SymmetricTop<P> symmetric_;
  PrefixTop<P> prefix_;
};

}  // namespace osmp
