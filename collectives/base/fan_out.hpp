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
template <class P>
void check_release(StepState<P>& x, const CtrlLine& rel, int from) {
  if (x.plan.one_pass && x.verdict != 0) return;
  const OpHeader& theirs = *header_of(const_cast<CtrlLine&>(rel));
  if (Field f = compare(theirs, x.header); f != Field::none) {
    x.verdict = make_status(Errc::mismatch, f, x.e.team().rank());
    // One-pass teams are one group: the release's writer is whoever thinks
    // it is the root, and says so (two may, when ranks disagree on it).
    x.saw(rel, theirs.root >= 0 && theirs.root < x.e.team().size() ? theirs.root : from);
    x.found = x.verdict;
  } else if (x.plan.one_pass) {
    x.verdict = x.status;
    x.found = x.verdict;
  }
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
      CtrlLine& rel = rel_line(l, x.step);
      const int from = x.actor(l, l.lroot(x.root));
      if (Wait w = x.need(rel.ready, x.step, from)) return w;
      l.up_ok = x.step;  // released: everything up to this step was consumed
      if (x.plan.up) x.all_finished_before(l);
      if (x.plan.header) x.verdict = rel.ready.word;  // acquired with `ready`
      if (x.plan.one_pass || (x.unit_acks && x.plan.header)) check_release(x, rel, from);
      const std::size_t len = x.p.down_len(l);
      from_ = len ? down_ptr(l, len, x.step) : nullptr;
      from_lane_ = &l;
      if (x.verdict_ok()) x.p.deliver(x.m, &l, from_);
    } else {
      // A down-only header step starts here: my own status is the verdict.
      if (x.plan.header && !x.plan.up) x.verdict = x.status;
      from_ = x.verdict_ok() ? x.p.top_down(up_result ? up_result : x.result) : nullptr;
      if (x.verdict_ok()) x.p.deliver(x.k, nullptr, from_);
    }
    return {};
  }

  Wait release(StepState<P>& x, Lane& l) {
    const std::size_t len = x.p.down_len(l);
    std::byte* area = len ? down_ptr(l, len, x.step) : nullptr;
    if (len > kInlineBytes && !x.plan.up && x.first_chunk && x.step >= x.first_chunk + 2) {
      // Down-only chunk step: the members must be done with two steps ago.
      for (; u_ < l.n(); ++u_) {
        if (u_ == l.g->me) continue;
        if (Wait w = x.need(mline(l, u_, x.step).ack, x.step - 2, x.actor(l, u_))) return w;
      }
    }
    if (area && x.verdict_ok()) forward(x.p, from_lane_, l, from_, area);
    if (!x.plan.up) {  // the ack moves on every step, so that slot_free() never waits on a gap
      if (!x.unit_acks) publish(l.release->ack, x.step, x.sleepy);  // (unit acks: never read)
      l.up_ok = x.step;
    }
    CtrlLine& rel = rel_line(l, x.step);
    if (x.plan.header) rel.ready.word = x.verdict;
    // Checked by every member in a team with unit acks (check_release).
    if (x.plan.one_pass || (x.unit_acks && x.plan.header)) *header_of(rel) = x.header;
    publish(rel.ready, x.step, x.sleepy);  // after the data and the verdict
    if (x.verdict_ok()) x.p.deliver(j_, &l, area);
    from_ = area;
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
