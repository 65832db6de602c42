// The flat base case: the local root reads every member's line (or slot)
// directly, in unit order, and every member publishes to it. One hop up, a
// release line read by all members down (base/fan_out.hpp).
#pragma once

#include "collectives/engine.hpp"

namespace osmp {

// What unit `me` of a group of `n` collects in a flat step: the local root
// every unit (order 0..n-1; waits for all but itself), a member only itself.
inline void flat_sources(int n, int me, bool lroot, LaneWork& w) {
  w.order.clear();
  w.from.clear();
  if (!lroot) {
    w.order.push_back(me);
    return;
  }
  for (int u = 0; u < n; ++u) w.order.push_back(u);
  for (int u = 0; u < n; ++u)
    if (u != me) w.from.push_back(u);
}

}  // namespace osmp
