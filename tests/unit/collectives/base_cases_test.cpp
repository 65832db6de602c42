// The base cases (collectives/base/) and the walk that strings them
// (collectives/walk.hpp), run directly: a group's members are threads of this
// process on a real group layout, each driving its own Walk, either blocking
// or resumed by hand (progress() until done, yielding in between: the
// non-blocking contract). Every rank brings (rank-distinct) data; each must
// reach the result exactly once: element i of the sum of ranks' 2^r (i + 1)
// is (2^n - 1)(i + 1), which a rank counted twice or missed would change.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "collectives/calls.hpp"
#include "collectives/walk.hpp"
#include "sim/team_harness.hpp"

namespace osmp {
namespace {

// Sums vectors of uint64 up the tree and hands the sum down to every rank.
class SumAll : public Payload {
 public:
  SumAll(std::size_t n, const std::uint64_t* mine, std::uint64_t* out) : n_(n), mine_(mine), out_(out) {}
  std::size_t up_len(const Lane&, int) const { return n_ * 8; }
  std::size_t uniform_up_len() const { return n_ * 8; }
  const std::byte* own_up() { return reinterpret_cast<const std::byte*>(mine_); }
  void combine(const Lane&, LaneWork& w, const int* units, int count, std::byte* out) {
    std::vector<std::uint64_t> sum(n_, 0);  // `out` may be the first source
    for (int i = 0; i < count; ++i) add(w.src[static_cast<std::size_t>(units[i])], 0, n_, sum.data());
    std::memcpy(out, sum.data(), n_ * 8);
  }
  std::byte* top_up_out(std::byte* down_area) { return down_area; }
  void at_top(const std::byte* result) {
    if (!delivered_) std::memcpy(out_, result, n_ * 8);
    at_top_calls_++;
  }
  void combine_slice(const Lane& l, LaneWork& w, std::size_t off, std::size_t n, std::byte* out) {
    std::vector<std::uint64_t> sum(n, 0);
    for (int u = 0; u < l.n(); ++u) add(w.src[static_cast<std::size_t>(u)], off, n, sum.data() - off);
    std::memcpy(out, sum.data(), n * 8);
  }
  std::size_t elements() const { return n_; }
  std::size_t element_size() const { return 8; }
  std::size_t down_len(const Lane&) const { return n_ * 8; }
  void deliver(int, const Lane*, const std::byte* data) {
    if (!delivered_ && n_) std::memcpy(out_, data, n_ * 8);
    delivered_ = true;
  }
  // The prefix top: the sum of the ranks up to mine (base/prefix.hpp).
  void prefix(const Lane& l, LaneWork& w) {
    const auto rank_of = [&](int u) { return l.packed[l.unit_off[static_cast<std::size_t>(u)]]; };
    std::vector<std::uint64_t> sum(n_, 0);
    for (int u = 0; u < l.n(); ++u)
      if (rank_of(u) <= rank_of(l.g->me)) add(w.src[static_cast<std::size_t>(u)], 0, n_, sum.data());
    if (n_) std::memcpy(out_, sum.data(), n_ * 8);
    delivered_ = true;
  }
  int at_top_calls() const { return at_top_calls_; }

