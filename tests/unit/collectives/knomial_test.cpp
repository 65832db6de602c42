// Who collects from whom in the base cases (collectives/base/flat.hpp,
// knomial.hpp) and how slices split a vector (base/slices.hpp): every unit
// reaches the local root exactly once, whatever the size, radix and root.
#include <gtest/gtest.h>

#include <vector>

#include "collectives/base/flat.hpp"
#include "collectives/base/knomial.hpp"
#include "collectives/base/slices.hpp"

namespace osmp {
namespace {

TEST(Knomial, EveryUnitHasOneParentAndReachesTheRootOnce) {
  for (int n = 1; n <= 40; ++n)
    for (int k = 2; k <= n + 1; ++k)
      for (int root : {0, n / 2, n - 1}) {
        const Knomial t{n, k, root};
        std::vector<int> parent_of(static_cast<std::size_t>(n), -1);
        for (int v = 0; v < n; ++v) {
          int last = v;
          t.children(v, [&](int c) {
            EXPECT_GT(c, last) << "children ascend";
            last = c;
            EXPECT_EQ(parent_of[static_cast<std::size_t>(c)], -1)
                << "n " << n << " k " << k << ": two parents of " << c;
            parent_of[static_cast<std::size_t>(c)] = v;
          });
        }
        EXPECT_EQ(parent_of[0], -1);
        for (int v = 1; v < n; ++v) {
          ASSERT_NE(parent_of[static_cast<std::size_t>(v)], -1) << "n " << n << " k " << k << ": " << v << " orphaned";
          EXPECT_EQ(t.parent(v), parent_of[static_cast<std::size_t>(v)]);
        }
        // Parents come before children (no cycle): with one parent each, every
        // unit's data reaches the root exactly once.
        for (int v = 1; v < n; ++v) EXPECT_LT(t.parent(v), v);
        // Relabelling: unit `root` is vertex 0, and back.
        EXPECT_EQ(t.rel(root), 0);
        for (int u = 0; u < n; ++u) EXPECT_EQ(t.unit(t.rel(u)), u);
        // The root's reads: at most k-1 per round, ceil(log_k n) rounds.
        int rounds = 0;
        for (long p = 1; p < n; p *= k) ++rounds;
        EXPECT_LE(t.child_count(0), rounds * (k - 1));
        if (k >= n) {
          EXPECT_EQ(t.child_count(0), n - 1) << "a radix of the group's size is flat";
        }
      }
}

TEST(Knomial, SourcesAreMeThenMyChildren) {
  LaneWork w;
  w.size_to(9);
  knomial_sources(Knomial{9, 3, 4}, 4, w);  // the local root
  EXPECT_EQ(w.order, (std::vector<int>{4, 5, 6, 7, 1}));
  EXPECT_EQ(w.from, (std::vector<int>{5, 6, 7, 1}));
  knomial_sources(Knomial{9, 3, 4}, 8, w);  // relabelled 4: a leaf
  EXPECT_EQ(w.order, (std::vector<int>{8}));
  EXPECT_TRUE(w.from.empty());
}

TEST(Flat, TheLocalRootWaitsForEveryOtherUnitOnce) {
  LaneWork w;
  w.size_to(5);
  flat_sources(5, 2, true, w);
  EXPECT_EQ(w.order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(w.from, (std::vector<int>{0, 1, 3, 4}));
  flat_sources(5, 3, false, w);
  EXPECT_EQ(w.order, (std::vector<int>{3}));
  EXPECT_TRUE(w.from.empty());
}

// The lists are kept from one step to the next (LaneWork::Holds) and
// refilled whenever what a step collects differs: role, rank, size, a
// symmetric top's all_units in between.
TEST(Flat, KeptOnlyWhileTheSameIsCollected) {
  LaneWork w;
  w.size_to(6);
  flat_sources(5, 2, true, w);
  flat_sources(5, 2, true, w);
  EXPECT_EQ(w.order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(w.from, (std::vector<int>{0, 1, 3, 4}));
  flat_sources(5, 4, true, w);  // another rank's view
  EXPECT_EQ(w.from, (std::vector<int>{0, 1, 2, 3}));
  flat_sources(5, 4, false, w);
  EXPECT_EQ(w.order, (std::vector<int>{4}));
  EXPECT_TRUE(w.from.empty());
  w.all_units(5);  // a symmetric top's combine: every unit in order
  EXPECT_EQ(w.order, (std::vector<int>{0, 1, 2, 3, 4}));
  flat_sources(5, 4, false, w);
  EXPECT_EQ(w.order, (std::vector<int>{4}));
  w.all_units(6);
  flat_sources(6, 0, true, w);  // order kept from all_units, from refilled
  EXPECT_EQ(w.order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(w.from, (std::vector<int>{1, 2, 3, 4, 5}));
  LaneWork k;
  k.size_to(9);
  flat_sources(9, 4, true, k);
  knomial_sources(Knomial{9, 3, 4}, 4, k);  // a k-nomial step of the same lane: its own lists
  k.order_holds = k.from_holds = LaneWork::Holds{LaneWork::Holds::knomial, 9, 4, 3, 4};
  flat_sources(9, 4, true, k);
  EXPECT_EQ(k.order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(k.from, (std::vector<int>{0, 1, 2, 3, 5, 6, 7, 8}));
}

TEST(Slices, CoverEveryElementOnce) {
  for (std::size_t elems : {0, 1, 2, 7, 37, 1000})
    for (int n = 1; n <= 9; ++n) {
      std::vector<int> hit(elems, 0);
      for (int me = 0; me < n; ++me) {
        const Slice s = slice_of(elems, n, me);
        ASSERT_LE(s.first + s.count, elems);
        for (std::size_t i = s.first; i < s.first + s.count; ++i) ++hit[i];
      }
      for (std::size_t i = 0; i < elems; ++i) EXPECT_EQ(hit[i], 1) << elems << " over " << n << ", element " << i;
    }
}

}  // namespace
}  // namespace osmp
