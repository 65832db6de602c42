// The flat base case: the local root reads every member's line (or slot)
// directly, in unit order, and every member publishes to it. One hop up, a
// release line read by all members down (base/fan_out.hpp).
#pragma once

#include "collectives/engine.hpp"

namespace osmp {

// What unit `me` of a group of `n` collects in a flat step: the local root
// every unit (order 0..n-1; waits for all but itself), a member only itself.
// Kept in w from the step before when that filled the same.
inline void flat_sources(int n, int me, bool lroot, LaneWork& w) {
  using H = LaneWork::Holds;
  if (!lroot) {
    const H own{H::own_unit, n, me};
    if (w.order_holds == own && w.from_holds == own) return;
    w.order.assign(1, me);
    w.from.clear();
    w.order_holds = w.from_holds = own;
    return;
  }
  w.all_units(n);
  const H others{H::all_but_me, n, me};
  if (w.from_holds == others) return;
  w.from.clear();
  for (int u = 0; u < n; ++u)
    if (u != me) w.from.push_back(u);
  w.from_holds = others;
}

}  // namespace osmp
