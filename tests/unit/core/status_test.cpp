#include "core/status.hpp"

#include <gtest/gtest.h>

namespace osmp {
namespace {

Result<int> half(int x) {
  if (x % 2) return Status(Errc::invalid_argument, cat("odd value ", x));
  return x / 2;
}

Result<int> quarter(int x) {
  OSMP_ASSIGN_OR_RETURN(int h, half(x));
  return half(h);
}

TEST(Status, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.to_string(), "ok");
}

TEST(Status, CarriesCodeMessageAndLocation) {
  Status s(Errc::no_space, "segment osmp-1-2 needs 4096 bytes");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Errc::no_space);
  EXPECT_EQ(s.to_string(), "no_space: segment osmp-1-2 needs 4096 bytes");
  EXPECT_NE(s.to_string_with_location().find("status_test.cpp"), std::string::npos);
  s.prefix("creating group");
  EXPECT_EQ(s.message(), "creating group: segment osmp-1-2 needs 4096 bytes");
}

TEST(Result, PropagatesErrors) {
  EXPECT_EQ(*quarter(8), 2);
  auto r = quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "odd value 3");
  EXPECT_EQ(r.status().code(), Errc::invalid_argument);
}

TEST(Result, OkStatusIsNotAValue) {
  Result<int> r{Status{}};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Errc::internal);
}

TEST(Errc, NamesAreStable) {
  EXPECT_STREQ(errc_name(Errc::peer_dead), "peer_dead");
  EXPECT_STREQ(errc_name(Errc::mismatch), "mismatch");
}

}  // namespace
}  // namespace osmp
