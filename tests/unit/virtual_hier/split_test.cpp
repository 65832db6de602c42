#include "virtual_hier/split.hpp"

#include <gtest/gtest.h>

#include <random>

#include "support/machines.hpp"

namespace osmp {
namespace {

std::vector<int> runs(std::vector<int> weights, int parts) { return balanced_runs(weights, parts); }

TEST(BalancedRuns, EqualWeights) {
  EXPECT_EQ(runs(std::vector<int>(28, 1), 2), (std::vector<int>{14, 14}));
  EXPECT_EQ(runs(std::vector<int>(28, 1), 4), (std::vector<int>{7, 7, 7, 7}));
  EXPECT_EQ(runs(std::vector<int>(28, 1), 7), (std::vector<int>(7, 4)));
  EXPECT_EQ(runs(std::vector<int>(7, 1), 2), (std::vector<int>{4, 3}));
  EXPECT_EQ(runs(std::vector<int>(3, 1), 5), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(runs(std::vector<int>(5, 1), 1), (std::vector<int>{5}));
}

TEST(BalancedRuns, UnequalWeightsNeverEmpty) {
  EXPECT_EQ(runs({8, 1, 1, 1, 1}, 2), (std::vector<int>{1, 4}));
  EXPECT_EQ(runs({1, 1, 1, 1, 8}, 2), (std::vector<int>{4, 1}));
  std::mt19937 rng(7);
  for (int i = 0; i < 1000; ++i) {
    int n = 1 + static_cast<int>(rng() % 40);
    std::vector<int> w;
    for (int j = 0; j < n; ++j) w.push_back(1 + static_cast<int>(rng() % 5));
    int parts = 1 + static_cast<int>(rng() % 10);
    auto r = balanced_runs(w, parts);
    EXPECT_EQ(static_cast<int>(r.size()), std::min(parts, n));
    int total = 0;
    for (int x : r) {
      EXPECT_GE(x, 1);
      total += x;
    }
    EXPECT_EQ(total, n);
  }
}

class CascadeLake : public ::testing::Test {
 protected:
  Topology topo = test::load("cascadelake");
  Tree with(const std::string& spec, int n = 56) {
    return test::tree_for(topo.machine(), n, MapBy::core, BindTo::core, spec);
  }
};

// Figure 5: the 28-core socket split into 2, 4 and 7 virtual domains.
TEST_F(CascadeLake, Figure5Degrees) {
  EXPECT_EQ(test::level_summary(with("Package:2")), "Machine 1x2 Package 2x2 Package-v1 4x14");
  EXPECT_EQ(test::level_summary(with("Package:4")), "Machine 1x2 Package 2x4 Package-v1 8x7");
  EXPECT_EQ(test::level_summary(with("Package:7")), "Machine 1x2 Package 2x7 Package-v1 14x4");
  Tree t = with("Socket:4");
  auto v = t.domains_of("Package-v1");
  ASSERT_EQ(v.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    const Domain& d = t.domain(v[static_cast<std::size_t>(i)]);
    EXPECT_TRUE(d.is_virtual);
    EXPECT_EQ(d.logical_index, i);
    EXPECT_EQ(d.members.front(), 7 * i);
    EXPECT_EQ(d.members.size(), 7u);
    EXPECT_EQ(d.cpuset.count(), 7u);  // the union of its cores
    EXPECT_EQ(t.domain(d.parent).level, "Package");
  }
  EXPECT_EQ(t.domain(t.domains_of("Package")[1]).group, (std::vector<int>{28, 35, 42, 49}));
  // A rank's path now goes through its virtual domain.
  auto gp = t.group_path(30);
  ASSERT_EQ(gp.size(), 3u);
  EXPECT_EQ(t.domain(gp[0]).level, "Package-v1");
  EXPECT_EQ(t.domain_at(30, "Package-v1"), gp[0]);
}

TEST_F(CascadeLake, DegreeOneChangesNothing) {
  Tree plain = with("");
  Tree one = with("Package:1");
  EXPECT_EQ(test::level_summary(one), test::level_summary(plain));
  EXPECT_EQ(one.domains().size(), plain.domains().size());
}

TEST_F(CascadeLake, DegreeAboveMembersGivesOneEach) {
  Tree t = with("Package:100", 8);  // 8 ranks on package 0
  EXPECT_EQ(test::level_summary(t), "Machine 1x8");
  Tree plain = with("", 8);
  EXPECT_EQ(t.domains().size(), plain.domains().size());
}

TEST_F(CascadeLake, AutoAndMaxMembers) {
  EXPECT_EQ(test::level_summary(with("auto")), "Machine 1x2 Package 2x4 Package-v1 8x7");
  EXPECT_EQ(test::level_summary(with("?4")), "Machine 1x2 Package 2x2 Package-v1 4x3-4 Package-v2 14x4");
  EXPECT_EQ(test::level_summary(with("Package?14")), "Machine 1x2 Package 2x2 Package-v1 4x14");
  for (const char* spec : {"?2", "?3", "?5", "auto"}) {
    Tree t = with(spec);
    int limit = spec == std::string("auto") ? kAutoMaxMembers : spec[1] - '0';
    for (const auto& d : t.domains()) EXPECT_LE(static_cast<int>(d.group.size()), limit) << spec;
  }
}

TEST_F(CascadeLake, NestedSplits) {
  // L3 and Package are the same domain here; the inner level splits first.
  EXPECT_EQ(test::level_summary(with("L3:4,Package:2")), "Machine 1x2 Package 2x2 Package-v1 4x2 Package-v2 8x7");
  EXPECT_EQ(test::level_summary(with("Package:2,?4")), "Machine 1x2 Package 2x2 Package-v1 4x4 Package-v2 16x3-4");
}

TEST_F(CascadeLake, UnknownLevelListsTheValidOnes) {
  auto spec = parse_spec("Die:2");
  ASSERT_TRUE(spec.ok());
  auto places = place_ranks(topo.machine(), {56, MapBy::core, BindTo::core, false});
  auto t = build_tree(topo.machine(), *places, {}, *spec);
  ASSERT_FALSE(t.ok());
  const std::string& msg = t.status().message();
  EXPECT_NE(msg.find("unknown level 'Die'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Machine, Package, NUMANode, L3Cache"), std::string::npos) << msg;
  auto foo = build_tree(topo.machine(), *places, {}, *parse_spec("Foo:2"));
  ASSERT_FALSE(foo.ok());
  EXPECT_NE(foo.status().message().find("'Foo'"), std::string::npos);
}

TEST(VirtualSplit, RespectsChildDomains) {
  // Rome: splitting a NUMA node in 2 keeps its CCXs whole: 2 CCX per part.
  Topology rome = test::load("rome");
  Tree t = test::tree_for(rome.machine(), 128, MapBy::core, BindTo::core, "NUMANode:2");
  EXPECT_EQ(test::level_summary(t), "Machine 1x2 Package 2x4 NUMANode 8x2 NUMANode-v1 16x2 L3Cache 32x4");
  // Degree above the CCX count: each CCX is its own part, nothing added.
  Tree t8 = test::tree_for(rome.machine(), 128, MapBy::core, BindTo::core, "NUMANode:8");
  EXPECT_EQ(test::level_summary(t8), "Machine 1x2 Package 2x4 NUMANode 8x4 L3Cache 32x4");
}

TEST(VirtualSplit, UnboundProcessesAreSplitToo) {
  Topology rome = test::load("rome");
  Tree t = test::tree_for(rome.machine(), 16, MapBy::core, BindTo::none, "auto");
  EXPECT_EQ(test::level_summary(t), "Machine 1x2 Machine-v1 2x8");
  Tree m3 = test::tree_for(rome.machine(), 16, MapBy::core, BindTo::none, "Machine:3");
  EXPECT_EQ(test::level_summary(m3), "Machine 1x3 Machine-v1 3x5-6");
}

TEST(VirtualSplit, RandomSpecsKeepInvariants) {
  std::mt19937 rng(99);
  Topology topo = test::load("Package:2 [NUMANode] L3Cache:3 Core:5 PU:2");
  const char* specs[] = {"auto",   "?2",        "?3",     "Package:2", "L3:2",          "Package:3,L3:2",
                         "NUMA:4", "Machine:2", "Core:2", "PU:2,?3",   "Package?3,L3?2"};
  for (int i = 0; i < 200; ++i) {
    int n = 1 + static_cast<int>(rng() % 70);
    std::vector<CpuSet> places;
    for (int r = 0; r < n; ++r) {
      const auto& node = topo.machine().nodes[rng() % topo.machine().nodes.size()];
      places.push_back(node.cpuset);
    }
    const char* spec = specs[rng() % std::size(specs)];
    Tree plain = test::tree_from_places(topo.machine(), places, "", true);
    Tree t = test::tree_from_places(topo.machine(), places, spec, true);
    // Virtual levels only add domains; every physical domain survives.
    for (const auto& d : plain.domains()) {
      bool found = false;
      for (const auto& v : t.domains()) found |= (!v.is_virtual && v.members == d.members);
      EXPECT_TRUE(found) << spec;
    }
  }
}

// Items that cannot apply are reported with the values that would (issue 16):
// a degree at or above a domain's member count, degree 1, a limit no group
// exceeds, a level no domain of the tree stands for.
SpecReport report_of(const MachineTree& m, int n, const std::string& spec) {
  SpecReport report;
  std::vector<CpuSet> places;
  for (int c : m.cores()) {
    if (static_cast<int>(places.size()) == n) break;
    places.push_back(m.nodes[static_cast<std::size_t>(c)].cpuset);
  }
  auto t = build_tree(m, places, {}, *parse_spec(spec), &report);
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return report;
}

std::vector<std::string> notes(const MachineTree& m, int n, const std::string& spec) {
  return ineffective_items(report_of(m, n, spec));
}

TEST(SpecReport, DegreesThatCannotSplit) {
  Topology t12 = test::load("Package:2 L3Cache:12 Core:8 PU:1");  // 12 CCDs of 8 cores
  const MachineTree& m = t12.machine();
  EXPECT_EQ(notes(m, 192, "Package:13"),
            (std::vector<std::string>{"'Package:13' had no effect: no Package domain has more than 12 members here; "
                                      "Package:2 .. Package:11 would split it"}));
  EXPECT_EQ(notes(m, 192, "Package:12").size(), 1u);
  EXPECT_TRUE(notes(m, 192, "Package:11").empty());
  EXPECT_EQ(notes(m, 192, "L3:9"),
            (std::vector<std::string>{"'L3:9' had no effect: no L3Cache domain has more than 8 members here; "
                                      "L3Cache:2 .. L3Cache:7 would split it"}));
  EXPECT_EQ(notes(m, 192, "L3?8,Package:4"),
            (std::vector<std::string>{"'L3?8' had no effect: no L3Cache domain has more than 8 members here; "
                                      "L3Cache?2 .. L3Cache?7 would split it"}));
  EXPECT_EQ(notes(m, 192, "Package:1").size(), 1u);
  EXPECT_EQ(notes(m, 192, "?16"),
            (std::vector<std::string>{"'?16' had no effect: no group has more than 12 members here; ?2 .. ?11 would "
                                      "split it"}));
  // 3 processes in one L3: the root stands for Machine, Package and L3 and
  // has 3 members; L3:3 (innermost, first) cannot split them, Package:2 can.
  EXPECT_EQ(notes(m, 3, "L3:2").size(), 0u);
  SpecReport r = report_of(m, 3, "Package:2,L3:3");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].split, 1);
  EXPECT_EQ(r[1].max_members, 3);
  EXPECT_EQ(r[1].split, 0);
}

TEST(SpecReport, SharedMachines) {
  // Naples: a NUMA node (die) holds 2 L3s of 3 cores: no degree splits it.
  Topology naples = test::load(test::data_path("topologies/amd-epyc7451-naples-2x24c-8numa.xml"));
  EXPECT_EQ(notes(naples.machine(), 48, "NUMA:3"),
            (std::vector<std::string>{"'NUMA:3' had no effect: no NUMANode domain has more than 2 members here; no "
                                      "value would split it"}));
  EXPECT_TRUE(notes(naples.machine(), 48, "Package:3").empty());
  // Cascade Lake SNC2, one process per core: a core holds one process; the
  // cores' second PUs are in no tree domain.
  Topology clx = test::load(test::data_path("topologies/intel-cascadelake-2x20c-gold6230-snc2-memcache.xml"));
  EXPECT_EQ(notes(clx.machine(), 40, "Core:2"),
            (std::vector<std::string>{"'Core:2' had no effect: no Core domain has more than 1 member here; no value "
                                      "would split it"}));
  auto n = notes(clx.machine(), 40, "PU:2");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_NE(n[0].find("no domain of this tree stands for PU"), std::string::npos) << n[0];
}

// An item reported as having no effect can go without changing the tree, and
// a lone item reported as having one changes it.
TEST(SpecReport, AgreesWithTheTrees) {
  Topology topo = test::load("Package:2 [NUMANode] L3Cache:3 Core:5 PU:2");
  const MachineTree& m = topo.machine();
  const char* specs[] = {"Package:2", "Package:3", "Package:4", "L3:5",      "L3:6", "L3:2,Package:2", "?3", "?16",
                         "NUMA:2",    "Core:2",    "Machine:2", "Package?3", "PU:2"};
  for (int n : {1, 2, 7, 15, 30}) {
    Tree plain = test::tree_for(m, n);
    for (const char* spec : specs) {
      SpecReport report = report_of(m, n, spec);
      VhSpec parsed = *parse_spec(spec);
      Tree full = test::tree_for(m, n, MapBy::core, BindTo::core, spec);
      for (std::size_t i = 0; i < report.size(); ++i) {
        VhSpec without = parsed;
        without.items.erase(without.items.begin() + static_cast<long>(i));
        Tree less = *apply_spec(plain, without);
        if (report[i].split == 0) {
          EXPECT_EQ(test::level_summary(less), test::level_summary(full)) << spec << " n=" << n;
        } else if (report.size() == 1) {
          EXPECT_NE(test::level_summary(plain), test::level_summary(full)) << spec << " n=" << n;
        }
      }
    }
  }
}

}  // namespace
}  // namespace osmp
