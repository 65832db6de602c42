// OSMP_CMA (collectives/config.hpp): the setting's values, the rule that
// says whether CMA's single copy pays on a host (cma_pays), and what the
// plans make of a team where it does not (PlanSettings::cma_sized off: no size is
// CMA's, the one-pass gatherv's and scatterv's rows keep it for their long
// blocks).
#include <gtest/gtest.h>

#include <string>

#include "collectives/config.hpp"
#include "collectives/plan.hpp"
#include "shm/layout.hpp"
#include "support/machines.hpp"

namespace osmp {
namespace {

TEST(CmaSetting, AutoByDefaultOneOrZeroAndNothingElse) {
  CollectiveConfig c;
  EXPECT_EQ(c.cma, CollectiveConfig::Cma::automatic);
  const std::string automatic = c.fingerprint();
  for (const char* on : {"1", "on", "yes", "TRUE", " 1 "}) {
    ASSERT_TRUE(c.set("OSMP_CMA", on).ok()) << on;
    EXPECT_EQ(c.cma, CollectiveConfig::Cma::on) << on;
  }
  const std::string on = c.fingerprint();
  for (const char* off : {"0", "off", "no", "false"}) {
    ASSERT_TRUE(c.set("OSMP_CMA", off).ok()) << off;
    EXPECT_EQ(c.cma, CollectiveConfig::Cma::off) << off;
  }
  const std::string off = c.fingerprint();
  ASSERT_TRUE(c.set("OSMP_CMA", "Auto").ok());
  EXPECT_EQ(c.cma, CollectiveConfig::Cma::automatic);
  // Teams whose ranks set it differently are told apart (the settings agreement).
  EXPECT_NE(automatic, on);
  EXPECT_NE(automatic, off);
  EXPECT_NE(on, off);
  Status bad = c.set("OSMP_CMA", "sometimes");
  EXPECT_EQ(bad.code(), Errc::invalid_argument);
  EXPECT_NE(bad.message().find("OSMP_CMA: 'sometimes' is not auto, 1 or 0"), std::string::npos) << bad.to_string();
  EXPECT_EQ(c.cma, CollectiveConfig::Cma::automatic);  // unchanged by the bad value
}

TEST(CmaSetting, PaysUpToTheThresholdAndNeverWhereTheKernelRefuses) {
  EXPECT_FALSE(cma_pays(0));  // cma_slowdown's answer where the call fails
  EXPECT_TRUE(cma_pays(0.9));
  EXPECT_TRUE(cma_pays(1.5));
  EXPECT_TRUE(cma_pays(kCmaPaysSlowdown));
  EXPECT_FALSE(cma_pays(kCmaPaysSlowdown + 0.01));
  EXPECT_FALSE(cma_pays(4.3));  // the VM of the threshold's measurements
}

// Where CMA does not pay (OSMP_CMA=auto), its range does not apply: no operation
// at any size goes by CMA, nothing waits for CMA's threshold (alltoallv's
// blocks ride wherever they fit; staging, which asks cma_carries, follows
// its own), and the one-pass gatherv and scatterv still make their rows.
TEST(CmaSetting, WithoutItsRangeCmaTakesNoCallButLeavesTheRows) {
  Topology topo = test::load("Package:2 Core:3 PU:1");
  Tree tree = test::tree_for(topo.machine(), 5, MapBy::core, BindTo::core, "");
  const PlanShape s = plan_shape(tree, kDefaultSlotBytes, kDefaultBcastBytes);
  PlanSettings none{};
  none.cma = true;
  none.cma_sized = false;
  PlanSettings full = none;
  full.cma_sized = true;
  int full_takes = 0;
  for (OpKind op : kOpKinds) {
    EXPECT_EQ(cma_from(op, none), kNoLimit) << to_string(op);
    for (std::size_t bytes = 1; bytes <= (std::size_t{64} << 20); bytes *= 2) {
      EXPECT_FALSE(cma_carries(op, bytes, none)) << to_string(op) << " " << bytes;
      EXPECT_NE(make_plan(PlanInput{op, bytes, 1, true}, s, none).rest, Rest::cma) << to_string(op) << " " << bytes;
      full_takes += make_plan(PlanInput{op, bytes, 1, true}, s, full).rest == Rest::cma;
    }
  }
  EXPECT_GT(full_takes, 0);  // the same loop finds CMA's calls where its range applies
  none.one_pass = none.one_group = true;
  for (OpKind op : {OpKind::gatherv, OpKind::scatterv})
    EXPECT_TRUE(rows_in_first(op, make_plan(PlanInput{op, std::size_t{1} << 20, 1, true}, s, none))) << to_string(op);
}

}  // namespace
}  // namespace osmp
