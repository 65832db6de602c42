// The down half of every base case: take what comes down to this rank (the
// release of the lane where it is an ordinary member, or the top's result),
// then release the groups it leads, top-down, each with its part of the data
// and, in header steps, the verdict. Flat and k-nomial groups release alike:
// one line and one area read by every member. Resumable (base/stage.hpp).
#pragma once

#include "collectives/base/stage.hpp"

namespace osmp {

// A one-pass step: nobody compared headers on the way up, so each member
// compares the release's with its own. What it finds (or its own bad
// arguments) only it knows: to be raised (collectives/calls.hpp). A
// verdict already set is the root's own error, which every rank gets.
// A round trip's header step in a team with unit acks compares too: the
// release may come from a root on a one-pass plan, which compared nothing.
// The header a release carries is its writer's own (a leader forwards its
// header with the data), so each member compares with its lane's local root
// and the comparisons chain from the root down.
template <class P>
void check_release(StepState<P>& x, const Lane& l, const CtrlLine& rel) {
  if (x.verdict != 0) return;  // the writer's error (a round trip's: every rank's), which wins
  const OpHeader& theirs = *header_of(rel);
  if (const StatusWord s = release_status(rel, x.header, x.e.team().rank()); s != 0) {
    x.verdict = s;
    // The writer is whoever thinks it is the local root: the root itself
    // where it lies in this lane's domain (Group::actor), and says so; two
    // may write, when ranks disagree on the root. Else the leader of the
    // lane's unit 0 (Lane::lroot of a root outside it).
    const int root = theirs.root;
    const bool here = root >= 0 && root < x.e.team().size() && l.g->unit_of_rank[static_cast<std::size_t>(root)] >= 0;
    x.saw(rel, here ? root : l.g->actor(0, -1));
    x.found = x.verdict;
  } else if (x.plan.one_pass) {
    x.verdict = x.status;
    x.found = x.verdict;
  }
}

// The steps of the down half, which FanOut strings over the lanes a rank
// leads (and OneGroupStep runs for a one-group team, base/one_group.hpp).

// As an ordinary member of lane l (the j-th of mine): waits for its release,
// takes the verdict (header steps) and checks the release's header, then
// delivers my part; `from`: where the lane's down data lies (null: none).
template <class P>
[[gnu::always_inline]] inline Wait take_release(StepState<P>& x, Lane& l, int j, const std::byte*& from) {
  CtrlLine& rel = rel_line(l, x.step);
  const int writer = x.actor(l, l.lroot(x.root));
  if (Wait w = x.need(rel.ready, x.step, writer)) return w;
  l.up_ok = x.step;  // released: everything up to this step was consumed
  if (x.plan.up) x.all_finished_before(l);
  if (x.plan.header) x.verdict = rel.ready.word;  // acquired with `ready`
  if (x.plan.one_pass || (x.unit_acks && x.plan.header)) check_release(x, l, rel);
  const std::size_t len = x.p.down_len(l);
  from = len ? down_ptr(l, len, x.step) : nullptr;
  if (x.verdict_ok()) x.p.deliver(j, &l, from);
  return {};
}

// As the top local root: what goes down (the up result, or the payload's
// own data in a down-only step, whose verdict is my own status).
template <class P>
[[gnu::always_inline]] inline const std::byte* start_down(StepState<P>& x, const std::byte* up_result) {
  if (x.plan.header && !x.plan.up) x.verdict = x.status;
  if (!x.verdict_ok()) return nullptr;
  const std::byte* from = x.p.top_down(up_result ? up_result : x.result);
  x.p.deliver(x.k, nullptr, from);
  return from;
}

// Releases lane l (the j-th I lead) with its part of `from` (data that came
// down `from_lane`; null at the top) and, in header steps, the verdict.
// Returns where the lane's down data lies, for the lanes below.
template <class P>
[[gnu::always_inline]] inline std::byte* release_lane(StepState<P>& x, Lane& l, int j, const Lane* from_lane,
                                                      const std::byte* from) {
  const std::size_t len = x.p.down_len(l);
  std::byte* area = len ? down_ptr(l, len, x.step) : nullptr;
  if (area && x.verdict_ok()) forward(x.p, from_lane, l, from, area);
  if (!x.plan.up) {  // the ack moves on every step, so that slot_free() never waits on a gap
    if (!x.unit_acks) publish(l.release->ack, x.step, x.sleepy);  // (unit acks: never read)
    l.up_ok = x.step;
  }
  CtrlLine& rel = rel_line(l, x.step);
  if (x.plan.one_pass || (x.unit_acks && x.plan.header)) {
    // Checked by every member in a team with unit acks (check_release).
    publish_release(rel, x.verdict, x.header, x.step, x.sleepy);  // after the data
  } else {
    if (x.plan.header) rel.ready.word = x.verdict;
    publish(rel.ready, x.step, x.sleepy);  // after the data and the verdict
  }
  if (x.verdict_ok()) x.p.deliver(j, &l, area);
  return area;
}

template <class P>
class FanOut {
 public:
  // `up_result`: what the up phase produced on the top local root (null if none).
  Wait progress(StepState<P>& x, const std::byte* up_result) {
    switch (phase_) {
      case 0:
        if (Wait w = receive(x, up_result)) return w;
        j_ = x.lroots - 1;
        phase_ = 1;
        [[fallthrough]];
      case 1:
        for (; j_ >= 0; --j_, u_ = 0) {
          if (Wait w = release(x, x.lane(j_))) return w;
        }
        // A down-only chunk step: tell my local root I am done (with unit
        // acks the walk acks every step, after raising what it found).
        if (!x.unit_acks && !x.plan.up && x.m < x.k && !x.top_member) {
          Lane& l = x.lane(x.m);
          publish(mline(l, l.g->me, x.step).ack, x.step, x.sleepy);
        }
        phase_ = 2;
        [[fallthrough]];
      default: return {};
    }
  }

 private:
  Wait receive(StepState<P>& x, const std::byte* up_result) {
    if (x.top_member) {  // received at the top lane, as a member receives a release
      from_ = x.result;
      from_lane_ = &x.top();
      if (x.verdict == 0) x.p.deliver(x.k - 1, from_lane_, from_);
    } else if (x.m < x.k) {
      Lane& l = x.lane(x.m);
      if (Wait w = take_release(x, l, x.m, from_)) return w;
      from_lane_ = &l;
    } else {
      from_ = start_down(x, up_result);
    }
    return {};
  }

  Wait release(StepState<P>& x, Lane& l) {
    const std::size_t len = x.p.down_len(l);
    if (len > kInlineBytes && !x.plan.up && x.first_chunk && x.step >= x.first_chunk + 2) {
      // Down-only chunk step: the members must be done with two steps ago.
      for (; u_ < l.n(); ++u_) {
        if (u_ == l.g->me) continue;
        if (Wait w = x.need(mline(l, u_, x.step).ack, x.step - 2, x.actor(l, u_))) return w;
      }
    }
    from_ = release_lane(x, l, j_, from_lane_, from_);
    from_lane_ = &l;
    return {};
  }

  int phase_ = 0;
  int j_ = 0;
  int u_ = 0;
  const std::byte* from_ = nullptr;
  const Lane* from_lane_ = nullptr;
};

}  // namespace osmp
