// The slice-parallel reduction, for reduction chunks at a small top group
// (the plan's TopCase::slices): each member puts its chunk in its slot;
// member i combines slice i of all of them (unit order, so the bits match a
// single combine) into the top's broadcast area; when every slice is there,
// all read the whole result. Slots and areas come round two steps later,
// after every member has waited for every other's arrival and part of this
// step.
//
// "My slice is in place" is the line's `part` flag, not its `ack`: in a team
// with unit acks, `ack` = s says "done with step s" (StepState::reuse), and a
// member that has combined its slice still reads the whole result after it.
#pragma once

#include <algorithm>

#include "collectives/base/stage.hpp"

namespace osmp {

// The elements [first, first + count) member `me` of `n` combines out of `elems`.
struct Slice {
  std::size_t first = 0, count = 0;
};
inline Slice slice_of(std::size_t elems, int n, int me) {
  const std::size_t per = (elems + static_cast<std::size_t>(n) - 1) / static_cast<std::size_t>(n);
  const std::size_t first = std::min(elems, per * static_cast<std::size_t>(me));
  return {first, std::min(elems - first, per)};
}

template <class P>
class SlicesTop {
 public:
  Wait progress(StepState<P>& x, const std::byte* mine) {
    Lane& top = x.top();
    LaneWork& w = x.work_of(x.k - 1);
    const int n = top.n(), me = top.g->me;
    const std::size_t len = x.p.up_len(top, me);
    CtrlLine& line = mline(top, me, x.step);
    switch (phase_) {
      case 0:
        if (x.lroots == 0 && len) {  // nothing below me: my own data goes in
          if (Wait wt = x.slot_free(top, len)) return wt;
          copy_to_shared(up_ptr(top, len, me, x.step), mine, len);
        }
        publish(line.ready, x.step, x.sleepy);  // after my chunk
        phase_ = 1;
        [[fallthrough]];
      case 1:
        for (; next_ < n; ++next_) {
          if (next_ != me) {
            if (Wait wt = x.need(mline(top, next_, x.step).ready, x.step, x.actor(top, next_))) return wt;
          }
          w.src[static_cast<std::size_t>(next_)] = up_ptr(top, len, next_, x.step);
        }
        combine_mine(x, top, w);
        publish(line.part, x.step, x.sleepy);  // after my slice
        // Without unit acks the top's later fan-outs wait for acks >= s (safe:
        // every later call starts with a round trip that I join only after
        // reading the result); with unit acks the Walk acks at the end.
        if (!x.unit_acks) publish(line.ack, x.step, x.sleepy);
        next_ = 0;
        phase_ = 2;
        [[fallthrough]];
      case 2:
        for (; next_ < n; ++next_) {
          if (next_ == me) continue;
          if (Wait wt = x.need(mline(top, next_, x.step).part, x.step, x.actor(top, next_))) return wt;
        }
        top.up_ok = x.step;
        // The ack moves on every step (slot_free(); unit acks: never read).
        if (me == top.lroot(x.root) && !x.unit_acks) publish(top.release->ack, x.step, x.sleepy);
        x.result = top.bcast[parity(x.step)];
        phase_ = 3;
        [[fallthrough]];
      default: return {};
    }
  }

 private:
  void combine_mine(StepState<P>& x, Lane& top, LaneWork& w) {
    const std::size_t es = x.p.element_size();
    const Slice s = slice_of(x.p.elements(), top.n(), top.g->me);
    if (!s.count) return;
    std::byte* area = top.bcast[parity(x.step)] + s.first * es;
    std::byte* into = s.count * es >= nt_threshold() ? x.e.staging() : area;
    x.p.combine_slice(top, w, s.first, s.count, into);
    if (into != area) copy_to_shared(area, into, s.count * es);
  }

  int phase_ = 0;
  int next_ = 0;
};

}  // namespace osmp
