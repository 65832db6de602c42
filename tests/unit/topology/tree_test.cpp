// The communication tree on a small machine: 2 packages x 2 L3 x 4 cores x 2 PUs.
// PU os indexes follow the logical order: core c has PUs 2c and 2c+1, L3 j
// holds cores 4j..4j+3 (PUs 8j..8j+7), package p holds PUs 16p..16p+15.
#include <gtest/gtest.h>

#include "support/machines.hpp"

namespace osmp {
namespace {

using test::cpus;

class SmallMachine : public ::testing::Test {
 protected:
  Topology topo = test::load("Package:2 [NUMANode] L3Cache:2 Core:4 PU:2");
  const MachineTree& m = topo.machine();

  std::vector<CpuSet> cores(std::initializer_list<int> ids) {
    std::vector<CpuSet> out;
    for (int c : ids) out.push_back(CpuSet::range(2 * c, 2 * c + 1));
    return out;
  }
};

TEST_F(SmallMachine, FullMachineOnePerCore) {
  Tree t = test::tree_for(m, 16);
  EXPECT_EQ(test::level_summary(t), "Machine 1x2 Package 2x2 L3Cache 4x4");
  EXPECT_EQ(t.root().group, (std::vector<int>{0, 8}));
  // Package and NUMANode hold the same processes: one domain with both names.
  int pkg = *t.domain_at(5, "Package");
  EXPECT_EQ(t.domain_at(5, "NUMANode"), pkg);
  EXPECT_EQ(t.domain_at(5, "Socket"), pkg);
  EXPECT_EQ(t.domain(pkg).group, (std::vector<int>{0, 4}));
  int l3 = *t.domain_at(5, "L3");
  EXPECT_EQ(t.domain(l3).group, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(t.domain(l3).leader, 4);
  EXPECT_EQ(t.domain(l3).cpuset, cpus("8-15"));
  // A rank alone in its core: the core-level domain is its own leaf.
  int leaf = t.leaf(5);
  EXPECT_EQ(t.domain_at(5, "Core"), leaf);
  // Bound to both PUs of its core, it is never placed at the PU level.
  EXPECT_FALSE(t.domain_at(5, "PU").has_value());
  EXPECT_EQ(t.domain(leaf).members, (std::vector<int>{5}));
  EXPECT_FALSE(t.domain(leaf).has_group());
  EXPECT_EQ(t.path(5), (std::vector<int>{leaf, l3, pkg, 0}));
  EXPECT_EQ(t.group_path(5), (std::vector<int>{l3, pkg, 0}));
}

TEST_F(SmallMachine, Queries) {
  Tree t = test::tree_for(m, 16);
  std::vector<int> same_l3{4, 7};
  std::vector<int> same_pkg{1, 6};
  std::vector<int> across{3, 12};
  std::vector<int> one{9};
  EXPECT_EQ(t.domain(*t.lowest_common(same_l3)).level, "L3Cache");
  EXPECT_EQ(t.domain(*t.lowest_common(same_pkg)).level, "Package");
  EXPECT_EQ(*t.lowest_common(across), 0);
  EXPECT_EQ(*t.lowest_common(one), t.leaf(9));
  std::vector<int> none;
  std::vector<int> bad{0, 16};
  EXPECT_FALSE(t.lowest_common(none).ok());
  auto b = t.lowest_common(bad);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("rank 16"), std::string::npos);
  EXPECT_FALSE(t.domain_at(0, "Die").has_value());
  EXPECT_FALSE(t.domain_at(0, "NoSuchLevel").has_value());
  EXPECT_EQ(t.domains_of("L3Cache").size(), 4u);
  ASSERT_NE(t.level("L3Cache"), nullptr);
  EXPECT_EQ(t.level("L3Cache")->groups, 4);
  EXPECT_EQ(t.level("Package")->max_group, 2);
}

TEST_F(SmallMachine, OnePackageOnly) {
  Tree t = test::tree_from_places(m, cores({0, 1, 2, 3, 4, 5, 6, 7}));
  // The Machine holds the same processes as package 0: they merge.
  EXPECT_EQ(test::level_summary(t), "Machine 1x2 L3Cache 2x4");
  EXPECT_TRUE(t.root().stands_for("Package"));
  EXPECT_EQ(t.domain_at(3, "Package"), 0);
}

TEST_F(SmallMachine, EveryOtherCore) {
  Tree t = test::tree_from_places(m, cores({0, 2, 4, 6, 8, 10, 12, 14}));
  EXPECT_EQ(test::level_summary(t), "Machine 1x2 Package 2x2 L3Cache 4x2");
  EXPECT_EQ(t.domain(*t.domain_at(3, "L3Cache")).members, (std::vector<int>{2, 3}));
}

TEST_F(SmallMachine, Unbound) {
  std::vector<CpuSet> places(6, m.pus());
  Tree t = test::tree_from_places(m, places);
  // Unbound processes live in the Machine: one flat group, no deeper level.
  EXPECT_EQ(test::level_summary(t), "Machine 1x6");
  EXPECT_EQ(t.domains().size(), 1u);
  EXPECT_EQ(t.root().direct.size(), 6u);
  EXPECT_FALSE(t.domain_at(0, "Package").has_value());
  EXPECT_FALSE(t.domain_at(0, "Core").has_value());
}

TEST_F(SmallMachine, WideBindingNeverGoesBelowIt) {
  // Rank 0 bound to package 0, rank 1 to L3 #1, ranks 2-4 to cores 0, 1, 5.
  std::vector<CpuSet> places{cpus("0-15"), cpus("8-15"), cpus("0-1"), cpus("2-3"), cpus("10-11")};
  Tree t = test::tree_from_places(m, places);
  int pkg = *t.domain_at(0, "Package");
  EXPECT_EQ(t.leaf(0), pkg);
  EXPECT_FALSE(t.domain_at(0, "L3Cache").has_value());
  EXPECT_EQ(t.domain(pkg).direct, (std::vector<int>{0}));
  int l3b = *t.domain_at(1, "L3Cache");
  EXPECT_EQ(t.leaf(1), l3b);
  EXPECT_EQ(t.domain(l3b).members, (std::vector<int>{1, 4}));
  EXPECT_EQ(t.domain(l3b).group, (std::vector<int>{1, 4}));
  // Package group: its direct rank 0 and the leaders of both L3 domains.
  EXPECT_EQ(t.domain(pkg).group, (std::vector<int>{0, 1, 2}));
}

TEST_F(SmallMachine, PartlyOutsideBindingIsClipped) {
  std::vector<CpuSet> places{cpus("0-1,100-101"), cpus("2-3")};
  Tree t = test::tree_from_places(m, places);
  EXPECT_EQ(t.place(0), cpus("0-1"));
}

TEST_F(SmallMachine, TwoProcessesOnOnePu) {
  std::vector<CpuSet> places{cpus("0"), cpus("0"), cpus("1"), cpus("2")};
  Tree t = test::tree_from_places(m, places);
  int pu0 = t.leaf(0);
  EXPECT_EQ(t.leaf(1), pu0);
  EXPECT_EQ(t.domain(pu0).group, (std::vector<int>{0, 1}));
  EXPECT_EQ(t.domain(pu0).level, "PU");
  int core0 = *t.domain_at(0, "Core");
  EXPECT_EQ(t.domain(core0).group, (std::vector<int>{0, 2}));
}

TEST_F(SmallMachine, UnevenSevenAndEight) {
  std::vector<CpuSet> places = cores({0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15});
  Tree t = test::tree_from_places(m, places);
  EXPECT_EQ(test::level_summary(t), "Machine 1x2 Package 2x2 L3Cache 4x3-4");
  EXPECT_EQ(t.root().group, (std::vector<int>{0, 7}));
}

TEST_F(SmallMachine, ThreeThreeTwoPerL3) {
  Topology three = test::load("Package:1 L3Cache:3 Core:4 PU:1");
  std::vector<CpuSet> places{cpus("0"), cpus("1"), cpus("2"), cpus("4"), cpus("5"), cpus("6"), cpus("8"), cpus("9")};
  Tree t = test::tree_from_places(three.machine(), places);
  EXPECT_EQ(test::level_summary(t), "Machine 1x3 L3Cache 3x2-3");
  EXPECT_EQ(t.root().group, (std::vector<int>{0, 3, 6}));
}

TEST_F(SmallMachine, OneProcess) {
  Tree t = test::tree_for(m, 1);
  EXPECT_EQ(t.domains().size(), 1u);
  EXPECT_FALSE(t.root().has_group());
  EXPECT_EQ(test::level_summary(t), "");
  EXPECT_EQ(t.path(0), (std::vector<int>{0}));
}

TEST_F(SmallMachine, BadInput) {
  std::vector<CpuSet> none;
  auto empty = build_tree(m, none);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("empty"), std::string::npos);