 private:
  static void add(const std::byte* src, std::size_t off, std::size_t n, std::uint64_t* sum) {
    for (std::size_t i = off; i < off + n; ++i) {
      std::uint64_t v;
      std::memcpy(&v, src + i * 8, 8);
      sum[i] += v;
    }
  }
  std::size_t n_;
  const std::uint64_t* mine_;
  std::uint64_t* out_;
  bool delivered_ = false;
  int at_top_calls_ = 0;
};
static_assert(PayloadHooks<SumAll>);

struct Layout {
  std::string topology;  // synthetic
  int ranks;
  std::string base;  // OSMP_BASE_CASE
};

// Runs `calls` steps of `plan` (roots cycling over every rank) on every rank
// of `layout` and checks each rank's result.
void run(const Layout& layout, StepPlan plan, std::size_t elems, bool by_hand) {
  const int n = layout.ranks;
  auto teams = test::create_teams(n, test::placed_on(layout.topology, n));
  for (auto& t : teams) ASSERT_TRUE(t.status.ok()) << t.status.to_string();
  std::atomic<int> failures{0};
  test::run_on_teams(teams, [&](TeamCore& team) {
    CollectiveConfig cfg;
    if (!layout.base.empty()) {
      EXPECT_TRUE(cfg.set_base_cases(layout.base).ok());
    }
    auto engine = Engine::create(team, cfg);
    ASSERT_TRUE(engine.ok()) << engine.status().to_string();
    Engine& e = **engine;
    const int me = team.rank();
    for (int root = 0; root < n; ++root) {
      std::vector<std::uint64_t> mine(elems), out(elems, 0);
      for (std::size_t i = 0; i < elems; ++i) mine[i] = (std::uint64_t{1} << me) * (i + 1);
      SumAll p(elems, mine.data(), out.data());
      const int r = plan.top == TopCase::tree ? root : -1;  // the symmetric top and slices are unrooted
      Walk<SumAll> w(e, p, plan, e.next_step(), OpHeader{}, 0, r, 0, /*block=*/!by_hand);
      if (by_hand) {
        while (Wait wt = w.progress()) {
          EXPECT_EQ(w.failed(), WaitStatus::ok);
          std::this_thread::yield();  // a non-blocking caller would compute here
        }
      } else {
        ASSERT_TRUE(drive(team, w).ok());
      }
      EXPECT_TRUE(w.done());
      EXPECT_EQ(w.verdict(), 0u);
      // Only the top local root (the root's path leads) has the whole up result.
      if (plan.top == TopCase::tree) {
        EXPECT_EQ(p.at_top_calls(), me == r ? 1 : 0) << "rank " << me << " root " << r;
      }
      const bool gets = plan.down || (plan.top == TopCase::tree && me == r);
      if (!gets) continue;
      for (std::size_t i = 0; i < elems; ++i) {
        const std::uint64_t want = ((std::uint64_t{1} << n) - 1) * (i + 1);
        if (out[i] != want) {
          ADD_FAILURE() << layout.topology << " " << layout.base << ": rank " << me << " root " << r << " element " << i
                        << ": " << out[i] << ", want " << want;
          ++failures;
          break;
        }
      }
      if (failures) break;
    }
  });
}

constexpr StepPlan kTree{true, true, true, false, TopCase::tree};
constexpr StepPlan kTreeUpOnly{false, true, false, false, TopCase::tree};
constexpr StepPlan kSymmetric{true, true, true, false, TopCase::symmetric};
constexpr StepPlan kSlices{false, true, true, false, TopCase::slices};

// Elements: one (the flag's line), and 37 (slots; uneven slices).
constexpr std::size_t kSizes[] = {1, 37};

TEST(BaseCases, FlatEveryRootBlockingAndByHand) {
  for (std::size_t elems : kSizes)
    for (bool by_hand : {false, true}) run({"Package:1 Core:7 PU:1", 7, "flat"}, kTree, elems, by_hand);
}

TEST(BaseCases, KnomialEveryRadixEveryRoot) {
  for (int k = 2; k <= 7; ++k)
    for (std::size_t elems : kSizes) run({"Package:1 Core:7 PU:1", 7, cat("knomial:", k)}, kTree, elems, k % 2 == 0);
}

TEST(BaseCases, UnevenUnitsOverTwoLevels) {
  // Packages of 4 and 3 ranks: a top group of two uneven units over two groups.
  for (const char* base : {"flat", "knomial:2", "knomial:3"})
    for (std::size_t elems : kSizes) {
      run({"Package:2 Core:4 PU:1", 7, base}, kTree, elems, false);
      run({"Package:2 Core:4 PU:1", 7, base}, kTree, elems, true);
    }
}

TEST(BaseCases, UpOnlyReachesTheRootOnly) {
  for (std::size_t elems : kSizes) run({"Package:2 Core:3 PU:1", 5, "knomial:2"}, kTreeUpOnly, elems, true);
}

TEST(BaseCases, SymmetricTop) {
  run({"Package:1 Core:5 PU:1", 5, ""}, kSymmetric, 1, false);
  run({"Package:1 Core:5 PU:1", 5, ""}, kSymmetric, 1, true);
  run({"Package:2 Core:3 PU:1", 6, "flat"}, kSymmetric, 1, true);  // below the top: a tree per package
  run({"Package:1 Core:2 PU:1", 2, ""}, kSymmetric, 37, true);     // data in the slots (two members)
}

TEST(BaseCases, SlicesAtTheTop) {
  for (std::size_t elems : {std::size_t{1}, std::size_t{4}, std::size_t{37}}) {
    run({"Package:1 Core:5 PU:1", 5, ""}, kSlices, elems, true);
    run({"Package:2 Core:3 PU:1", 5, "knomial:2"}, kSlices, elems, false);
  }
}

// The one-group step (base/one_group.hpp) against the Walk resumed
// (progress() with every wait returned: the non-blocking path), in a team
// with unit acks: in every step some ranks run one and the others the other
// (as when some ranks' calls are blocking and others' started), then all
// the one-group step. Down one pass: everyone gets the root's data; up one
// pass: the root gets the sum, once; the symmetric round trip: everyone
// gets the sum.
void run_one_group(int n, StepPlan plan, std::size_t elems) {
  auto teams = test::create_teams(n, test::placed_on(cat("Package:1 Core:", n, " PU:1"), n));
  for (auto& t : teams) ASSERT_TRUE(t.status.ok()) << t.status.to_string();
  test::run_on_teams(teams, [&](TeamCore& team) {
    CollectiveConfig cfg;
    ASSERT_TRUE(cfg.set("OSMP_CHECK", "lazy").ok());
    auto engine = Engine::create(team, cfg);
    ASSERT_TRUE(engine.ok()) << engine.status().to_string();
    Engine& e = **engine;
    Calls calls(team);
    calls.bind(team, {&e});
    ASSERT_TRUE(e.unit_acks());
    const OneGroupKind kind = one_group_kind(plan, e.lanes().front());
    ASSERT_NE(kind, OneGroupKind::none);
    const int me = team.rank();
    for (int round = 0; round < 3 * n; ++round) {
      const int root = round % n;
      const bool mixed = round < 2 * n;
      const bool one_group = !mixed || (me + round) % 2 == 0;
      std::vector<std::uint64_t> mine(elems), out(elems, 0);
      for (std::size_t i = 0; i < elems; ++i) mine[i] = (std::uint64_t{1} << me) * (i + 1);
      SumAll p(elems, mine.data(), out.data());
      const std::uint64_t step = e.next_step();
      OpHeader h;
      h.root = static_cast<std::int16_t>(root);
      StatusWord verdict = 0;
      if (one_group) {
        auto run = [&]<OneGroupKind K>() {
          OneGroupStep<SumAll, K> w(e, p, plan, step, h, 0, root);
          EXPECT_TRUE(w.run().ok());
          verdict = w.state().verdict;
        };
        switch (kind) {
          case OneGroupKind::down: run.template operator()<OneGroupKind::down>(); break;
          case OneGroupKind::up: run.template operator()<OneGroupKind::up>(); break;
          case OneGroupKind::prefix: run.template operator()<OneGroupKind::prefix>(); break;
          default: run.template operator()<OneGroupKind::symmetric>(); break;
        }
      } else {
        Walk<SumAll> w(e, p, plan, step, h, 0, root, 0, /*block=*/false);
        ASSERT_TRUE(drive(team, w).ok());
        EXPECT_TRUE(w.done());
        verdict = w.verdict();
      }
      EXPECT_EQ(verdict, 0u) << "rank " << me << " round " << round;
      const bool prefix = plan.top == TopCase::prefix;
      const bool down_only = plan.one_pass && !plan.up, up_only = plan.one_pass && !plan.down && !prefix;
      if (up_only) {
        EXPECT_EQ(p.at_top_calls(), me == root ? 1 : 0) << "rank " << me << " round " << round;
      }
      if (up_only && me != root) continue;
      for (std::size_t i = 0; i < elems; ++i) {
        const std::uint64_t want = down_only ? (std::uint64_t{1} << root) * (i + 1)
                                   : prefix  ? ((std::uint64_t{1} << (me + 1)) - 1) * (i + 1)
                                             : ((std::uint64_t{1} << n) - 1) * (i + 1);
        if (out[i] != want) {
          ADD_FAILURE() << "rank " << me << " round " << round << (one_group ? " (one group)" : " (walk)")
                        << " element " << i << ": " << out[i] << ", want " << want;
          return;
        }
      }
    }
  });
}

constexpr StepPlan kDownOnePass{true, false, true, false, TopCase::tree, true};
constexpr StepPlan kUpOnePass{true, true, false, false, TopCase::tree, true};
constexpr StepPlan kPrefixOnePass{true, true, false, true, TopCase::prefix, true};

TEST(BaseCases, OneGroupStepMeetsTheWalk) {
  for (int n : {2, 3, 5}) {
    for (std::size_t elems : {std::size_t{1}, std::size_t{4}}) {  // in the line; 32 bytes: still in the line
      run_one_group(n, kDownOnePass, elems);
      run_one_group(n, kUpOnePass, elems);
      run_one_group(n, kSymmetric, elems);
    }
    run_one_group(n, kDownOnePass, 37);  // the release's area, the members' slots
    run_one_group(n, kUpOnePass, 37);
    run_one_group(n, kPrefixOnePass, 1);
    run_one_group(n, kPrefixOnePass, 37);
  }
  run_one_group(2, kSymmetric, 37);  // allreduce-sized data in the slots: two members
}

// One pass over every level (OSMP_CHECK=lazy on a tree of several groups):
// the cross-rank waits of one small step, counted on each rank (blocking:
// each flag once, CountsWaits), are the one-pass schedule's: down, one per
// rank but the root, which waits for nobody; up, each local root one per
// unit it collects; n - 1 in all either way, where the round trip that
// agrees first takes 2 (n - 1). Every rank gets the right data, every root.
class CountingSum : public SumAll {
 public:
  using SumAll::SumAll;
  void waited(int) { ++waits_; }
  int waits() const { return waits_; }

