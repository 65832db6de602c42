// The up half of the tree base cases (flat, k-nomial) in one lane: what the
// local root does (collect its sources, combine them, ack) and what an
// ordinary member does (put its data in, k-nomial: collect and combine its
// children first, publish). Which units a member collects from is the base
// case's (base/flat.hpp, base/knomial.hpp). Both stages are resumable
// (base/stage.hpp).
#pragma once

#include "collectives/base/flat.hpp"
#include "collectives/base/knomial.hpp"
#include "collectives/base/stage.hpp"

namespace osmp {

// Fills w with what this rank collects in lane l as local root or member
// (kept from the step before when that collected alike: LaneWork::Holds).
template <class P>
void sources(const StepState<P>& x, const Lane& l, bool lroot, LaneWork& w) {
  const BaseCase b = x.base(l);
  if (b.kind != BaseCase::Kind::knomial) {
    flat_sources(l.n(), l.g->me, lroot, w);
    return;
  }
  const Knomial t{l.n(), knomial_radix(b), l.lroot(x.root)};
  const LaneWork::Holds tree{LaneWork::Holds::knomial, t.n, l.g->me, t.k, t.root};
  if (w.order_holds == tree && w.from_holds == tree) return;
  knomial_sources(t, l.g->me, w);
  w.order_holds = w.from_holds = tree;
}

// Where the combine of local-root lane j writes: private scratch below the
// last lane I lead; my area in the next lane (where I am a member or a top
// member); at the top, the payload's choice. Waits for that slot to be free.
struct UpOut {
  std::byte* out = nullptr;
  std::size_t shared_len = 0;  // > 0: `out` is shared memory of this many bytes
};

template <class P>
Wait up_out(StepState<P>& x, int j, UpOut& o) {
  o.shared_len = 0;
  if (j + 1 < x.lroots) {
    o.out = x.e.scratch(j % 2);
    return {};
  }
  if (j + 1 < x.k) {  // straight into my area in the next lane
    Lane& next = x.lane(j + 1);
    const std::size_t len =
        x.plan.top == TopCase::symmetric ? sym_len(x.p, next, next.g->me) : x.p.up_len(next, next.g->me);
    if (Wait w = x.slot_free(next, len)) return w;
    if (len > kInlineBytes) o.shared_len = len;
    o.out = up_ptr(next, len, next.g->me, x.step);
    return {};
  }
  const Lane& top = x.top();
  const std::size_t down = x.p.down_len(top);
  std::byte* area = down_ptr(top, down, x.step);
  std::byte* out = x.p.top_up_out(area);
  if (out == area && down > kInlineBytes) o.shared_len = down;
  o.out = out ? out : x.e.scratch(j % 2);
  return {};
}

// Combines w.order's sources into `out`; a large result bound for shared
// memory is built in private memory and streamed there (shm/copy.hpp).
template <class P>
void combine_into(StepState<P>& x, const Lane& l, LaneWork& w, const UpOut& o) {
  std::byte* into = o.shared_len >= nt_threshold() ? x.e.staging() : o.out;
  x.p.combine(l, w, w.order.data(), static_cast<int>(w.order.size()), into);
  if (into != o.out) copy_to_shared(o.out, into, o.shared_len);
}

// At the top local root, once the up result (`mine`) is complete: its
// verdict is my running status; an up-only one-pass step's senders have
// returned, so only I know it (to be raised: step_to_raise).
template <class P>
void reached_top(StepState<P>& x, const std::byte* mine) {
  x.result = mine;
  x.verdict = x.status;
  if (x.plan.one_pass && !x.plan.down) x.found = x.verdict;
  if (x.data_ok()) x.p.at_top(mine);
}

// As local root of lane j: collect, combine, ack. `mine` is what I bring
// from below; on completion, what I bring to the next lane.
template <class P>
class RootUp {
 public:
  explicit RootUp(int j) : j_(j) {}

  Wait progress(StepState<P>& x, const std::byte*& mine) {
    Lane& l = x.lane(j_);
    LaneWork& w = x.work_of(j_);
    switch (phase_) {
      case 0:
        if (j_ == x.k - 1 && x.plan.header) {
          // Ranks that disagree on the count may disagree on using the
          // symmetric top too; publishing my header lets such peers see the
          // mismatch instead of waiting for a line I would not write.
          x.publish_mine(l);
        }
        sources(x, l, true, w);
        phase_ = 1;
        [[fallthrough]];
      case 1:
        if (Wait wt = collect_.progress(x, l, w)) return wt;
        w.src[static_cast<std::size_t>(l.g->me)] = mine;
        x.all_finished_before(l);  // every unit published this step (k-nomial: through its parent)
        if (x.plan.one_pass && !x.plan.down && j_ + 1 < x.k) {
          // A one-pass step's senders have returned: what I found in my
          // lanes below the top only I know (the top gets the status word,
          // not the header that differed). This call's error on me, and
          // raised (step_to_raise).
          x.verdict = x.found = x.status;
        }
        phase_ = 2;
        [[fallthrough]];
      case 2:
        if (Wait wt = up_out(x, j_, out_)) return wt;
        if (x.data_ok()) combine_into(x, l, w, out_);
        // Consumed: the slots of this step may be written again (slot_free();
        // with unit acks nobody reads it: reuse() covers the slots).
        if (!x.unit_acks) publish(l.release->ack, x.step, x.sleepy);
        l.up_ok = x.step;
        mine = out_.out;
        phase_ = 3;
        [[fallthrough]];
      default: return {};
    }
  }

 private:
  int j_;
  int phase_ = 0;
  Collect collect_;
  UpOut out_;
};

// As an ordinary member of lane m: my data in (at the bottom), my k-nomial
// children's combined with it, then publish.
template <class P>
class MemberUp {
 public:
  Wait progress(StepState<P>& x, const std::byte* mine) {
    Lane& l = x.lane(x.m);
    LaneWork& w = x.work_of(x.m);
    const int me = l.g->me;
    const std::size_t len = x.p.up_len(l, me);
    std::byte* area = up_ptr(l, len, me, x.step);
    switch (phase_) {
      case 0:
        if (x.m == 0 && len) {  // the bottom: my own contribution goes in
          if (Wait wt = x.slot_free(l, len)) return wt;
          put_up(x.p, area, mine, len);
        }
        knomial_ = x.base(l).kind == BaseCase::Kind::knomial;
        if (knomial_) sources(x, l, false, w);
        phase_ = 1;
        [[fallthrough]];
      case 1:
        if (knomial_) {
          if (Wait wt = collect_.progress(x, l, w)) return wt;
          if (w.order.size() > 1 && x.data_ok()) {
            w.src[static_cast<std::size_t>(me)] = area;
            x.p.combine(l, w, w.order.data(), static_cast<int>(w.order.size()), area);
          }
        }
        {
          CtrlLine& line = mline(l, me, x.step);
          if (x.plan.header) {
            publish_line(line, x.header, x.status, x.step, x.sleepy);  // after the data
          } else {
            publish(line.ready, x.step, x.sleepy);  // after the data
          }
        }
        phase_ = 2;
        [[fallthrough]];
      default: return {};
    }
  }

 private:
  int phase_ = 0;
  bool knomial_ = false;
  Collect collect_;
};

}  // namespace osmp
