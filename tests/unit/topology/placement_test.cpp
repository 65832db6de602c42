#include "topology/placement.hpp"

#include <gtest/gtest.h>

#include "support/machines.hpp"

namespace osmp {
namespace {

std::vector<std::string> strings(const std::vector<CpuSet>& v) {
  std::vector<std::string> out;
  for (const auto& c : v) out.push_back(c.to_string());
  return out;
}

std::vector<CpuSet> place(const MachineTree& m, int n, MapBy map_by, BindTo bind_to, bool oversub = false) {
  PlacementRequest req{n, map_by, bind_to, oversub};
  auto p = place_ranks(m, req);
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return p.ok() ? *p : std::vector<CpuSet>{};
}

// 2 packages x 2 L3 x 2 cores x 2 PUs: core c has PUs 2c, 2c+1.
class Placement : public ::testing::Test {
 protected:
  Topology topo = test::load("Package:2 [NUMANode] L3Cache:2 Core:2 PU:2");
  const MachineTree& m = topo.machine();
};

TEST_F(Placement, ByCoreIsLinear) {
  EXPECT_EQ(strings(place(m, 3, MapBy::core, BindTo::core)), (std::vector<std::string>{"0-1", "2-3", "4-5"}));
  EXPECT_EQ(strings(place(m, 3, MapBy::core, BindTo::pu)), (std::vector<std::string>{"0", "2", "4"}));
  EXPECT_EQ(strings(place(m, 2, MapBy::core, BindTo::l3)), (std::vector<std::string>{"0-3", "0-3"}));
  EXPECT_EQ(strings(place(m, 2, MapBy::core, BindTo::package)), (std::vector<std::string>{"0-7", "0-7"}));
  EXPECT_EQ(strings(place(m, 2, MapBy::core, BindTo::numa)), (std::vector<std::string>{"0-7", "0-7"}));
  EXPECT_EQ(strings(place(m, 2, MapBy::core, BindTo::none)), (std::vector<std::string>{"0-15", "0-15"}));
}

TEST_F(Placement, ByPu) {
  EXPECT_EQ(strings(place(m, 3, MapBy::pu, BindTo::pu)), (std::vector<std::string>{"0", "1", "2"}));
}

TEST_F(Placement, RoundRobinOverDomains) {
  EXPECT_EQ(strings(place(m, 4, MapBy::package, BindTo::core)),
            (std::vector<std::string>{"0-1", "8-9", "2-3", "10-11"}));
  EXPECT_EQ(strings(place(m, 5, MapBy::l3, BindTo::core)),
            (std::vector<std::string>{"0-1", "4-5", "8-9", "12-13", "2-3"}));
  EXPECT_EQ(strings(place(m, 4, MapBy::scatter, BindTo::core)),
            (std::vector<std::string>{"0-1", "8-9", "4-5", "12-13"}));
}

TEST_F(Placement, EveryCoreOnceBeforeWrapping) {
  for (MapBy mb : {MapBy::core, MapBy::l3, MapBy::numa, MapBy::package, MapBy::scatter}) {
    auto order = mapping_order(m, mb);
    ASSERT_TRUE(order.ok());
    auto sorted = *order;
    std::sort(sorted.begin(), sorted.end());
    auto cores = m.cores();
    std::sort(cores.begin(), cores.end());
    EXPECT_EQ(sorted, cores) << to_string(mb);
  }
}

TEST_F(Placement, OversubscriptionMustBeAsked) {
  PlacementRequest req{9, MapBy::core, BindTo::core, false};
  auto p = place_ranks(m, req);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("9 processes on 8 cores"), std::string::npos);
  auto wrapped = place(m, 10, MapBy::core, BindTo::core, true);
  EXPECT_EQ(wrapped[8].to_string(), "0-1");
  EXPECT_EQ(wrapped[9].to_string(), "2-3");
  EXPECT_EQ(place(m, 16, MapBy::pu, BindTo::pu).size(), 16u);
}

TEST_F(Placement, BadInput) {
  EXPECT_FALSE(place_ranks(m, {0, MapBy::core, BindTo::core, false}).ok());
  EXPECT_FALSE(parse_map_by("diagonal").ok());
  EXPECT_NE(parse_bind_to("cache").status().message().find("'cache'"), std::string::npos);
  EXPECT_EQ(*parse_map_by("socket"), MapBy::package);
  EXPECT_EQ(*parse_bind_to("NONE"), BindTo::none);
  Topology nol3 = test::load("Package:1 Core:4 PU:1");
  auto p = place_ranks(nol3.machine(), {2, MapBy::l3, BindTo::core, false});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("no L3Cache level"), std::string::npos);
}

TEST(PlacementNoCores, FallsBackToPus) {
  Topology t = test::load("Package:2 PU:3");
  auto p = place_ranks(t.machine(), {4, MapBy::core, BindTo::core, false});
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(strings(*p), (std::vector<std::string>{"0", "1", "2", "3"}));
}

}  // namespace
}  // namespace osmp
