// The v-variants (gatherv, allgatherv, scatterv, alltoallv) where their
// counts are wrong: a rank whose own count differs from the root's entry for
// it (alltoallv: a pair whose counts differ) is an error that names it on
// every rank (gatherv: with OSMP_CHECK=strict; the lazy gatherv's are in
// lazy_check_test.cpp), small and large (the flat path, CMA), at every root;
// allgatherv's ranks that pass other counts disagree; bad
// counts and displacements are an argument error; the team works after
// each. Right calls are in the collective matrix (support/collective_suite).
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <numeric>
#include <vector>

#include "collectives/ops/describe.hpp"
#include "collectives/plan.hpp"
#include "support/collective_suite.hpp"
#include "team_api_harness.hpp"

namespace osmp {
namespace {

using test::Config;

class Varied : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    tt_ = std::make_unique<test::ThreadTeams>(test::make_teams(GetParam()));
    ASSERT_TRUE(tt_->ok()) << tt_->first_error();
  }
  int n() const { return GetParam().n; }
  // fn on every rank; returns each rank's status, then checks that a right
  // allgatherv still works.
  std::vector<Status> on_all(const std::function<Status(Team&)>& fn) {
    std::mutex m;
    std::vector<Status> got(static_cast<std::size_t>(n()));
    test::on_all(*tt_, [&](Team& t) {
      Status st = fn(t);
      std::lock_guard lock(m);
      got[static_cast<std::size_t>(t.rank())] = st;
    });
    test::on_all(*tt_, [&](Team& t) {
      std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), 1), displs(counts.size());
      std::iota(displs.begin(), displs.end(), 0);
      std::int64_t mine = t.rank(), all[64] = {};
      Status st = t.allgatherv(&mine, 1, all, counts.data(), displs.data(), Datatype::int64);
      EXPECT_TRUE(st.ok()) << "team unusable after the error: " << st.to_string();
      for (int r = 0; r < n(); ++r) EXPECT_EQ(all[r], r);
    });
    return got;
  }
  // Every rank learns a gatherv's error in the call itself only where the
  // team agrees before it moves data: OSMP_CHECK=strict (the lazy
  // gatherv's root finds it, the others learn it in their next call:
  // lazy_check_test.cpp).
  void strict() {
    test::on_all(*tt_, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CHECK", "strict"}}).ok()); });
  }
  std::unique_ptr<test::ThreadTeams> tt_;
};

// Rank `odd` passes one element more than the root's counts say: gatherv
// and scatterv, `base` elements per rank.
TEST_P(Varied, AnOwnCountThatDiffersFromTheRootsIsAnErrorOnEveryRank) {
  strict();
  for (std::int64_t base : {std::int64_t{3}, std::int64_t{200000}}) {  // outboxes, then CMA or many chunks
    for (int root : {0, n() - 1}) {
      const int odd = (root + 1) % n();
      for (OpKind k : {OpKind::gatherv, OpKind::scatterv}) {
        auto got = on_all([&](Team& t) {
          const int me = t.rank();
          std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), base), displs(counts.size());
          for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<std::int64_t>(r) * (base + 1);
          const std::int64_t own = me == odd ? base + 1 : base;
          std::vector<std::int32_t> mine(static_cast<std::size_t>(base + 1), me);
          std::vector<std::int32_t> all(static_cast<std::size_t>((base + 1) * n()), -1);
          if (k == OpKind::gatherv)
            return t.gatherv(mine.data(), own, all.data(), counts.data(), displs.data(), Datatype::int32, root);
          return t.scatterv(all.data(), counts.data(), displs.data(), mine.data(), own, Datatype::int32, root);
        });
        const std::string want = cat(to_string(k), ": rank ", odd, " passed count ", base + 1,
                                     ", the root's counts say ", base, " (rank ", root, " is the root)");
        for (int r = 0; r < n(); ++r) {
          const Status& st = got[static_cast<std::size_t>(r)];
          EXPECT_EQ(st.code(), Errc::invalid_argument) << "rank " << r << ": " << st.to_string();
          EXPECT_EQ(st.message(), want) << "rank " << r << ", " << to_string(k) << " count " << base;
        }
      }
    }
  }
}

