// The symmetric base case, for small top groups in steps the plan marks
// (small one-step calls): no local root. Every top member publishes its line
// (or, for larger data, its slot: the slot_symmetric() operations, plan.hpp,
// and the v-variants' rows), reads every other member's, and
// works out the same verdict and result as every other member: one hop
// instead of up and down.
//
// Lines are double-buffered by parity; a one-step operation is always
// followed by a step with a down phase, so nobody still reads a line when it
// comes round. Data in my slot of this parity: every member reads all slots
// before it publishes anything of the next step, and I write this slot again
// only two steps on, after seeing what every member (or the local root for
// all of them) published in the step between.
#pragma once

#include <cstring>

#include "collectives/base/stage.hpp"

namespace osmp {

template <class P>
class SymmetricTop {
 public:
  // `mine`: what this rank brings from below.
  Wait progress(StepState<P>& x, const std::byte* mine) {
    Lane& top = x.top();
    LaneWork& w = x.work_of(x.k - 1);
    const int n = top.n(), me = top.g->me;
    CtrlLine& line = mline(top, me, x.step);
    switch (phase_) {
      case 0: {
        const std::size_t len = sym_len(x.p, top, me);
        const std::byte* own = x.p.sym_mine(mine);
        std::byte* dst = up_ptr(top, len, me, x.step);  // my line, or my slot for larger data
        if (len && own != dst) {
          if (len > kInlineBytes) {
            if (Wait wt = x.slot_free(top, len)) return wt;
            copy_to_shared(dst, own, len);
          } else {
            std::memcpy(dst, own, len);
          }
        }
        // Release, after the data (line or slot: copy_to_shared fences its
        // streamed stores), the header and the status; pairs with the
        // acquire in the others' x.need() on my `ready` below.
        publish_line(line, x.header, x.status, x.step, x.sleepy);
        // The verdict must come out the same everywhere: every unit in unit
        // order, each header against unit 0's.
        x.status = 0;  // mine is in my line now; everyone reads all of them back
        phase_ = 1;
        [[fallthrough]];
      }
      case 1:
        for (; next_ < n; ++next_) {
          CtrlLine& other = mline(top, next_, x.step);
          if (next_ != me) {
            if (Wait wt = x.need(other.ready, x.step, x.actor(top, next_))) return wt;
          }
          w.src[static_cast<std::size_t>(next_)] = up_ptr(top, sym_len(x.p, top, next_), next_, x.step);
          // Checked while the line is fresh in cache, each against unit 0's.
          x.check(other, *header_of(mline(top, 0, x.step)), x.actor(top, next_));
        }
        finish(x, top, w);
        phase_ = 2;
        [[fallthrough]];
      default: return {};
    }
  }

 private:
  void finish(StepState<P>& x, Lane& top, LaneWork& w) {
    x.verdict = x.status;
    if (x.verdict == 0) x.result = sym_down(x.p, top, w, x.e.scratch(2));
    top.up_ok = x.step;  // every line of this step was read by everyone
    x.all_finished_before(top);
    if (top.g->me == top.lroot(x.root)) {
      // The ack moves on every step (slot_free() must not wait on a gap;
      // with unit acks nobody reads it); and for peers that (disagreeing on
      // the count) took the local-root path, the release they wait for,
      // with the verdict.
      if (!x.unit_acks) publish(top.release->ack, x.step, x.sleepy);
      CtrlLine& rel = rel_line(top, x.step);
      if (x.unit_acks) {
        publish_release(rel, x.verdict, x.header, x.step, x.sleepy);  // every release carries it there (check_release)
      } else {
        rel.ready.word = x.verdict;
        publish(rel.ready, x.step, x.sleepy);
      }
    }
  }

  int phase_ = 0;
  int next_ = 0;
};

}  // namespace osmp
