// Who disagrees with whom: the groups, the majority, and the words.
#include "core/disagreement.hpp"

#include <gtest/gtest.h>

namespace osmp {
namespace {

std::vector<std::string> values(std::initializer_list<const char*> v) { return {v.begin(), v.end()}; }

TEST(Disagreement, AllEqualIsAgreement) {
  auto v = values({"16", "16", "16"});
  EXPECT_TRUE(group_by_value(v).agreed());
  EXPECT_EQ(disagreement("the count", v, "passed"), "");
  EXPECT_TRUE(group_by_value(std::vector<std::string>{}).agreed());
}

TEST(Disagreement, TheOddRankIsNamedWhereverItIs) {
  // The case: rank 1 passes 8, the others 16.
  EXPECT_EQ(disagreement("the count", values({"16", "8", "16", "16"}), "passed"),
            "ranks disagree on the count: rank 1 passed 8, ranks 0,2-3 passed 16");
  EXPECT_EQ(disagreement("the count", values({"8", "16", "16", "16", "16"}), "passed"),
            "ranks disagree on the count: rank 0 passed 8, ranks 1-4 passed 16");
  EXPECT_EQ(disagreement("the count", values({"16", "16", "16", "16", "8"}), "passed"),
            "ranks disagree on the count: rank 4 passed 8, ranks 0-3 passed 16");
}

TEST(Disagreement, MajorityComesLastMinoritiesByLowestRank) {
  Disagreement d = group_by_value(values({"a", "b", "c", "b", "a", "a", "c"}));
  ASSERT_EQ(d.groups.size(), 3u);
  EXPECT_TRUE(d.has_majority);
  EXPECT_EQ(d.groups[0].value, "b");
  EXPECT_EQ(d.groups[0].ranks, (std::vector<int>{1, 3}));
  EXPECT_EQ(d.groups[1].value, "c");
  EXPECT_EQ(d.groups[2].value, "a");
  EXPECT_EQ(d.groups[2].ranks, (std::vector<int>{0, 4, 5}));
}

TEST(Disagreement, ATieHasNoMajority) {
  Disagreement d = group_by_value(values({"8", "16"}));
  EXPECT_FALSE(d.has_majority);
  EXPECT_EQ(describe_sides(d, "passed"), "rank 0 passed 8, rank 1 passed 16");
  d = group_by_value(values({"16", "8", "8", "16"}));
  EXPECT_FALSE(d.has_majority);
  EXPECT_EQ(describe_sides(d, "passed"), "ranks 0,3 passed 16, ranks 1-2 passed 8");
  // A tie for the most ranks, with a smaller group too.
  d = group_by_value(values({"x", "y", "x", "y", "z"}));
  EXPECT_FALSE(d.has_majority);
  EXPECT_EQ(describe_sides(d, "got"), "ranks 0,2 got x, ranks 1,3 got y, rank 4 got z");
}

TEST(Disagreement, ManyValuesFoldIntoOtherValuesButKeepTheMajority) {
  std::vector<std::string> v(20, "16");
  for (int r : {1, 3, 5, 7, 9, 11, 13}) v[static_cast<std::size_t>(r)] = std::to_string(r);
  std::string s = describe_sides(group_by_value(v), "passed");
  EXPECT_EQ(s,
            "rank 1 passed 1, rank 3 passed 3, rank 5 passed 5, rank 7 passed 7, "
            "ranks 9,11,13 passed other values, ranks 0,2,4,6,8,10,12,14-19 passed 16");
}

}  // namespace
}  // namespace osmp