// alltoallv: rank `odd` expects one element more from the next rank than
// that rank sends it; small (outboxes) and large (CMA or chunks).
TEST_P(Varied, AlltoallvPairsThatDisagreeAreAnErrorOnEveryRank) {
  for (std::int64_t base : {std::int64_t{2}, std::int64_t{50000}}) {
    const int odd = n() / 2, from = (odd + 1) % n();
    auto got = on_all([&](Team& t) {
      const std::size_t un = static_cast<std::size_t>(n());
      std::vector<std::int64_t> counts(un, base), displs(un), rcounts(un, base), rdispls(un);
      for (std::size_t r = 0; r < un; ++r) displs[r] = rdispls[r] = static_cast<std::int64_t>(r) * (base + 1);
      if (t.rank() == odd) rcounts[static_cast<std::size_t>(from)] = base + 1;
      std::vector<std::int64_t> out(un * static_cast<std::size_t>(base + 1), 3), in(out.size(), -1);
      Status st = t.alltoallv(out.data(), counts.data(), displs.data(), in.data(), rcounts.data(), rdispls.data(),
                              Datatype::int64);
      // A call that fails leaves every receive buffer as it was.
      EXPECT_EQ(std::count(in.begin(), in.end(), -1), static_cast<std::ptrdiff_t>(in.size()))
          << "rank " << t.rank() << ", base " << base;
      return st;
    });
    const std::string want =
        cat("alltoallv: rank ", from, " sends ", base, " elements to rank ", odd, ", which expects ", base + 1);
    for (int r = 0; r < n(); ++r) {
      const Status& st = got[static_cast<std::size_t>(r)];
      EXPECT_EQ(st.code(), Errc::invalid_argument) << "rank " << r << ": " << st.to_string();
      EXPECT_EQ(st.message(), want) << "rank " << r << ", base " << base;
    }
  }
}

// alltoallv where one rank's own arguments are bad (a negative count): an
// argument error there, an error on every rank (small calls: the rows'
// step), receive buffers untouched, the team usable after.
TEST_P(Varied, AlltoallvWithBadArgumentsOnOneRankFailsEverywhere) {
  const int odd = n() - 1;
  auto got = on_all([&](Team& t) {
    const std::size_t un = static_cast<std::size_t>(n());
    std::vector<std::int64_t> counts(un, 2), displs(un), rcounts(un, 2), rdispls(un);
    for (std::size_t r = 0; r < un; ++r) displs[r] = rdispls[r] = static_cast<std::int64_t>(r) * 2;
    if (t.rank() == odd) counts[0] = -1;
    std::vector<std::int32_t> out(un * 2, 7), in(un * 2, -1);
    Status st = t.alltoallv(out.data(), counts.data(), displs.data(), in.data(), rcounts.data(), rdispls.data(),
                            Datatype::int32);
    EXPECT_EQ(std::count(in.begin(), in.end(), -1), static_cast<std::ptrdiff_t>(in.size())) << "rank " << t.rank();
    return st;
  });
  for (int r = 0; r < n(); ++r) {
    const Status& st = got[static_cast<std::size_t>(r)];
    EXPECT_FALSE(st.ok()) << "rank " << r;
    if (r == odd) {
      EXPECT_EQ(st.code(), Errc::invalid_argument) << st.to_string();
    }
  }
}

TEST_P(Varied, ReduceScatterRanksWithOtherCountsDisagree) {
  const int odd = n() - 1;
  auto got = on_all([&](Team& t) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), 4);
    if (t.rank() == odd) counts[1] = 5;
    std::vector<float> in(static_cast<std::size_t>(5 * n()), 1.0f), out(5);
    return t.reduce_scatter(in.data(), out.data(), counts.data(), Datatype::float32, Op::sum);
  });
  for (int r = 0; r < n(); ++r) {
    const Status& st = got[static_cast<std::size_t>(r)];
    EXPECT_EQ(st.code(), Errc::mismatch) << "rank " << r << ": " << st.to_string();
    EXPECT_NE(st.message().find("reduce_scatter: ranks disagree on the count: "), std::string::npos) << st.message();
  }
}

