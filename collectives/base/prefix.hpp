// The prefix base case (the plan's TopCase::prefix): scan's and exscan's
// one pass in a team that makes one-pass calls (one group, every unit a
// single rank). Every member publishes its input in its line (or slot) with
// its header, then reads the lines of the ranks before it in rank order,
// comparing each header with its own, and folds their inputs and its own
// into its result (P::prefix); rank 0 reads nobody. So the last rank's wait
// is the longest and nobody waits for a rank after it; what a rank finds
// wrong (a header that differs, a rank's bad arguments) only it knows: its
// verdict, raised like any one-pass finding (walk.hpp's step_to_raise).
// Every header meets the next rank's, so every difference is found by
// someone. Nobody writes a line of this parity again before every rank has
// acked this step (StepState::reuse).
#pragma once

#include <concepts>
#include <cstring>

#include "collectives/base/stage.hpp"

namespace osmp {

// The payload's fold: every rank's data at w.src by unit, those of the ranks
// up to mine read (the others' may be stale); writes this rank's result.
template <class P>
concept HasPrefix = requires(P& p, const Lane& l, LaneWork& w) { p.prefix(l, w); };

template <class P>
class PrefixTop {
 public:
  // `mine`: what this rank brings from below (its input: one group).
  Wait progress(StepState<P>& x, const std::byte* mine) {
    static_assert(HasPrefix<P>, "the prefix top runs payloads with a fold (P::prefix)");
    Lane& top = x.top();
    LaneWork& w = x.work_of(x.k - 1);
    const int n = top.n(), me = top.g->me;
    const int my_rank = top.packed[top.unit_off[static_cast<std::size_t>(me)]];
    switch (phase_) {
      case 0: {
        const std::size_t len = sym_len(x.p, top, me);
        std::byte* dst = up_ptr(top, len, me, x.step);  // my line, or my slot for larger data
        if (len && mine != dst) {
          if (len > kInlineBytes) {
            copy_to_shared(dst, mine, len);
          } else {
            std::memcpy(dst, mine, len);
          }
        }
        CtrlLine& line = mline(top, me, x.step);
        // Release, after the data (line or slot: copy_to_shared fences its
        // streamed stores), the header and my status; pairs with the
        // acquire in the later ranks' x.need() on my `ready` below.
        publish_line(line, x.header, x.status, x.step, x.sleepy);
        phase_ = 1;
        [[fallthrough]];
      }
      case 1:
        for (; next_ < n; ++next_) {
          w.src[static_cast<std::size_t>(next_)] = up_ptr(top, sym_len(x.p, top, next_), next_, x.step);
          if (next_ == me || top.packed[top.unit_off[static_cast<std::size_t>(next_)]] > my_rank) continue;
          CtrlLine& other = mline(top, next_, x.step);
          if (Wait wt = x.need(other.ready, x.step, x.actor(top, next_))) return wt;
          // Against my own header, while the line is fresh in cache (my
          // own bad arguments, in x.status already, stay the verdict).
          x.check(other, x.header, x.actor(top, next_));
        }
        x.verdict = x.status;
        x.found = x.verdict;
        if (x.verdict == 0) x.p.prefix(top, w);
        phase_ = 2;
        [[fallthrough]];
      default: return {};
    }
  }

 private:
  int phase_ = 0;
  int next_ = 0;
};

}  // namespace osmp