  std::vector<CpuSet> too_many(33, cpus("0"));
  auto over = build_tree(m, too_many);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("33 processes"), std::string::npos);
  EXPECT_NE(over.status().message().find("32 PUs"), std::string::npos);
  BuildOptions allow;
  allow.allow_oversubscribe = true;
  EXPECT_TRUE(build_tree(m, too_many, allow).ok());

  std::vector<CpuSet> outside{cpus("0"), cpus("64-65")};
  auto out = build_tree(m, outside);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("rank 1"), std::string::npos);
  EXPECT_NE(out.status().message().find("64-65"), std::string::npos);

  std::vector<CpuSet> unbound_empty{cpus("0"), CpuSet()};
  EXPECT_FALSE(build_tree(m, unbound_empty).ok());
}

// check() must notice a tree whose input is inconsistent.
TEST(TreeCheck, CatchesNestingAndPlacementErrors) {
  Domain root;
  root.aliases = {{"Machine", 0, 0}};
  root.cpuset = *CpuSet::parse("0-3");
  root.children = {1, 2};
  Domain a;
  a.aliases = {{"Core", 1, 0}};
  a.cpuset = *CpuSet::parse("0-1");
  a.parent = 0;
  a.direct = {0};
  Domain b = a;
  b.aliases = {{"Core", 1, 1}};
  b.cpuset = *CpuSet::parse("2-5");  // wider than its parent
  b.direct = {1};
  std::vector<CpuSet> places{*CpuSet::parse("0"), *CpuSet::parse("2")};
  auto t = Tree::from_domains({root, a, b}, places);
  ASSERT_TRUE(t.ok());
  Status st = t->check();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("is not inside its parent"), std::string::npos);

  b.cpuset = *CpuSet::parse("2-3");
  places[1] = *CpuSet::parse("0");  // rank 1 placed in core #1 but bound to PU 0
  auto t2 = Tree::from_domains({root, a, b}, places);
  ASSERT_TRUE(t2.ok());
  Status st2 = t2->check();
  ASSERT_FALSE(st2.ok());
  EXPECT_NE(st2.message().find("rank 1 place 0 is outside its leaf"), std::string::npos);

  places[1] = *CpuSet::parse("2");
  auto good = Tree::from_domains({root, a, b}, places);
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(good->check().ok()) << good->check().to_string();
}

}  // namespace
}  // namespace osmp