// Small calls run in one step, large ones after a header step: a rank whose
// counts make them large where the others' are small takes the other plan,
// and still every rank gets the mismatch.
TEST_P(Varied, AllgathervRanksWithOtherCountsDisagree) {
  const int odd = n() / 2;
  for (std::int64_t other : {std::int64_t{3}, std::int64_t{1} << 20}) {
    auto got = on_all([&](Team& t) {
      std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), 2), displs(counts.size());
      for (std::size_t r = 1; r < displs.size(); ++r) displs[r] = other + static_cast<std::int64_t>(r) * 3;
      if (t.rank() == odd) counts[0] = other;  // the others' counts[0] differ from this rank's
      std::vector<std::int16_t> mine(static_cast<std::size_t>(other), 1);
      std::vector<std::int16_t> all(static_cast<std::size_t>(other + 3 * n()));
      return t.allgatherv(mine.data(), counts[static_cast<std::size_t>(t.rank())], all.data(), counts.data(),
                          displs.data(), Datatype::int16);
    });
    for (int r = 0; r < n(); ++r) {
      const Status& st = got[static_cast<std::size_t>(r)];
      EXPECT_EQ(st.code(), Errc::mismatch) << "rank " << r << ", other " << other << ": " << st.to_string();
      EXPECT_NE(st.message().find("allgatherv: ranks disagree on the count: "), std::string::npos) << st.message();
      EXPECT_NE(st.message().find(cat("rank ", odd, " passed counts with digest ")), std::string::npos) << st.message();
    }
  }
}

// Every rank gets the root's argument error, which names the root and what.
TEST_P(Varied, BadCountsOrDisplacementsAtTheRootAreAnErrorOnEveryRank) {
  strict();
  struct Bad {
    std::int64_t count, displ;  // rank 1's entry at the root
    bool null_counts;
    std::string what;
  };
  const Bad cases[] = {
      {-1, 0, false, "rank 1's receive count -1 is negative"},
      {1, -4, false, "rank 1's receive displacement -4 is negative"},
      {std::int64_t{1} << 60, 0, false, "rank 1's receive block (count 1152921504606846976 at 0) is too large"},
      {1, 0, true, "null receive counts"},
  };
  for (const Bad& b : cases) {
    auto got = on_all([&](Team& t) {
      std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), 1), displs(counts.size());
      std::iota(displs.begin(), displs.end(), 0);
      counts[1] = b.count;
      displs[1] = b.displ;
      std::int64_t mine = 7, all[64] = {};
      return t.gatherv(&mine, 1, all, b.null_counts ? nullptr : counts.data(), displs.data(), Datatype::int64, 0);
    });
    for (int r = 0; r < n(); ++r) {
      const Status& st = got[static_cast<std::size_t>(r)];
      EXPECT_EQ(st.code(), Errc::invalid_argument) << "rank " << r << ": " << st.to_string();
      EXPECT_NE(st.message().find("rank 0"), std::string::npos) << st.message();
      if (r == 0) {
        EXPECT_NE(st.message().find(b.what), std::string::npos) << st.message();
      }
    }
  }
}

TEST_P(Varied, InPlaceOnlyWhereMpiAllowsIt) {
  strict();
  auto got = on_all([&](Team& t) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), 1), displs(counts.size());
    std::iota(displs.begin(), displs.end(), 0);
    std::int64_t all[64] = {};
    // Rank 1 is not the root: in place is the root's only.
    return t.gatherv(kInPlace, 1, all, counts.data(), displs.data(), Datatype::int64, 0);
  });
  EXPECT_NE(got[1].message().find("gatherv on rank 1: in-place send is not allowed (only the root may use it)"),
            std::string::npos)
      << got[1].message();
  for (const Status& st : got) EXPECT_EQ(st.code(), Errc::invalid_argument) << st.to_string();
}

