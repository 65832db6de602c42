// Changing the virtual hierarchy (and the base cases) while the team runs:
// every rank switches at the same point, results stay exact, mismatches are
// errors on every rank, nothing leaks (label sim).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include <mutex>
#include <random>

#include "api/access.hpp"
#include "collectives/types.hpp"
#include "support/collective_suite.hpp"
#include "support/shm_probe.hpp"
#include "team/team.hpp"
#include "team_api_harness.hpp"

namespace osmp {
namespace {

using test::Config;

// Runs fn on every rank and collects the statuses by rank.
std::vector<Status> on_all_status(test::ThreadTeams& tt, const std::function<Status(Team&)>& fn) {
  std::mutex m;
  std::vector<Status> got(tt.teams.size());
  test::on_all(tt, [&](Team& t) {
    Status st = fn(t);
    std::lock_guard lock(m);
    got[static_cast<std::size_t>(t.rank())] = st;
  });
  return got;
}

// Every op, root and in-place form, on two types (the full matrix runs in
// collectives_test; here the tree changes between runs).
std::vector<test::CollCase> some_cases(int n, const std::vector<std::int64_t>& sizes, bool all_roots) {
  std::vector<test::CollCase> out;
  for (const auto& c : test::matrix(n, sizes, all_roots, {4096}))
    if (c.type == Datatype::int32 || c.type == Datatype::float64) out.push_back(c);
  return out;
}

// The level names of the team's tree, top-down.
std::vector<std::string> level_names(const Team& t) {
  std::vector<std::string> out;
  for (const auto& l : core_of(t).tree().levels()) out.push_back(l.name);
  return out;
}

TEST(Reconfigure, DegreeChangeRebuildsTheTreeOnEveryRank) {
  auto tt = test::make_teams({"cl16", "cascadelake", 16, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  auto cases = some_cases(16, {0, 7}, false);
  EXPECT_EQ(test::run_cases(tt, cases, 1), "");
  for (const char* spec : {"Package:2", "Package:4", "Package:7", "", "?3", "auto"}) {
    auto st = on_all_status(tt, [&](Team& t) { return t.set_vh(spec); });
    for (const auto& s : st) ASSERT_TRUE(s.ok()) << spec << ": " << s.to_string();
    for (auto& t : tt.teams) {
      EXPECT_EQ(t->vh(OpKind::allreduce), spec);
      EXPECT_EQ(level_names(*t), level_names(*tt.teams[0]));
      EXPECT_TRUE(core_of(*t).tree().check().ok());
    }
    EXPECT_EQ(test::run_cases(tt, cases, 2), "") << "after set_vh(" << spec << ")";
  }
  EXPECT_EQ(tt.teams[0]->generation(), 6u);
  // 16 processes by core fill part of package 0 (Package = Machine): Package:7
  // gives 7 virtual domains of 2-3 processes.
  on_all_status(tt, [](Team& t) { return t.set_vh("Package:7"); });
  const auto* v = core_of(*tt.teams[0]).tree().level("Machine-v1");
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->is_virtual);
  EXPECT_EQ(v->domains, 7);
  EXPECT_EQ(v->groups, 7);
}

TEST(Reconfigure, EveryRankSwitchesAfterTheSameCollective) {
  auto tt = test::make_teams({"here5", "", 5, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  test::on_all(tt, [](Team& t) {
    for (int i = 0; i < 4; ++i) (void)t.barrier();
  });
  auto st = on_all_status(tt, [](Team& t) { return t.set_vh("?2"); });
  for (const auto& s : st) ASSERT_TRUE(s.ok()) << s.to_string();
  for (auto& t : tt.teams) EXPECT_EQ(t->switched_after(), tt.teams[0]->switched_after());
  EXPECT_EQ(tt.teams[0]->switched_after(), 4u);
}

TEST(Reconfigure, PerOperationSpecsRunOnTheirOwnTree) {
  auto tt = test::make_teams({"rome16", "rome", 16, MapBy::scatter, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  auto st = on_all_status(tt, [](Team& t) {
    return t.configure({}, {{OpKind::reduce, {{"OSMP_VH", "?2"}, {"OSMP_BASE_CASE", "knomial:2"}}},
                            {OpKind::allreduce, {{"OSMP_VH", "?2"}, {"OSMP_BASE_CASE", "knomial:2"}}},
                            {OpKind::bcast, {{"OSMP_VH", "?4"}}}});
  });
  for (const auto& s : st) ASSERT_TRUE(s.ok()) << s.to_string();
  for (auto& t : tt.teams) {
    EXPECT_EQ(t->views(), 3);  // base, reduce+allreduce (one profile), bcast
    EXPECT_EQ(t->vh(OpKind::reduce), "?2");
    EXPECT_EQ(t->vh(OpKind::bcast), "?4");
    EXPECT_EQ(t->vh(OpKind::gather), "");
  }
  EXPECT_EQ(test::run_cases(tt, some_cases(16, {0, 1, 7}, true), 3), "");
  // Setting every operation again folds them back into one view.
  st = on_all_status(tt, [](Team& t) { return t.configure({{"OSMP_VH", ""}, {"OSMP_BASE_CASE", "auto"}}); });
  for (const auto& s : st) ASSERT_TRUE(s.ok()) << s.to_string();
  for (auto& t : tt.teams) EXPECT_EQ(t->views(), 1);
}

TEST(Reconfigure, DifferentSpecsAreAMismatchOnEveryRankAndChangeNothing) {
  auto tt = test::make_teams({"here4", "", 4, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  auto st = on_all_status(tt, [](Team& t) { return t.set_vh(t.rank() == 2 ? "?2" : "?3"); });
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(st[static_cast<std::size_t>(r)].code(), Errc::mismatch) << st[static_cast<std::size_t>(r)].to_string();
    EXPECT_EQ(st[static_cast<std::size_t>(r)].message(),
              "configure: ranks disagree on the settings: rank 2 asked for "
              "'OSMP_VH=?2', ranks 0-1,3 asked for 'OSMP_VH=?3'");
  }
  for (auto& t : tt.teams) EXPECT_EQ(t->vh(OpKind::barrier), "");
  EXPECT_EQ(test::run_cases(tt, test::matrix(4, {7}, false), 4), "");
  // Per-operation on one rank only: also a mismatch.
  st = on_all_status(tt, [](Team& t) { return t.rank() == 0 ? t.set_vh(OpKind::reduce, "?2") : t.set_vh("?2"); });
  for (const auto& s : st) {
    EXPECT_EQ(s.code(), Errc::mismatch) << s.to_string();
    EXPECT_EQ(s.message(),
              "configure: ranks disagree on the settings: rank 0 asked for 'reduce: OSMP_VH=?2', "
              "ranks 1-3 asked for 'OSMP_VH=?2'");
  }
  EXPECT_EQ(test::run_cases(tt, test::matrix(4, {7}, false), 5), "");
}

TEST(Reconfigure, BadSettingsOnOneRankAreAnErrorOnEveryRank) {
  auto tt = test::make_teams({"cl8", "cascadelake", 8, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  struct Bad {
    std::function<Status(Team&)> fn;
    std::string text;
  } cases[] = {
      {[](Team& t) { return t.set_vh(t.rank() == 3 ? "Package:0" : "Package:2"); }, "Package:0"},
      {[](Team& t) { return t.set_vh(t.rank() == 1 ? "Frob:2" : "Package:2"); }, "Frob"},
      {[](Team& t) {
         return t.configure({{"OSMP_NO_SUCH", "1"}});
       },
       "OSMP_NO_SUCH"},
      {[](Team& t) {
         return t.configure({}, {{OpKind::bcast, {{"OSMP_CMA_MIN", "1M"}}}});
       },
       "team-wide"},
      {[](Team& t) {
         return t.configure({{"OSMP_FLAT_MAX", t.rank() ? "4" : "zero"}});
       },
       "OSMP_FLAT_MAX"},
      {[](Team& t) {
         return t.configure({}, {{OpKind::reduce, {{"OSMP_BASE_CASE", "binomial"}}}});
       },
       "binomial"},
  };
  for (const auto& c : cases) {
    auto st = on_all_status(tt, c.fn);
    for (int r = 0; r < 8; ++r) {
      const Status& s = st[static_cast<std::size_t>(r)];
      EXPECT_EQ(s.code(), Errc::invalid_argument) << s.to_string();
      EXPECT_NE(s.message().find(c.text), std::string::npos) << "rank " << r << ": " << s.message();
    }
    for (auto& t : tt.teams) EXPECT_EQ(t->generation(), 0u);
  }
  EXPECT_EQ(test::run_cases(tt, test::matrix(8, {7}, false), 6), "");
}

// Many changes in the middle of a long randomized run, with odd sizes; every
// result is checked element by element against the sequential reference, the
// same reference a run without changes meets. Nothing stays mapped or named.
TEST(Reconfigure, ManyChangesInALongRandomRun) {
  const int n = 7;
  auto tt = test::make_teams({"rome7", "rome", n, MapBy::scatter, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  const int mappings_before = test::osmp_mappings();
  const std::string job = cat(std::hex, core_of(*tt.teams[0]).job_id());
  std::mt19937 rng(2026);
  const char* specs[] = {"", "?2", "?3", "auto", "Package:2", "NUMANode:2", "Machine:3"};
  const char* bases[] = {"auto", "flat", "knomial:2", "knomial:3"};
  const std::int64_t sizes[] = {0, 1, 3, 7, 31, 1000, 4097, 20000};
  int changes = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<test::CollCase> cases;
    for (int i = 0; i < 25; ++i) {
      test::CollCase c;
      c.kind = kOpKinds[rng() % std::size(kOpKinds)];
      c.type = static_cast<Datatype>(rng() % kDatatypeCount);
      do c.op = static_cast<Op>(rng() % kOpCount);
      while (!defined_for(c.op, c.type));
      c.count = sizes[rng() % std::size(sizes)];
      c.root = static_cast<int>(rng() % n);
      c.in_place = c.kind != OpKind::bcast && rng() % 3 == 0;
      cases.push_back(c);
    }
    ASSERT_EQ(test::run_cases(tt, cases, static_cast<std::uint32_t>(round)), "") << "round " << round;
    Settings all;
    std::map<OpKind, Settings> per_op;
    if (rng() % 2) all["OSMP_VH"] = specs[rng() % std::size(specs)];
    if (rng() % 3 == 0) all["OSMP_BASE_CASE"] = bases[rng() % std::size(bases)];
    if (rng() % 2) per_op[kOpKinds[rng() % std::size(kOpKinds)]]["OSMP_VH"] = specs[rng() % std::size(specs)];
    auto st = on_all_status(tt, [&](Team& t) { return t.configure(all, per_op); });
    for (const auto& s : st) ASSERT_TRUE(s.ok()) << "round " << round << ": " << s.to_string();
    ++changes;
  }
  EXPECT_EQ(tt.teams[0]->generation(), static_cast<std::uint64_t>(changes));
  // Back to one view: the same mappings as at the start, no names left.
  auto st = on_all_status(tt, [](Team& t) { return t.configure({{"OSMP_VH", ""}, {"OSMP_BASE_CASE", "auto"}}); });
  for (const auto& s : st) ASSERT_TRUE(s.ok()) << s.to_string();
  for (auto& t : tt.teams) EXPECT_EQ(t->views(), 1);
  EXPECT_EQ(test::osmp_mappings(), mappings_before);
  EXPECT_EQ(test::shm_entries(job), 0);
}

TEST(Reconfigure, ATeamOfOneChecksButHasNothingToRebuild) {
  auto tt = test::make_teams({"one", "", 1, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  EXPECT_TRUE(tt.teams[0]->set_vh("?2").ok());
  EXPECT_EQ(tt.teams[0]->set_vh("Package:0").code(), Errc::invalid_argument);
}

}  // namespace
}  // namespace osmp
