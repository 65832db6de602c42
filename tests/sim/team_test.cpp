// Team creation with ranks as threads (label sim).
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "team_harness.hpp"

namespace osmp {
namespace {

// Entries of the shm directory: segments have no names, so creating and
// destroying teams must leave this number alone.
int shm_dir_entries() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(shm_dir())) ++n;
  return n;
}

void expect_all_ok(const std::vector<test::RankResult>& teams) {
  for (std::size_t r = 0; r < teams.size(); ++r)
    ASSERT_TRUE(teams[r].status.ok()) << "rank " << r << ": " << teams[r].status.to_string();
}

TEST(TeamCore, OddSizesOnThisMachine) {
  for (int n : {1, 2, 3, 5, 11}) {
    auto teams = test::create_teams(n, [](int) { return TeamOptions{}; });
    expect_all_ok(teams);
    for (int r = 0; r < n; ++r) {
      TeamCore& t = *teams[static_cast<std::size_t>(r)].team;
      EXPECT_EQ(t.rank(), r);
      EXPECT_EQ(t.size(), n);
      EXPECT_TRUE(t.tree().check().ok());
      EXPECT_EQ(t.team_id(), teams[0].team->team_id());
    }
  }
}

TEST(TeamCore, RomeGroupsAndSegments) {
  constexpr int n = 16;
  const int entries = shm_dir_entries();
  auto teams = test::create_teams(n, test::placed_on("rome", n, MapBy::scatter));
  expect_all_ok(teams);
  EXPECT_EQ(shm_dir_entries(), entries) << "segments must have no names";
  EXPECT_EQ(test::osmp_descriptors(), 0) << "creators drop their descriptors once everyone attached";
  TeamCore& t0 = *teams[0].team;
  EXPECT_NE(t0.topology_description().find("not this system"), std::string::npos);
  // Scattered: rank 0 is in its NUMA group {0,8}, package group, machine group.
  ASSERT_EQ(t0.groups().size(), 3u);
  EXPECT_EQ(t0.groups()[0].members, (std::vector<int>{0, 8}));
  EXPECT_EQ(t0.groups()[2].members, (std::vector<int>{0, 1}));
  // Every member of a group sees what its leader writes into the segment.
  for (auto& g : t0.groups()) {
    EXPECT_TRUE(g.leader());
    g.leader_line(0).inline_data[0] = std::byte{static_cast<unsigned char>(g.domain)};
  }
  for (auto& rr : teams) {
    for (auto& g : rr.team->groups()) {
      EXPECT_EQ(g.unit_of_rank[static_cast<std::size_t>(rr.team->rank())], g.me);
      if (g.members.front() != 0) continue;
      EXPECT_EQ(g.leader_line(0).inline_data[0], std::byte{static_cast<unsigned char>(g.domain)});
    }
  }
  // Rank 9 leads nothing but maps every group on its path: {1,9}, package 1,
  // machine, so that it can act for its units when it is a collective's root.
  TeamCore& t9 = *teams[9].team;
  ASSERT_EQ(t9.groups().size(), 3u);
  EXPECT_FALSE(t9.groups()[0].leader());
  EXPECT_TRUE(t9.groups()[0].leads_unit());   // alone in its core
  EXPECT_FALSE(t9.groups()[1].leads_unit());  // its NUMA node is led by rank 1
  EXPECT_EQ(t9.groups()[0].members, (std::vector<int>{1, 9}));
  EXPECT_EQ(t9.groups()[2].members, (std::vector<int>{0, 1}));
  EXPECT_EQ(t9.groups()[2].me, 1);
  EXPECT_EQ(t9.groups()[2].actor(1, -1), 1);
  EXPECT_EQ(t9.groups()[2].actor(1, 9), 9);  // rooted at 9: rank 9 acts for package 1
  EXPECT_EQ(t9.groups()[2].actor(0, 9), 0);
}

TEST(TeamCore, DestroyLeavesNothing) {
  const int entries = shm_dir_entries();
  const int mappings = test::osmp_mappings();
  {
    auto teams = test::create_teams(8, test::placed_on("cascadelake", 8, MapBy::core, "Package:4"));
    expect_all_ok(teams);
    EXPECT_GT(teams[0].team->shm_bytes(), 0u);
    EXPECT_GT(test::osmp_mappings(), mappings);
  }
  EXPECT_EQ(shm_dir_entries(), entries);
  EXPECT_EQ(test::osmp_mappings(), mappings);
  EXPECT_EQ(test::osmp_descriptors(), 0);
}

TEST(TeamCore, TwoTeamsInOneProcessDoNotCollide) {
  std::uint64_t job = random_id();
  ThreadJob tj(4, job);
  std::vector<std::unique_ptr<TeamCore>> a(4), b(4);
  std::vector<std::thread> th;
  for (int r = 0; r < 4; ++r) {
    th.emplace_back([&, r] {
      ThreadBootstrap boot(tj, r);
      auto ta = TeamCore::create(boot, TeamOptions{});
      auto tb = TeamCore::create(boot, TeamOptions{});
      ASSERT_TRUE(ta.ok() && tb.ok());
      a[static_cast<std::size_t>(r)] = std::move(ta).value();
      b[static_cast<std::size_t>(r)] = std::move(tb).value();
    });
  }
  for (auto& t : th) t.join();
  ASSERT_TRUE(a[0] && b[0]);
  EXPECT_NE(a[0]->team_id(), b[0]->team_id());
  // Writes to one team's segments never show in the other's.
  a[0]->groups()[0].leader_line(0).inline_data[5] = std::byte{1};
  EXPECT_EQ(b[1]->groups()[0].leader_line(0).inline_data[5], std::byte{0});
  EXPECT_EQ(a[1]->groups()[0].leader_line(0).inline_data[5], std::byte{1});
}