// A buffer that peers read is free once the call returns: each rank
// overwrites what it sent at once (gatherv's senders, scatterv's root),
// and every block still arrives whole, blocks that ride with the rows and
// blocks read by single copy (the lazy calls' ranks wait for the readers),
// at every root.
TEST_P(Varied, SendBuffersAreFreeWhenTheCallReturns) {
  for (std::int64_t base : {std::int64_t{5}, std::int64_t{200000}}) {
    for (int root = 0; root < n(); ++root) {
      auto got = on_all([&](Team& t) {
        const int me = t.rank();
        const std::size_t un = static_cast<std::size_t>(n()), b = static_cast<std::size_t>(base);
        std::vector<std::int64_t> counts(un, base), displs(un);
        for (std::size_t r = 0; r < un; ++r) displs[r] = static_cast<std::int64_t>(r * b);
        std::vector<std::int32_t> mine(b, me + 1), all(un * b, -1);
        Status st = t.gatherv(mine.data(), base, all.data(), counts.data(), displs.data(), Datatype::int32, root);
        std::fill(mine.begin(), mine.end(), -7);
        if (!st.ok()) return st;
        if (me == root) {
          for (std::size_t r = 0; r < un; ++r)
            EXPECT_EQ(std::count(all.begin() + static_cast<std::ptrdiff_t>(r * b),
                                 all.begin() + static_cast<std::ptrdiff_t>((r + 1) * b), static_cast<int>(r) + 1),
                      base)
                << "gatherv, rank " << r << "'s block at root " << root << ", base " << base;
          for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int32_t>(i / b) + 10;
        }
        st = t.scatterv(all.data(), counts.data(), displs.data(), mine.data(), base, Datatype::int32, root);
        if (me == root) std::fill(all.begin(), all.end(), -9);
        if (st.ok()) {
          EXPECT_EQ(std::count(mine.begin(), mine.end(), me + 10), base)
              << "scatterv to rank " << me << ", root " << root << ", base " << base;
        }
        return st;
      });
      for (const Status& st : got) EXPECT_TRUE(st.ok()) << st.to_string();
    }
  }
}

// Uneven blocks past the outboxes, at every root, in place and not, blocking
// and not: through CMA (OSMP_CMA=1, whether it pays on this host or not),
// and in outbox chunks with OSMP_CMA=0 (where a rank's steps go on after
// its own block ended).
TEST_P(Varied, LargeUnevenBlocksWithAndWithoutCma) {
  std::vector<test::CollCase> cases;
  for (const auto& c : test::matrix(n(), {}, true, {150000}))
    if (is_varied(c.kind) && (c.type == Datatype::int32 || c.type == Datatype::float64)) cases.push_back(c);
  ASSERT_FALSE(cases.empty());
  test::on_all(*tt_, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CMA", "1"}}).ok()); });
  EXPECT_EQ(test::run_cases(*tt_, cases, 41), "");
  test::on_all(*tt_, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CMA", "0"}}).ok()); });
  EXPECT_EQ(test::run_cases(*tt_, cases, 42), "") << "OSMP_CMA=0";
  EXPECT_EQ(test::run_cases(*tt_, cases, 43, test::Mode::wait), "") << "OSMP_CMA=0, non-blocking";
  auto got = on_all([&](Team& t) {  // and a count that differs, in chunks
    std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), 100000), displs(counts.size());
    for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<std::int64_t>(r) * 100001;
    std::vector<std::int32_t> mine(100001, 1), all(static_cast<std::size_t>(100001 * n()));
    return t.gatherv(mine.data(), t.rank() == n() - 1 ? 100001 : 100000, all.data(), counts.data(), displs.data(),
                     Datatype::int32, 0);
  });
  for (const Status& st : got) EXPECT_EQ(st.code(), Errc::invalid_argument) << st.to_string();
}

// Every rank declines (Team::abstain with unsupported, as the MPI glue does
// for a user op): no counts anywhere, nothing moves, every rank is told.
TEST_P(Varied, EveryRankDeclines) {
  for (OpKind k : kOpKinds) {
    if (!is_varied(k)) continue;
    auto got = on_all(
        [&](Team& t) { return t.abstain(k, 0, Datatype::uint8, Op::sum, is_rooted(k) ? 0 : -1, Errc::unsupported); });
    for (const Status& st : got) EXPECT_EQ(st.code(), Errc::unsupported) << to_string(k) << ": " << st.to_string();
  }
}

