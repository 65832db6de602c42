#include "shm/layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace osmp {
namespace {

struct Region {
  std::size_t begin, end;
  std::string what;
};

void expect_disjoint(std::vector<Region> regions, std::size_t total) {
  std::sort(regions.begin(), regions.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
  for (std::size_t i = 0; i < regions.size(); ++i) {
    EXPECT_LE(regions[i].end, total) << regions[i].what;
    if (i) {
      EXPECT_LE(regions[i - 1].end, regions[i].begin) << regions[i - 1].what << " overlaps " << regions[i].what;
    }
  }
}

TEST(GroupLayout, RegionsAreAlignedAndDisjoint) {
  for (int members : {1, 2, 3, 5, 8, 16, 28, 128}) {
    for (std::size_t slot : {std::size_t{1}, std::size_t{4096}, std::size_t{65536}, std::size_t{70000}}) {
      auto l = make_group_layout({members, slot, 3 * 4096 + 1});
      ASSERT_TRUE(l.ok()) << l.status().to_string();
      std::vector<Region> r{{0, sizeof(SegmentHeader), "header"}};
      for (int i = 0; i < kLeaderLines; ++i) {
        EXPECT_EQ(l->leader_line(i) % kFalseSharingRange, 0u);
        r.push_back({l->leader_line(i), l->leader_line(i) + sizeof(CtrlLine), "leader line"});
      }
      for (int m = 0; m < members; ++m) {
        for (int p = 0; p < kBuffers; ++p) {
          EXPECT_EQ(l->member_line(m, p) % kFalseSharingRange, 0u);
          r.push_back({l->member_line(m, p), l->member_line(m, p) + sizeof(CtrlLine), "member line"});
        }
        for (int p = 0; p < kBuffers; ++p) {
          EXPECT_EQ(l->slot(p, m) % kPage, 0u);  // each slot can go to its writer's NUMA node
          r.push_back({l->slot(p, m), l->slot(p, m) + l->params.slot_bytes, "slot"});
        }
      }
      for (int p = 0; p < kBuffers; ++p) {
        EXPECT_EQ(l->bcast_area(p) % kPage, 0u);
        r.push_back({l->bcast_area(p), l->bcast_area(p) + l->params.bcast_bytes, "bcast"});
      }
      EXPECT_GE(l->params.slot_bytes, slot);
      EXPECT_EQ(l->params.slot_bytes % kPage, 0u);
      EXPECT_EQ(l->total % kPage, 0u);
      expect_disjoint(r, l->total);
    }
  }
}

TEST(GroupLayout, BadParameters) {
  EXPECT_FALSE(make_group_layout({0, 4096, 4096}).ok());
  auto zero = make_group_layout({4, 0, 4096});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("OSMP_SLOT_SIZE"), std::string::npos);
  auto huge = make_group_layout({4, 4096, std::size_t{1} << 40});
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("OSMP_BCAST_SIZE"), std::string::npos);
}

TEST(ControlLayout, RegionsAreDisjoint) {
  for (int ranks : {1, 2, 7, 64}) {
    auto l = make_control_layout({ranks, 1000, 65536});
    ASSERT_TRUE(l.ok());
    std::vector<Region> r{{0, sizeof(SegmentHeader), "header"},
                          {l->control, l->control + sizeof(ControlBlock), "control"},
                          {l->bcast, l->bcast + 65536, "bcast"}};
    for (int i = 0; i < ranks; ++i) {
      EXPECT_EQ(l->rank_line(i) % kFalseSharingRange, 0u);
      r.push_back({l->rank_line(i), l->rank_line(i) + sizeof(RankLine), "rank line"});
      r.push_back({l->item(i), l->item(i) + l->params.item_bytes, "item"});
    }
    expect_disjoint(r, l->total);
  }
}

TEST(Abort, EncodingAndFirstReasonWins) {
  std::atomic<std::uint64_t> w{0};
  EXPECT_EQ(raise_abort(w, AbortCode::peer_dead, 3), encode_abort(AbortCode::peer_dead, 3));
  EXPECT_EQ(raise_abort(w, AbortCode::user, 5), encode_abort(AbortCode::peer_dead, 3));
  EXPECT_EQ(abort_rank(w.load()), 3);
  EXPECT_EQ(abort_code(w.load()), AbortCode::peer_dead);
  EXPECT_EQ(describe_abort(w.load()), "rank 3 died");
  EXPECT_EQ(abort_rank(encode_abort(AbortCode::launcher, -1)), -1);
}

}  // namespace
}  // namespace osmp