TEST(TeamCore, DifferentSettingsNameTheRanksThatDifferAndTheirValues) {
  // The odd rank anywhere, rank 0 included; each side's value.
  for (int odd : {2, 0, 3}) {
    auto teams = test::create_teams(4, [odd](int r) {
      TeamOptions o;
      if (r == odd) o.vh = "auto";
      return o;
    });
    const std::string rest = odd == 0 ? "1-3" : odd == 2 ? "0-1,3" : "0-2";
    for (auto& t : teams) {
      ASSERT_FALSE(t.status.ok());
      EXPECT_EQ(t.status.code(), Errc::mismatch);
      EXPECT_NE(t.status.message().find("ranks disagree on the virtual hierarchy (OSMP_VH): rank " +
                                        std::to_string(odd) + " got 'auto', ranks " + rest + " got none"),
                std::string::npos)
          << t.status.message();
    }
  }
  // Two settings differ, on a tie of 1 against 1, and on 2 against 1.
  auto teams = test::create_teams(3, [](int r) {
    TeamOptions o;
    if (r == 1) o.wait = WaitPolicy::spin;
    if (r == 1) o.slot_bytes = 8192;
    return o;
  });
  for (auto& t : teams) {
    EXPECT_NE(t.status.message().find("ranks disagree on the wait policy (OSMP_WAIT): rank 1 got spin, ranks 0,2 got "
                                      "auto; on the slot size (OSMP_SLOT_SIZE): rank 1 got 8192, ranks 0,2 got 65536"),
              std::string::npos)
        << t.status.message();
  }
}

TEST(TeamCore, BadSpecFailsEverywhere) {
  auto teams = test::create_teams(3, [](int) {
    TeamOptions o;
    o.vh = "Package:zero";
    return o;
  });
  for (auto& t : teams) {
    ASSERT_FALSE(t.status.ok());
    EXPECT_NE(t.status.message().find("Package:zero"), std::string::npos) << t.status.message();
  }
}

TEST(TeamCore, BadTopologyFailsEverywhere) {
  auto teams = test::create_teams(3, [](int) {
    TeamOptions o;
    o.topology = TopologySource::xml_file("/nonexistent/topo.xml");
    return o;
  });
  for (auto& t : teams) {
    ASSERT_FALSE(t.status.ok());
    EXPECT_NE(t.status.message().find("/nonexistent/topo.xml"), std::string::npos) << t.status.message();
  }
  EXPECT_NE(teams[1].status.message().find("rank 0:"), std::string::npos) << teams[1].status.message();
}

TEST(TeamCore, SharedMemoryLimit) {
  const int mappings = test::osmp_mappings();
  auto teams = test::create_teams(4, [](int) {
    TeamOptions o;
    o.shm_limit = 64 * 1024;
    return o;
  });
  for (auto& t : teams) {
    ASSERT_FALSE(t.status.ok());
    EXPECT_EQ(t.status.code(), Errc::no_space);
    EXPECT_NE(t.status.message().find("OSMP_SHM_LIMIT"), std::string::npos) << t.status.message();
  }
  EXPECT_EQ(test::osmp_mappings(), mappings);
  EXPECT_EQ(test::osmp_descriptors(), 0);
}

// A tiny tmpfs, as in a container: a clear error naming the size, no SIGBUS.
TEST(TeamCore, FullTmpfs) {
  std::string dir = "/tmp/osmp-tiny-shm-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=256k") != 0) {
    std::filesystem::remove(dir);
    GTEST_SKIP() << "cannot mount a tmpfs here (not root?); the OSMP_SHM_LIMIT test covers the API";
  }
  ::setenv("OSMP_SHM_DIR", dir.c_str(), 1);
  auto teams = test::create_teams(4, [](int) { return TeamOptions{}; });
  ::unsetenv("OSMP_SHM_DIR");
  for (auto& t : teams) {
    ASSERT_FALSE(t.status.ok());
    EXPECT_EQ(t.status.code(), Errc::no_space);
    EXPECT_NE(t.status.message().find("not enough shared memory in " + dir), std::string::npos) << t.status.message();
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  ::umount(dir.c_str());
  std::filesystem::remove(dir);
}

TEST(TeamCore, RankFlagsHandOffAndAbort) {
  auto teams = test::create_teams(5, [](int) { return TeamOptions{}; });
  expect_all_ok(teams);
  test::run_on_teams(teams, [](TeamCore& t) {
    int prev = (t.rank() + t.size() - 1) % t.size();
    for (std::uint64_t round = 1; round <= 200; ++round) {
      if (t.rank() != 0) {
        ASSERT_EQ(t.waiter().wait(t.rank_flag(prev), round, prev), WaitStatus::ok);
      } else if (round > 1) {
        ASSERT_EQ(t.waiter().wait(t.rank_flag(prev), round - 1, prev), WaitStatus::ok);
      }
      publish(t.rank_flag(t.rank()), round, t.waiter().may_sleep());
    }
  });
  // Rank 3 aborts; the others, waiting for a flag that never comes, hear of it.
  test::run_on_teams(teams, [](TeamCore& t) {
    if (t.rank() == 3) {
      t.abort();
      return;
    }
    WaitStatus ws = t.waiter().wait(t.rank_flag(3), 1000);
    EXPECT_EQ(ws, WaitStatus::aborted);
    Status st = t.fail(ws);
    EXPECT_EQ(st.code(), Errc::aborted);
    EXPECT_NE(st.message().find("rank 3 aborted the team"), std::string::npos) << st.message();
  });
  EXPECT_FALSE(teams[0].team->usable().ok());
}

}  // namespace
}  // namespace osmp
