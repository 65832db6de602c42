// The four machines of the OSMP paper, as synthetic strings.
#include <gtest/gtest.h>

#include "support/machines.hpp"

namespace osmp {
namespace {

// Figure 4: dual-socket EPYC 7742, 128 processes, one per core: groups of 4
// at the CCX (L3), NUMA and socket levels, 2 at the machine level.
TEST(PaperMachines, RomeFigure4) {
  Topology topo = test::load("rome");
  Tree t = test::tree_for(topo.machine(), 128);
  EXPECT_EQ(test::level_summary(t), "Machine 1x2 Package 2x4 NUMANode 8x4 L3Cache 32x4");
  EXPECT_EQ(t.root().group, (std::vector<int>{0, 64}));
  for (int p = 0; p < 2; ++p) {
    const Domain& pkg = t.domain(t.domains_of("Package")[static_cast<std::size_t>(p)]);
    EXPECT_EQ(pkg.logical_index, p);
    EXPECT_EQ(pkg.group, (std::vector<int>{64 * p, 64 * p + 16, 64 * p + 32, 64 * p + 48}));
  }
  auto numa = t.domains_of("NUMANode");
  ASSERT_EQ(numa.size(), 8u);
  for (int n = 0; n < 8; ++n) {
    const Domain& d = t.domain(numa[static_cast<std::size_t>(n)]);
    EXPECT_EQ(d.logical_index, n);
    EXPECT_TRUE(d.stands_for("Group0"));  // hwloc's Group holding the NUMA node
    int b = 16 * n;
    EXPECT_EQ(d.group, (std::vector<int>{b, b + 4, b + 8, b + 12}));
    EXPECT_EQ(d.cpuset.count(), 16u);
  }
  auto ccx = t.domains_of("L3Cache");
  ASSERT_EQ(ccx.size(), 32u);
  for (int c = 0; c < 32; ++c) {
    const Domain& d = t.domain(ccx[static_cast<std::size_t>(c)]);
    EXPECT_EQ(d.group, (std::vector<int>{4 * c, 4 * c + 1, 4 * c + 2, 4 * c + 3}));
    EXPECT_EQ(d.leader, 4 * c);
  }
  // Every rank: CCX -> NUMA -> socket -> machine.
  for (int r = 0; r < 128; ++r) {
    auto gp = t.group_path(r);
    ASSERT_EQ(gp.size(), 4u);
    EXPECT_EQ(t.domain(gp[0]).level, "L3Cache");
    EXPECT_EQ(t.domain(gp[1]).level, "NUMANode");
    EXPECT_EQ(t.domain(gp[2]).level, "Package");
    EXPECT_EQ(gp[3], 0);
  }
}

TEST(PaperMachines, RomeSixteenByCoreAndScattered) {
  Topology topo = test::load("rome");
  Tree linear = test::tree_for(topo.machine(), 16);
  EXPECT_EQ(test::level_summary(linear), "Machine 1x4 L3Cache 4x4");
  EXPECT_TRUE(linear.root().stands_for("NUMANode"));
  Tree scatter = test::tree_for(topo.machine(), 16, MapBy::scatter);
  EXPECT_EQ(test::level_summary(scatter), "Machine 1x2 Package 2x4 NUMANode 8x2");
  Tree numa = test::tree_for(topo.machine(), 16, MapBy::numa);
  EXPECT_EQ(test::level_summary(numa), "Machine 1x2 Package 2x4 NUMANode 8x2");
}

TEST(PaperMachines, RomeSmtTwoPerCore) {
  Topology topo = test::load("rome-smt");
  Tree t = test::tree_for(topo.machine(), 256, MapBy::pu, BindTo::pu);
  EXPECT_EQ(test::level_summary(t), "Machine 1x2 Package 2x4 NUMANode 8x4 L3Cache 32x4 Core 128x2");
}

TEST(PaperMachines, CascadeLakeIsShallow) {
  Topology topo = test::load("cascadelake");
  Tree t = test::tree_for(topo.machine(), 56);
  // Socket, NUMA node and L3 hold the same 28 processes: one flat group each.
  EXPECT_EQ(test::level_summary(t), "Machine 1x2 Package 2x28");
  const Domain& pkg = t.domain(t.domains_of("Package")[0]);
  EXPECT_TRUE(pkg.stands_for("NUMANode"));
  EXPECT_TRUE(pkg.stands_for("L3Cache"));
}

TEST(PaperMachines, Power9) {
  Topology topo = test::load("power9");
  Tree cores = test::tree_for(topo.machine(), 44);
  EXPECT_EQ(test::level_summary(cores), "Machine 1x2 Package 2x11 L3Cache 22x2");
  Tree threads = test::tree_for(topo.machine(), 176, MapBy::pu, BindTo::pu);
  EXPECT_EQ(test::level_summary(threads), "Machine 1x2 Package 2x11 L3Cache 22x2 Core 44x4");
}

TEST(PaperMachines, A64fx) {
  Topology topo = test::load("a64fx");
  Tree t = test::tree_for(topo.machine(), 48);
  // Four CMGs: each an L2 with its NUMA node; the package is the machine.
  EXPECT_EQ(test::level_summary(t), "Machine 1x4 NUMANode 4x12");
  EXPECT_TRUE(t.root().stands_for("Package"));
  EXPECT_TRUE(t.domain(t.domains_of("NUMANode")[0]).stands_for("L2Cache"));
}

}  // namespace
}  // namespace osmp