// A team of one: alltoallv's own pair is checked (no other rank compares it).
TEST(VariedAlone, AlltoallvOwnPairThatDiffersIsAnError) {
  auto tt = test::make_teams(Config{"here_1", "", 1, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  test::on_all(tt, [](Team& t) {
    std::int64_t sc = 1, rc = 1 << 20, d = 0, out[1] = {7}, in[1] = {0};
    Status st = t.alltoallv(out, &sc, &d, in, &rc, &d, Datatype::int64);
    EXPECT_EQ(st.code(), Errc::invalid_argument) << st.to_string();
    EXPECT_NE(st.message().find("sends itself 1 elements but receives 1048576"), std::string::npos) << st.message();
    rc = 1;
    EXPECT_TRUE(t.alltoallv(out, &sc, &d, in, &rc, &d, Datatype::int64).ok());
    EXPECT_EQ(in[0], 7);
  });
}

// The lazy scatterv's rows when its area fills (RowsDown::place): blocks of
// at most kRowsDataBytes ride in rank order while they fit the area (32 KiB
// here); one that no longer fits and one past kRowsDataBytes are read by
// CMA; a short one after them still rides. At every root, each rank gets
// its own block and nothing past it.
TEST(VariedRows, ScattervBlocksRideWhileTheAreaHoldsThemThenByCma) {
  constexpr int kN = 5;
  auto tt = test::make_teams(Config{"here_5_lazy", "", kN, MapBy::core, "", "", "lazy"},
                             [](Options& o) { o.settings["OSMP_BCAST_SIZE"] = "32K"; });
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  const auto k = static_cast<std::int64_t>(kRowsDataBytes);
  const std::vector<std::int64_t> counts = {k, k, k, 100, k + 1};
  std::vector<std::int64_t> displs(counts.size());
  std::int64_t at = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = at;
    at += counts[r] + 5;
  }
  auto value = [](std::size_t r, std::int64_t i) {
    return static_cast<std::uint8_t>(r * 37 + static_cast<std::size_t>(i) % 251 + 1);
  };
  for (int root = 0; root < kN; ++root) {
    test::on_all(tt, [&](Team& t) {
      const std::size_t me = static_cast<std::size_t>(t.rank());
      std::vector<std::uint8_t> all(static_cast<std::size_t>(at), 0xee);
      if (t.rank() == root)
        for (std::size_t r = 0; r < counts.size(); ++r)
          for (std::int64_t i = 0; i < counts[r]; ++i) all[static_cast<std::size_t>(displs[r] + i)] = value(r, i);
      std::vector<std::uint8_t> mine(static_cast<std::size_t>(counts[me]) + 3, 0xdd), want(mine.size(), 0xdd);
      for (std::int64_t i = 0; i < counts[me]; ++i) want[static_cast<std::size_t>(i)] = value(me, i);
      const Status st =
          t.scatterv(all.data(), counts.data(), displs.data(), mine.data(), counts[me], Datatype::uint8, root);
      EXPECT_TRUE(st.ok()) << st.to_string();
      EXPECT_EQ(mine, want) << "rank " << me << ", root " << root;
    });
  }
}

// Allgatherv decides single copy on its longest block, in its plan and in
// its flat path alike (PlanInput::longest): uneven blocks whose mean is
// below CMA's range and whose longest is in it, and with OSMP_CMA_MAX below
// the longest block, each in place and not; every block lands where its
// displacement says.
TEST(VariedLongest, AllgathervUnevenBlocksAroundTheCmaRange) {
  constexpr int kN = 3;
  auto tt = test::make_teams(Config{"here_3", "", kN, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  const std::vector<std::int64_t> counts = {40000, 8, 0};  // bytes: mean 13336, longest 40000
  std::vector<std::int64_t> displs = {3, 40011, 40030};
  const std::size_t total = 40040;
  auto value = [](std::size_t r, std::int64_t i) {
    return static_cast<std::uint8_t>(r * 71 + static_cast<std::size_t>(i) % 241 + 1);
  };
  for (const char* max : {"64M", "32K"}) {
    test::on_all(tt, [&](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CMA_MAX", max}}).ok()); });
    for (bool in_place : {false, true}) {
      test::on_all(tt, [&](Team& t) {
        const std::size_t me = static_cast<std::size_t>(t.rank());
        std::vector<std::uint8_t> mine(static_cast<std::size_t>(counts[me])), all(total, 0xee), want(total, 0xee);
        for (std::int64_t i = 0; i < counts[me]; ++i) mine[static_cast<std::size_t>(i)] = value(me, i);
        for (std::size_t r = 0; r < counts.size(); ++r)
          for (std::int64_t i = 0; i < counts[r]; ++i) want[static_cast<std::size_t>(displs[r] + i)] = value(r, i);
        if (in_place) std::copy(mine.begin(), mine.end(), all.begin() + displs[me]);
        const Status st = t.allgatherv(in_place ? kInPlace : mine.data(), counts[me], all.data(), counts.data(),
                                       displs.data(), Datatype::uint8);
        EXPECT_TRUE(st.ok()) << st.to_string();
        EXPECT_EQ(all, want) << "rank " << me << ", OSMP_CMA_MAX=" << max << (in_place ? ", in place" : "");
      });
    }
  }
}

// Every count 0, and a count of 0 beside large ones: nothing written where
// nothing is due.
TEST_P(Varied, ZeroCounts) {
  auto got = on_all([&](Team& t) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), 0), displs(counts.size(), 0);
    std::int64_t none[1] = {-5};
    Status st = t.allgatherv(nullptr, 0, none, counts.data(), displs.data(), Datatype::int64);
    if (st.ok()) st = t.gatherv(nullptr, 0, none, counts.data(), displs.data(), Datatype::int64, n() - 1);
    if (st.ok()) st = t.scatterv(none, counts.data(), displs.data(), nullptr, 0, Datatype::int64, 0);
    EXPECT_EQ(none[0], -5);
    return st;
  });
  for (const Status& st : got) EXPECT_TRUE(st.ok()) << st.to_string();
}

// Gatherv's and scatterv's small blocks ride with the lengths where every
// rank is a unit of a symmetric top (kLengthsDataBytes in the lines, or
// kLengthsSlotDataBytes in packed rows through the slots): blocks of 0-16
// bytes, uneven, at every root, in place at the root, and one block as long
// as either limit or a byte too long for it among small ones (the flat path
// after the lengths step); the lazy gatherv's rows (kRowsDataBytes, beyond
// it by CMA) likewise. The gaps between blocks and past each block stay
// as they were.
TEST_P(Varied, SmallGathervAndScattervBlocksAtEveryRoot) {
  for (int longest : {static_cast<int>(kLengthsDataBytes), static_cast<int>(kLengthsDataBytes) + 1,
                      static_cast<int>(kLengthsSlotDataBytes), static_cast<int>(kLengthsSlotDataBytes) + 1,
                      static_cast<int>(kRowsDataBytes), static_cast<int>(kRowsDataBytes) + 1}) {
    for (int root = 0; root < n(); ++root) {
      for (bool in_place : {false, true}) {
        auto got = on_all([&](Team& t) {
          const std::size_t un = static_cast<std::size_t>(n());
          std::vector<std::int64_t> counts(un), displs(un);
          std::int64_t at = 0;
          for (std::size_t r = 0; r < un; ++r) {  // rank 1 the longest, others 0 .. 16 bytes
            counts[r] = r == 1 ? longest : static_cast<std::int64_t>((r * 5) % (kLengthsDataBytes + 1));
            displs[r] = at;
            at += counts[r] + 3;
          }
          const std::size_t me = static_cast<std::size_t>(t.rank());
          std::vector<std::uint8_t> mine(static_cast<std::size_t>(counts[me]));
          for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = static_cast<std::uint8_t>(me * 16 + i + 1);
          std::vector<std::uint8_t> all(static_cast<std::size_t>(at), 0xee);
          const bool here = in_place && t.rank() == root;
          if (here) std::copy(mine.begin(), mine.end(), all.begin() + displs[me]);
          Status st = t.gatherv(here ? kInPlace : mine.data(), counts[me], all.data(), counts.data(), displs.data(),
                                Datatype::uint8, root);
          if (st.ok() && t.rank() == root) {
            std::vector<std::uint8_t> want(all.size(), 0xee);
            for (std::size_t r = 0; r < un; ++r)
              for (std::int64_t i = 0; i < counts[r]; ++i)
                want[static_cast<std::size_t>(displs[r] + i)] =
                    static_cast<std::uint8_t>(r * 16 + static_cast<std::size_t>(i) + 1);
            EXPECT_EQ(all, want) << "root " << root << (in_place ? " in place" : "") << ", longest " << longest;
          }
          // scatterv from the same blocks back (the root's `all` holds
          // them; elsewhere it is unread): each rank gets its own.
          if (st.ok()) {
            std::vector<std::uint8_t> back(mine.size() + 2, 0xdd);
            if (t.rank() == root)
              for (std::size_t r = 0; r < un; ++r)
                for (std::int64_t i = 0; i < counts[r]; ++i)
                  all[static_cast<std::size_t>(displs[r] + i)] =
                      static_cast<std::uint8_t>(r * 16 + static_cast<std::size_t>(i) + 1);
            st = t.scatterv(all.data(), counts.data(), displs.data(), here ? const_cast<void*>(kInPlace) : back.data(),
                            counts[me], Datatype::uint8, root);
            if (st.ok() && !here) {
              std::vector<std::uint8_t> want(mine);
              want.push_back(0xdd);
              want.push_back(0xdd);
              EXPECT_EQ(back, want) << "scatterv to rank " << me << ", root " << root << ", longest " << longest;
            }
          }
          return st;
        });
        for (const Status& st : got) EXPECT_TRUE(st.ok()) << st.to_string();
      }
    }
  }
}

// Alltoallv's small blocks ride in its counts step (agree_pairs): uneven
// blocks of 0 .. 40 bytes, then one pair's block far beyond what rides
// (the flat path or CMA after the step), each also in place. Every block
// lands at its displacement; the gaps stay as they were.
TEST_P(Varied, AlltoallvSmallBlocksRideWithTheCounts) {
  for (std::int64_t longest : {std::int64_t{40}, std::int64_t{300000}}) {
    for (bool in_place : {false, true}) {
      auto got = on_all([&](Team& t) {
        const std::size_t un = static_cast<std::size_t>(n()), me = static_cast<std::size_t>(t.rank());
        // bytes from rank s to rank d: uneven, 0 for some pairs; rank 0 to
        // the last rank `longest`
        auto len = [&](std::size_t s, std::size_t d) -> std::int64_t {
          return s == 0 && d == un - 1 ? longest : static_cast<std::int64_t>((s * 7 + d * 3) % 41);
        };
        auto value = [](std::size_t s, std::size_t d, std::int64_t i) {
          return static_cast<std::uint8_t>(s * 31 + d * 17 + static_cast<std::size_t>(i) + 1);
        };
        std::vector<std::int64_t> counts(un), displs(un), rcounts(un), rdispls(un);
        std::int64_t out_at = 0, in_at = 0;
        for (std::size_t r = 0; r < un; ++r) {
          counts[r] = len(me, r);
          displs[r] = out_at;
          out_at += counts[r] + 5;
          rcounts[r] = len(r, me);
          rdispls[r] = in_at;
          in_at += rcounts[r] + 3;
        }
        std::vector<std::uint8_t> out(static_cast<std::size_t>(out_at), 0xaa);
        std::vector<std::uint8_t> in(static_cast<std::size_t>(in_at), 0xee);
        for (std::size_t r = 0; r < un; ++r)
          for (std::int64_t i = 0; i < counts[r]; ++i) out[static_cast<std::size_t>(displs[r] + i)] = value(me, r, i);
        Status st;
        if (in_place) {  // the blocks to send are the receive blocks (their counts agree pairwise only if symmetric)
          for (std::size_t r = 0; r < un; ++r) {
            rcounts[r] = counts[r] = std::min(len(me, r), len(r, me));
            for (std::int64_t i = 0; i < rcounts[r]; ++i)
              in[static_cast<std::size_t>(rdispls[r] + i)] = value(me, r, i);
          }
          st = t.alltoallv(kInPlace, nullptr, nullptr, in.data(), rcounts.data(), rdispls.data(), Datatype::uint8);
        } else {
          st = t.alltoallv(out.data(), counts.data(), displs.data(), in.data(), rcounts.data(), rdispls.data(),
                           Datatype::uint8);
        }
        if (!st.ok()) return st;
        std::vector<std::uint8_t> want(in.size(), 0xee);
        for (std::size_t r = 0; r < un; ++r)
          for (std::int64_t i = 0; i < rcounts[r]; ++i)
            want[static_cast<std::size_t>(rdispls[r] + i)] = value(r, me, i);
        EXPECT_EQ(in, want) << "rank " << me << ", longest " << longest << (in_place ? ", in place" : "");
        return st;
      });
      for (const Status& st : got) EXPECT_TRUE(st.ok()) << st.to_string();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, Varied,
                         ::testing::Values(Config{"here_2", "", 2, MapBy::core, "", "", ""},
                                           Config{"here_3_strict", "", 3, MapBy::core, "", "", "strict"},
                                           Config{"here_5", "", 5, MapBy::core, "", "", ""},
                                           Config{"rome_8", "rome", 8, MapBy::scatter, "", "", ""},
                                           // beyond 16 ranks alltoallv's counts take a second step
                                           Config{"rome_18", "rome", 18, MapBy::scatter, "", "", ""}),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace osmp
