// The k-nomial base case: the group's units form a k-nomial tree rooted at the
// local root; each unit collects its children's combined data, combines it
// with its own, and publishes to its parent (base/fan_in.hpp). The root reads
// ceil(log_k n) rounds of at most k-1 children instead of n-1 members.
#pragma once

#include <algorithm>

#include "collectives/engine.hpp"

namespace osmp {

// The k-nomial tree over a group's n units, relabelled so the local root is 0.
struct Knomial {
  int n, k, root;
  int rel(int u) const { return (u - root + n) % n; }
  int unit(int v) const { return (v + root) % n; }
  // Calls f for each child of relabelled v, ascending: v+1..v+k-1, then
  // v+k, v+2k, ..., then v+k^2, ... (each run starts past the last).
  template <class F>
  void children(int v, F&& f) const {
    for (long p = 1; p < n; p *= k) {
      if (v % (p * k) != 0) break;
      for (int d = 1; d < k; ++d) {
        long c = v + d * p;
        if (c < n) f(static_cast<int>(c));
      }
    }
  }
  // The parent of relabelled v > 0: v with its lowest non-zero base-k digit cleared.
  int parent(int v) const {
    long p = 1;
    while ((v / p) % k == 0) p *= k;
    return static_cast<int>(v - (v / p) % k * p);
  }
  // How many children v has (the local root's: what it reads, round by round).
  int child_count(int v) const {
    int c = 0;
    children(v, [&](int) { ++c; });
    return c;
  }
};

// The radix a k-nomial group of the given base case uses.
inline int knomial_radix(const BaseCase& b) { return std::max(2, b.radix); }

// What unit `me` collects in a k-nomial step rooted at unit `lroot`: itself
// first, then its children in ascending order (waits for the children).
inline void knomial_sources(const Knomial& t, int me, LaneWork& w) {
  w.order.clear();
  w.from.clear();
  w.order.push_back(me);
  t.children(t.rel(me), [&](int v) {
    w.order.push_back(t.unit(v));
    w.from.push_back(t.unit(v));
  });
}

}  // namespace osmp
