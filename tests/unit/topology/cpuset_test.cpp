#include "topology/cpuset.hpp"

#include <gtest/gtest.h>

namespace osmp {
namespace {

TEST(CpuSet, ParseAndFormatRoundTrip) {
  for (const char* s : {"", "0", "0-3", "0-3,8,10-11", "63-65", "127,255"}) {
    auto c = CpuSet::parse(s);
    ASSERT_TRUE(c.ok()) << s;
    EXPECT_EQ(c->to_string(), s);
  }
  EXPECT_EQ(CpuSet::parse(" 3,1-2 ")->to_string(), "1-3");
}

TEST(CpuSet, ParseErrors) {
  for (const char* s : {"a", "1-", "3-1", "1-2-3", "1,,2", "-1"}) {
    auto c = CpuSet::parse(s);
    EXPECT_FALSE(c.ok()) << s;
    if (!c.ok()) {
      EXPECT_NE(c.status().message().find(s), std::string::npos);
    }
  }
}

TEST(CpuSet, SetOperations) {
  CpuSet a = *CpuSet::parse("0-7");
  CpuSet b = *CpuSet::parse("4-11");
  EXPECT_EQ((a & b).to_string(), "4-7");
  EXPECT_EQ((a | b).to_string(), "0-11");
  EXPECT_EQ((a - b).to_string(), "0-3");
  EXPECT_TRUE((a & b).is_subset_of(a));
  EXPECT_FALSE(b.is_subset_of(a));
  EXPECT_TRUE(a.intersects(b));
  EXPECT_FALSE(CpuSet::single(200).intersects(a));
  EXPECT_EQ(a.count(), 8u);
  EXPECT_EQ(b.first(), 4);
  EXPECT_EQ(b.last(), 11);
  EXPECT_EQ(b.next(7), 8);
  EXPECT_EQ(b.next(11), -1);
  EXPECT_EQ(CpuSet().first(), -1);
}

TEST(CpuSet, EqualityIgnoresCapacity) {
  CpuSet a = CpuSet::single(3);
  CpuSet b = CpuSet::single(300);
  b.set(3);
  b.reset(300);
  EXPECT_EQ(a, b);
  EXPECT_TRUE((a - a).empty());
}

}  // namespace
}  // namespace osmp
