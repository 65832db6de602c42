// The operations' descriptions (collectives/ops/<name>.hpp, gathered by describe.hpp): one row per
// operation of osmp_ops.h, consistent with each other and with the rules
// the docs state (docs/engine.md, docs/protocol.md). A row edited against
// MPI's rules or its own other fields fails here, before any collective runs.
#include "collectives/ops/describe.hpp"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "collectives/plan.hpp"

namespace osmp {
namespace {

std::set<OpKind> where(bool (*pred)(OpKind)) {
  std::set<OpKind> s;
  for (OpKind k : kOpKinds)
    if (pred(k)) s.insert(k);
  return s;
}

TEST(Describe, OneRowPerOperationInItsOrder) {
  for (OpKind k : kOpKinds) EXPECT_EQ(describe(k).kind, k) << to_string(k);
}

TEST(Describe, TheWalksTheDocsName) {
  using K = OpKind;
  EXPECT_EQ(where(one_pass_down), (std::set<K>{K::bcast, K::scatter}));
  EXPECT_EQ(where(one_pass_up), (std::set<K>{K::reduce, K::gather}));
  EXPECT_EQ(where(one_pass_prefix), (std::set<K>{K::scan, K::exscan}));
  EXPECT_EQ(where(counts_step), (std::set<K>{K::gatherv, K::scatterv, K::alltoallv}));
  EXPECT_EQ(where(lengths_step), (std::set<K>{K::gatherv, K::scatterv}));
  EXPECT_EQ(where(plans_on_total), (std::set<K>{K::allgatherv, K::reduce_scatter}));
  EXPECT_EQ(where(slot_symmetric), (std::set<K>{K::allreduce, K::alltoall, K::alltoallv, K::allgather, K::allgatherv,
                                                K::reduce_scatter_block, K::reduce_scatter}));
}

// Which operations have CMA's single copy and what it weighs; a v-variant's
// range is its uniform operation's (their flat paths and CMA copies are
// the uniform operation's, weighed on the longest block).
TEST(Describe, TheSingleCopiesTheDocsName) {
  using K = OpKind;
  EXPECT_EQ(where([](K k) { return describe(k).copies.cma == CmaPath::none; }),
            (std::set<K>{K::barrier, K::reduce, K::scan}));
  EXPECT_EQ(where([](K k) { return describe(k).copies.cma == CmaPath::longest; }),
            (std::set<K>{K::allgatherv, K::reduce_scatter}));
  EXPECT_EQ(where([](K k) { return describe(k).copies.cma == CmaPath::after_counts; }),
            (std::set<K>{K::gatherv, K::scatterv, K::alltoallv}));
  EXPECT_EQ(where([](K k) { return describe(k).copies.cma == CmaPath::two_ranks; }), (std::set<K>{K::exscan}));
  EXPECT_EQ(where(plans_on_longest), (std::set<K>{K::allgatherv, K::reduce_scatter}));
  for (K k : kOpKinds) {
    const OpDesc& d = describe(k);
    if (d.varied.layout == BlockLayout::uniform) continue;
    const CopyRange& mine = d.copies;
    const CopyRange& of = describe(d.varied.of).copies;
    EXPECT_EQ(mine.cma_from, of.cma_from) << to_string(k);
    EXPECT_EQ(mine.cma_until, of.cma_until) << to_string(k);
  }
}

TEST(Describe, RowsAgreeWithThemselves) {
  for (OpKind k : kOpKinds) {
    const OpDesc& d = describe(k);
    const PlanRules& p = d.plan;
    SCOPED_TRACE(to_string(k));
    // Counts compared in a step of their own never fit one step.
    EXPECT_EQ(p.counts != Counts::none, p.carry == Carry::never);
    // Only what goes over the tree in one direction or both chunks.
    if (p.chunks) {
      EXPECT_TRUE(p.walk == Route::down || p.walk == Route::up || p.walk == Route::round_trip);
    }
    // A carried step goes through some area; the caps come in order.
    if (p.carry != Carry::nothing && p.carry != Carry::never) {
      EXPECT_NE(p.areas, 0);
    }
    if (p.symmetric_cap) {
      EXPECT_GT(p.symmetric_cap, p.tree_cap);
    }
    // Only rooted operations differ by role.
    const Buffers& b = d.buffers;
    if (!is_rooted(k)) {
      EXPECT_EQ(b.send.root, b.send.other);
      EXPECT_EQ(b.recv.root, b.recv.other);
      EXPECT_EQ(b.send_in_place.root, b.send_in_place.other);
      EXPECT_EQ(d.heap.offer_send.root, d.heap.offer_send.other);
      EXPECT_EQ(d.heap.offer_recv.root, d.heap.offer_recv.other);
    }
    // In place names the buffer the operation has on that rank.
    if (b.send_in_place.root) {
      EXPECT_NE(b.recv.root, Amount::none);
    }
    if (b.send_in_place.other) {
      EXPECT_NE(b.recv.other, Amount::none);
    }
    if (b.recv_in_place.root) {
      EXPECT_NE(b.send.root, Amount::none);
    }
    // The heap stages only what it offers, and offers no more than the
    // buffer holds (bcast's one buffer offered as the root's input).
    if (d.heap.staged_send.root) {
      EXPECT_NE(d.heap.offer_send.root, Amount::none);
    }
    if (d.heap.staged_send.other) {
      EXPECT_NE(d.heap.offer_send.other, Amount::none);
    }
    if (d.heap.staged_recv) {
      EXPECT_NE(d.heap.offer_recv.other, Amount::none);
    }
    if (k != OpKind::bcast) {
      EXPECT_LE(d.heap.offer_send.root, b.send.root);
      EXPECT_LE(d.heap.offer_send.other, b.send.other);
    }
    EXPECT_LE(d.heap.offer_recv.root, b.recv.root);
    EXPECT_LE(d.heap.offer_recv.other, b.recv.other);
  }
}

// The v-variants: each varies the uniform operation of MPI's naming, takes
// per-rank counts, and its blocks lie where its uniform operation's buffers
// of every rank's data are (the ranks that hold every block hold the
// uniform operation's `all` buffer).
TEST(Describe, EachVariantVariesItsUniformOperation) {
  using K = OpKind;
  EXPECT_EQ(where(is_varied), (std::set<K>{K::gatherv, K::allgatherv, K::scatterv, K::alltoallv, K::reduce_scatter}));
  EXPECT_EQ(uniform_of(K::gatherv), K::gather);
  EXPECT_EQ(uniform_of(K::allgatherv), K::allgather);
  EXPECT_EQ(uniform_of(K::scatterv), K::scatter);
  EXPECT_EQ(uniform_of(K::alltoallv), K::alltoall);
  EXPECT_EQ(uniform_of(K::reduce_scatter), K::reduce_scatter_block);
  EXPECT_EQ(where([](K k) { return describe(k).buffers.first_writes_nothing; }), (std::set<K>{K::exscan}));
  // Who holds every block, derived from the uniform operation's buffers.
  const auto holds = [](K k) { return std::pair{describe(k).varied.holds.root, describe(k).varied.holds.other}; };
  EXPECT_EQ(holds(K::gatherv), std::pair(true, false));
  EXPECT_EQ(holds(K::allgatherv), std::pair(true, true));
  EXPECT_EQ(holds(K::scatterv), std::pair(true, false));
  for (OpKind k : kOpKinds) {
    const OpDesc& d = describe(k);
    SCOPED_TRACE(to_string(k));
    EXPECT_EQ(is_varied(k), d.takes.counts);
    if (!is_varied(k)) {
      EXPECT_EQ(uniform_of(k), k);
      continue;
    }
    const OpDesc& u = describe(uniform_of(k));
    EXPECT_EQ(is_rooted(k), is_rooted(u.kind));
    EXPECT_EQ(is_reduction(k), is_reduction(u.kind));
    EXPECT_EQ(d.plan.walk == Route::pairs, d.varied.layout == BlockLayout::pairs);
    if (d.varied.layout == BlockLayout::gathered) {
      for (bool root : {true, false}) EXPECT_EQ(d.varied.holds.at(root), u.buffers.recv.at(root) == Amount::all);
    }
    if (d.varied.layout == BlockLayout::scattered) {
      for (bool root : {true, false}) EXPECT_EQ(d.varied.holds.at(root), u.buffers.send.at(root) == Amount::all);
    }
  }
}

// The heap's modes name only buffers the operation offers, and an operation
// offers buffers only where some mode uses them.
TEST(Describe, HeapRulesNameOfferedBuffers) {
  const auto offers = [](ByRole<Amount> o, Whose w) {
    switch (w) {
      case Whose::nobody: return true;
      case Whose::root: return o.root != Amount::none;
      case Whose::others: return o.other != Amount::none;
      case Whose::everyone: return o.root != Amount::none && o.other != Amount::none;
    }
    return false;
  };
  for (OpKind k : kOpKinds) {
    const HeapUse& h = describe(k).heap;
    SCOPED_TRACE(to_string(k));
    const bool offers_any = h.offer_send.root != Amount::none || h.offer_send.other != Amount::none ||
                            h.offer_recv.root != Amount::none || h.offer_recv.other != Amount::none;
    EXPECT_EQ(h.rules[0].mode != DirectMode::none, offers_any);
    bool ended = false;
    for (const HeapRule& r : h.rules) {
      ended = ended || r.mode == DirectMode::none;
      if (ended) {
        EXPECT_EQ(r.mode, DirectMode::none) << "a rule after the list's end";
        continue;
      }
      EXPECT_TRUE(offers(h.offer_send, r.send));
      EXPECT_TRUE(offers(h.offer_recv, r.recv));
      EXPECT_TRUE(r.send != Whose::nobody || r.recv != Whose::nobody);
    }
  }
}

// The team of one copies the input to the output exactly where an input
// and an output both exist on the root and in place is the input's.
TEST(Describe, TheTeamOfOneCopiesWhereBothBuffersExist) {
  for (OpKind k : kOpKinds) {
    const OpDesc& d = describe(k);
    if (is_varied(k) || k == OpKind::exscan || k == OpKind::bcast) continue;
    const bool both = d.buffers.send.root != Amount::none && d.buffers.recv.root != Amount::none;
    EXPECT_EQ(d.alone != Alone::nothing, both) << to_string(k);
  }
}

}  // namespace
}  // namespace osmp
