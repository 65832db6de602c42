// Sub-teams (osmp::Team::split and dup, osmp_team_split and osmp_team_dup;
// label sim: real teams, threads as ranks): who lands where, the groups'
// collectives right on every one of them and interleaved with the parent's,
// the parent's settings and per-operation profiles carried over, ranks that
// join none, many alive at once, and the C entries.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "osmp.h"
#include "team_api_harness.hpp"

namespace osmp::test {
namespace {

// Every rank's parent rank, gathered over `t` in its order.
std::vector<int> parents_of(Team& t, int parent_rank) {
  std::vector<int> all(static_cast<std::size_t>(t.size()), -1);
  EXPECT_TRUE(t.allgather(std::span<const int>(&parent_rank, 1), std::span<int>(all)).ok());
  return all;
}

// What the color/key rule makes of `picks` for parent rank `me`: my group's
// parent ranks in the new rank order.
std::vector<int> expected_group(const std::vector<std::pair<int, int>>& picks, int me) {
  std::vector<int> g;
  if (picks[static_cast<std::size_t>(me)].first < 0) return g;
  for (int r = 0; r < static_cast<int>(picks.size()); ++r)
    if (picks[static_cast<std::size_t>(r)].first == picks[static_cast<std::size_t>(me)].first) g.push_back(r);
  std::stable_sort(g.begin(), g.end(), [&](int a, int b) {
    return picks[static_cast<std::size_t>(a)].second < picks[static_cast<std::size_t>(b)].second;
  });
  return g;
}

struct SplitCase {
  std::string name;
  std::function<std::pair<int, int>(int rank, int n)> pick;  // (color, key)
};

class Split : public ::testing::TestWithParam<Config> {};

TEST_P(Split, GroupsAreRightAndTheirCollectivesToo) {
  const Config c = GetParam();
  auto tt = make_teams(c);
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  const std::vector<SplitCase> shapes = {
      {"two colors",
       [](int r, int) {
         return std::pair{r % 2, r};
       }},
      {"reversed",
       [](int r, int n) {
         return std::pair{0, n - r};
       }},
      {"own color",
       [](int r, int) {
         return std::pair{r, 0};
       }},
      {"some join none",
       [](int r, int) {
         return std::pair{r % 3 == 1 ? OSMP_UNDEFINED : r % 3, -r};
       }},
      {"equal keys keep the order",
       [](int, int) {
         return std::pair{7, 0};
       }},
  };
  for (const SplitCase& s : shapes) {
    std::vector<std::pair<int, int>> picks;
    for (int r = 0; r < c.n; ++r) picks.push_back(s.pick(r, c.n));
    std::mutex m;
    std::string bad;
    auto fail = [&](const std::string& what) {
      std::lock_guard lock(m);
      if (bad.empty()) bad = s.name + ": " + what;
    };
    on_all(tt, [&](Team& t) {
      const int me = t.rank();
      auto sub = t.split(picks[static_cast<std::size_t>(me)].first, picks[static_cast<std::size_t>(me)].second);
      if (!sub.ok()) return fail(sub.status().to_string());  // every rank's error alike: none goes on
      const std::vector<int> want = expected_group(picks, me);
      if (want.empty() != !sub->has_value()) fail("rank " + std::to_string(me) + " joined the wrong number");
      int one = 1, count = 0;  // the parent's collectives go on beside the groups'
      if (!t.allreduce(std::span<const int>(&one, 1), std::span<int>(&count, 1), Op::sum).ok() || count != c.n)
        fail("the parent's allreduce after the split");
      if (want.empty() || !sub->has_value()) return;
      Team& g = **sub;
      const int at = static_cast<int>(std::find(want.begin(), want.end(), me) - want.begin());
      if (g.size() != static_cast<int>(want.size()) || g.rank() != at)
        fail("rank " + std::to_string(me) + " is " + std::to_string(g.rank()) + " of " + std::to_string(g.size()));
      if (parents_of(g, me) != want) fail("the group's order");
      const auto cases = matrix(g.size(), {1, 33}, false);
      for (std::size_t i = 0; i < cases.size(); ++i) {
        std::string b = run_case(g, cases[i], 100 + static_cast<std::uint32_t>(i));
        if (!b.empty()) fail(cases[i].name() + " on the group: " + b);
      }
      long long x = me, sum = 0, want_sum = std::accumulate(want.begin(), want.end(), 0LL);
      if (!g.allreduce(std::span<const long long>(&x, 1), std::span<long long>(&sum, 1), Op::sum).ok() ||
          sum != want_sum)
        fail("the group's allreduce after");
    });
    EXPECT_EQ(bad, "");
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, Split,
                         ::testing::Values(Config{"here4", "", 4, MapBy::core, "", "", ""},
                                           Config{"rome8", "rome", 8, MapBy::scatter, "", "", ""},
                                           Config{"here5_vh", "", 5, MapBy::core, "?2", "", ""}),
                         [](const auto& p) { return p.param.name; });

// dup: every rank, in order; the parent's per-operation profile comes along.
TEST(Dup, KeepsOrderSettingsAndProfiles) {
  auto tt = make_teams(Config{"rome8", "rome", 8, MapBy::scatter, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  std::mutex m;
  std::vector<std::string> errors;
  on_all(tt, [&](Team& t) {
    Status st = t.configure({}, {{OpKind::bcast, {{"OSMP_VH", "?4"}}}});
    auto d = t.dup();
    std::lock_guard lock(m);
    if (!st.ok()) return errors.push_back(st.to_string());
    if (!d.ok()) return errors.push_back(d.status().to_string());
    if (d->rank() != t.rank() || d->size() != t.size()) errors.push_back("order");
    if (d->vh(OpKind::bcast) != t.vh(OpKind::bcast) || d->vh(OpKind::reduce) != t.vh(OpKind::reduce))
      errors.push_back("profiles: bcast '" + d->vh(OpKind::bcast) + "', parent '" + t.vh(OpKind::bcast) + "'");
  });
  EXPECT_TRUE(errors.empty()) << errors.front();
}

// Many alive at once, used in turn, then dropped in another order.
TEST(Split, ManyAlive) {
  auto tt = make_teams(Config{"here4", "", 4, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  std::mutex m;
  std::string bad;
  on_all(tt, [&](Team& t) {
    std::vector<Team> subs;
    for (int i = 0; i < 24; ++i) {
      Result<Team> s = Status(Errc::not_found, "not made");
      if (i % 2) {
        auto g = t.split(t.rank() % 2, -t.rank());
        if (g.ok())
          s = std::move(**g);
        else
          s = g.status();
      } else {
        s = t.dup();
      }
      if (!s.ok()) {  // every rank's error alike: none goes on
        std::lock_guard lock(m);
        bad = s.status().to_string();
        return;
      }
      subs.push_back(std::move(s).value());
    }
    for (std::size_t i = subs.size(); i-- > 0;) {
      int v = 1, n = 0;
      if (!subs[i].allreduce(std::span<const int>(&v, 1), std::span<int>(&n, 1), Op::sum).ok() || n != subs[i].size()) {
        std::lock_guard lock(m);
        bad = "team " + std::to_string(i);
      }
    }
  });
  EXPECT_EQ(bad, "");
}

}  // namespace
}  // namespace osmp::test
