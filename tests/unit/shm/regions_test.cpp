// Shared regions (shm/regions.hpp): numbers, words, bounds and members, in
// one process.
#include "shm/regions.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

namespace osmp {
namespace {

TEST(SharedRegions, LowestFreeNumberSkipsTheHeapsAndUsedOnes) {
  SharedRegions::Used u{};
  u[0] = 1;
  EXPECT_EQ(SharedRegions::lowest_free(u), 1);
  u[0] = ~std::uint64_t{0};
  u[1] = 0b1011;
  EXPECT_EQ(SharedRegions::lowest_free(u), 66);
  for (auto& w : u) w = ~std::uint64_t{0};
  EXPECT_EQ(SharedRegions::lowest_free(u), 0);
}

TEST(SharedRegions, AddChecksNumberPartsAndMembers) {
  SharedRegions r;
  std::vector<std::byte> mem(4096);
  const std::vector<RegionPart> parts{{mem.data(), mem.size()}};
  const std::vector<pid_t> me{::getpid()};
  EXPECT_EQ(r.add(0, parts, me).code(), Errc::invalid_argument);  // the heaps'
  EXPECT_EQ(r.add(SharedRegions::kNumbers, parts, me).code(), Errc::invalid_argument);
  EXPECT_EQ(r.add(3, {}, me).code(), Errc::invalid_argument);
  EXPECT_EQ(r.add(3, parts, {}).code(), Errc::invalid_argument);
  EXPECT_TRUE(r.empty());
  ASSERT_TRUE(r.add(3, parts, me).ok());
  Status twice = r.add(3, parts, me);
  EXPECT_EQ(twice.code(), Errc::invalid_argument);
  EXPECT_NE(twice.message().find("registered already"), std::string::npos) << twice.message();
  EXPECT_FALSE(r.empty());
  EXPECT_EQ(r.used()[0], 0b1001u);
  r.remove(3);
  r.remove(3);  // no-op
  r.remove(-1);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.used()[0], 1u);
}

TEST(SharedRegions, LocateAndAtRoundTripInEveryPart) {
  SharedRegions r;
  std::vector<std::byte> a(1000), b(3000);
  const pid_t me = ::getpid();
  ASSERT_TRUE(r.add(7, {{a.data(), a.size()}, {b.data(), b.size()}}, {me, 1}).ok());
  const std::uint64_t w = r.locate(b.data() + 100, 2900, {me});
  ASSERT_NE(w, 0u);
  EXPECT_EQ(region_of(w), 7);
  EXPECT_EQ(r.at(w, 2900), b.data() + 100);
  EXPECT_EQ(r.at(w, 2901), nullptr);  // past the part's end
  const std::uint64_t wa = r.locate(a.data(), 1000, {me, 1});
  EXPECT_EQ(r.at(wa, 1000), a.data());
  // Past the part, across parts, empty, outside: no word.
  EXPECT_EQ(r.locate(b.data() + 100, 2901, {me}), 0u);
  EXPECT_EQ(r.locate(a.data() + 999, 2, {me}), 0u);
  EXPECT_EQ(r.locate(a.data(), 0, {me}), 0u);
  std::vector<std::byte> elsewhere(10);
  EXPECT_EQ(r.locate(elsewhere.data(), 10, {me}), 0u);
  // A reader that has not mapped the region: not offered.
  EXPECT_EQ(r.locate(a.data(), 10, {me, me + 1}), 0u);
}

TEST(SharedRegions, AtTrustsNoWord) {
  SharedRegions r;
  std::vector<std::byte> a(1000);
  ASSERT_TRUE(r.add(2, {{a.data(), a.size()}}, {::getpid()}).ok());
  EXPECT_EQ(r.at(region_word(2, 0, 0), 1000), a.data());
  EXPECT_EQ(r.at(region_word(2, 1, 0), 1), nullptr);     // no part 1
  EXPECT_EQ(r.at(region_word(2, 0, 1001), 0), nullptr);  // past the end
  EXPECT_EQ(r.at(region_word(2, 0, 999), 2), nullptr);
  EXPECT_EQ(r.at(region_word(5, 0, 0), 1), nullptr);     // not registered here
  EXPECT_EQ(r.at(region_word(0, 0, 4096), 1), nullptr);  // the heaps' words are not regions'
  r.remove(2);
  EXPECT_EQ(r.at(region_word(2, 0, 0), 1), nullptr);
}

}  // namespace
}  // namespace osmp