 private:
  int waits_ = 0;
};
static_assert(CountsWaits<CountingSum> && !CountsWaits<SumAll>);

void run_one_pass_levels(const Layout& layout) {
  const int n = layout.ranks;
  auto teams = test::create_teams(n, test::placed_on(layout.topology, n));
  for (auto& t : teams) ASSERT_TRUE(t.status.ok()) << t.status.to_string();
  constexpr StepPlan kDown{true, false, true, false, TopCase::tree, true};
  constexpr StepPlan kUp{true, true, false, false, TopCase::tree, true};
  constexpr StepPlan kRoundTrip{true, true, true, false, TopCase::tree, false};
  const StepPlan plans[] = {kDown, kUp, kRoundTrip};
  // [plan][root][rank]
  std::vector<std::vector<std::vector<int>>> waits(3, std::vector<std::vector<int>>(n, std::vector<int>(n, -1)));
  std::vector<std::vector<int>> collects(static_cast<std::size_t>(n), std::vector<int>(n, 0));  // [root][rank]
  test::run_on_teams(teams, [&](TeamCore& team) {
    CollectiveConfig cfg;
    ASSERT_TRUE(cfg.set("OSMP_CHECK", "lazy").ok());
    if (!layout.base.empty()) {
      ASSERT_TRUE(cfg.set_base_cases(layout.base).ok());
    }
    auto engine = Engine::create(team, cfg);
    ASSERT_TRUE(engine.ok()) << engine.status().to_string();
    Engine& e = **engine;
    Calls calls(team);
    calls.bind(team, {&e});
    ASSERT_TRUE(e.unit_acks()) << "a tree of several groups makes one-pass calls";
    ASSERT_FALSE(e.one_group());
    EXPECT_TRUE(e.plan(PlanInput{OpKind::bcast, 4, 1}).first.one_pass);
    EXPECT_TRUE(e.plan(PlanInput{OpKind::reduce, 4, 1}).first.one_pass);
    const int me = team.rank();
    for (int round = 0; round < 2; ++round) {  // both parities, every root after every other
      for (std::size_t pi = 0; pi < 3; ++pi) {
        const StepPlan& plan = plans[pi];
        for (int root = 0; root < n; ++root) {
          std::uint64_t mine = std::uint64_t{1} << me, out = 0;
          CountingSum p(1, &mine, &out);
          OpHeader h{};
          h.root = static_cast<std::int16_t>(root);
          Walk<CountingSum> w(e, p, plan, e.next_step(), h, 0, root, 0, /*block=*/true);
          ASSERT_TRUE(drive(team, w).ok()) << "rank " << me << " root " << root;
          EXPECT_EQ(w.verdict(), 0u);
          waits[pi][static_cast<std::size_t>(root)][static_cast<std::size_t>(me)] = p.waits();
          const std::uint64_t all = (std::uint64_t{1} << n) - 1, root_bit = std::uint64_t{1} << root;
          if (plan.down) {
            EXPECT_EQ(out, plan.up ? all : root_bit) << "rank " << me << " root " << root << " plan " << pi;
          } else if (me == root) {
            EXPECT_EQ(out, all) << "root " << root;
          }
          if (pi == 1 && round == 0) {
            // The units this rank collects as a local root (flat groups).
            int m = 0, c = 0;
            const auto& lanes = e.lanes();
            while (m < static_cast<int>(lanes.size()) &&
                   lanes[static_cast<std::size_t>(m)].g->me == lanes[static_cast<std::size_t>(m)].lroot(root)) {
              c += lanes[static_cast<std::size_t>(m)].n() - 1;
              ++m;
            }
            collects[static_cast<std::size_t>(root)][static_cast<std::size_t>(me)] = c;
          }
        }
      }
    }
  });
  const bool flat = layout.base.empty() || layout.base == "flat";
  for (int root = 0; root < n; ++root) {
    int total[3] = {0, 0, 0};
    for (int r = 0; r < n; ++r) {
      const auto at = [&](std::size_t pi) {
        return waits[pi][static_cast<std::size_t>(root)][static_cast<std::size_t>(r)];
      };
      for (std::size_t pi = 0; pi < 3; ++pi) total[pi] += at(pi);
      EXPECT_EQ(at(0), r == root ? 0 : 1) << layout.topology << ": one pass down, rank " << r << " root " << root;
      if (flat) {
        EXPECT_EQ(at(1), collects[static_cast<std::size_t>(root)][static_cast<std::size_t>(r)])
            << layout.topology << ": one pass up, rank " << r << " root " << root;
        EXPECT_EQ(at(2), at(1) + at(0)) << layout.topology << ": round trip, rank " << r << " root " << root;
      }
    }
    EXPECT_EQ(total[0], n - 1) << layout.topology << " " << layout.base << " root " << root;
    EXPECT_EQ(total[1], n - 1) << layout.topology << " " << layout.base << " root " << root;
    EXPECT_EQ(total[2], 2 * (n - 1)) << layout.topology << " " << layout.base << " root " << root;
  }
}

TEST(BaseCases, OnePassOverEveryLevelWaitsOnceAlongTheTree) {
  run_one_pass_levels({"Package:2 L3Cache:2 Core:2 PU:1", 8, ""});            // three levels of groups
  run_one_pass_levels({"Package:2 L3Cache:2 Core:2 PU:1", 7, ""});            // uneven
  run_one_pass_levels({"Package:2 L3Cache:2 Core:3 PU:1", 12, "knomial:2"});  // k-nomial groups
}

// The prefix top waits only for the ranks before it: rank 0 completes its
// step while every other rank holds back (until it does, or 5 s), and rank
// r's result is the sum of ranks 0 .. r; blocking and by hand.
TEST(BaseCases, PrefixTopRankZeroWaitsForNobody) {
  for (bool by_hand : {false, true}) {
    const int n = 3;
    auto teams = test::create_teams(n, test::placed_on("Package:1 Core:3 PU:1", n));
    for (auto& t : teams) ASSERT_TRUE(t.status.ok()) << t.status.to_string();
    std::atomic<bool> zero_done{false};
    test::run_on_teams(teams, [&](TeamCore& team) {
      CollectiveConfig cfg;
      ASSERT_TRUE(cfg.set("OSMP_CHECK", "lazy").ok());
      auto engine = Engine::create(team, cfg);
      ASSERT_TRUE(engine.ok()) << engine.status().to_string();
      Engine& e = **engine;
      Calls calls(team);
      calls.bind(team, {&e});
      const int me = team.rank();
      if (me != 0) {
        for (int i = 0; i < 5000 && !zero_done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        EXPECT_TRUE(zero_done.load()) << "rank 0 waited for rank " << me;
      }
      std::uint64_t mine = std::uint64_t{1} << me, out = 0;
      SumAll p(1, &mine, &out);
      Walk<SumAll> w(e, p, kPrefixOnePass, e.next_step(), OpHeader{}, 0, -1, 0, /*block=*/!by_hand);
      if (by_hand) {
        while (Wait wt = w.progress()) std::this_thread::yield();
      } else {
        ASSERT_TRUE(drive(team, w).ok());
      }
      EXPECT_TRUE(w.done());
      EXPECT_EQ(out, (std::uint64_t{1} << (me + 1)) - 1) << "rank " << me;
      if (me == 0) zero_done = true;
    });
  }
}

}  // namespace
}  // namespace osmp
