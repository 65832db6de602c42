#include <gtest/gtest.h>

#include <cstdlib>

#include "core/env.hpp"
#include "core/strings.hpp"

namespace osmp {
namespace {

TEST(Strings, SplitKeepsEmptyFields) {
  auto v = split("a,,b,", ',');
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], "a");
  EXPECT_EQ(v[1], "");
  EXPECT_EQ(v[3], "");
}

TEST(Strings, RankListCompressesRuns) {
  std::vector<int> r{0, 2, 3, 4, 7, 9, 10};
  EXPECT_EQ(rank_list(r), "0,2-4,7,9-10");
  std::vector<int> one{5};
  EXPECT_EQ(rank_list(one), "5");
  EXPECT_EQ(rank_list(std::vector<int>{}), "");
}

TEST(Strings, ParseIntChecksRangeAndSyntax) {
  EXPECT_EQ(*parse_int(" 42 ", 0, 100, "x"), 42);
  auto bad = parse_int("4x2", 0, 100, "degree");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("degree: '4x2' is not an integer"), std::string::npos);
  auto big = parse_int("101", 0, 100, "degree");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("out of range"), std::string::npos);
  EXPECT_FALSE(parse_int("", 0, 100, "x").ok());
  EXPECT_FALSE(parse_int("-1", 0, 100, "x").ok());
}

TEST(Strings, ParseSizeSuffixes) {
  EXPECT_EQ(*parse_size("4096", "s"), 4096u);
  EXPECT_EQ(*parse_size("64K", "s"), 65536u);
  EXPECT_EQ(*parse_size("2MiB", "s"), 2u << 20);
  EXPECT_EQ(*parse_size("1G", "s"), 1u << 30);
  EXPECT_FALSE(parse_size("12X", "s").ok());
  EXPECT_FALSE(parse_size("99999999999999G", "s").ok());
}

TEST(Env, MalformedValuesNameTheVariable) {
  ::setenv("OSMP_TEST_INT", "seven", 1);
  auto v = env_int("OSMP_TEST_INT", 1, 0, 10);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("OSMP_TEST_INT"), std::string::npos);
  ::setenv("OSMP_TEST_INT", "7", 1);
  EXPECT_EQ(*env_int("OSMP_TEST_INT", 1, 0, 10), 7);
  ::unsetenv("OSMP_TEST_INT");
  EXPECT_EQ(*env_int("OSMP_TEST_INT", 3, 0, 10), 3);

  ::setenv("OSMP_TEST_BOOL", "Yes", 1);
  EXPECT_TRUE(*env_bool("OSMP_TEST_BOOL", false));
  ::setenv("OSMP_TEST_BOOL", "maybe", 1);
  EXPECT_FALSE(env_bool("OSMP_TEST_BOOL", false).ok());
  ::unsetenv("OSMP_TEST_BOOL");
}

}  // namespace
}  // namespace osmp

namespace osmp {
namespace {

TEST(Fnv1a, KnownVectors) {
  // The published FNV-1a 64-bit test vectors.
  EXPECT_EQ(fnv1a(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a("foobar"), 0x85944171f73967e8ULL);
}

}  // namespace
}  // namespace osmp
