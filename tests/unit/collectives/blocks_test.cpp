// Packing blocks from rank order into a tree's packed order and back
// (collectives/payloads.hpp): runs of consecutive ranks are copied at once,
// so every shape of order is checked against a block-by-block reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "collectives/payloads.hpp"

namespace osmp {
namespace {

std::vector<std::byte> blocks_in_rank_order(std::size_t ranks, std::size_t block) {
  std::vector<std::byte> v(ranks * block);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::byte>(i * 7 + 3);
  return v;
}

class PackBlocks : public ::testing::TestWithParam<std::vector<int>> {};

TEST_P(PackBlocks, EachPositionHoldsItsRanksBlockAndUnpackRestoresRankOrder) {
  const std::vector<int>& packed = GetParam();
  for (std::size_t block : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
    const auto in = blocks_in_rank_order(packed.size(), block);
    std::vector<std::byte> out(in.size() + block, std::byte{0xee});  // one guard block
    pack_blocks(packed, block, in.data(), out.data());
    for (std::size_t i = 0; i < packed.size(); ++i) {
      for (std::size_t b = 0; b < block; ++b) {
        ASSERT_EQ(out[i * block + b], in[static_cast<std::size_t>(packed[i]) * block + b])
            << "position " << i << " byte " << b << " block " << block;
      }
    }
    for (std::size_t b = 0; b < block; ++b) EXPECT_EQ(out[in.size() + b], std::byte{0xee}) << "wrote past the end";
    std::vector<std::byte> back(in.size() + block, std::byte{0xee});
    unpack_blocks(packed, block, out.data(), back.data());
    EXPECT_TRUE(std::equal(in.begin(), in.end(), back.begin())) << "block " << block;
    for (std::size_t b = 0; b < block; ++b) EXPECT_EQ(back[in.size() + b], std::byte{0xee}) << "wrote past the end";
  }
}

std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Orders, PackBlocks,
                         ::testing::Values(iota(1), iota(8),                            // one run
                                           std::vector<int>{2, 3, 0, 1},                // two runs, swapped
                                           std::vector<int>{3, 2, 1, 0},                // no run longer than one
                                           std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7},    // interleaved (sockets)
                                           std::vector<int>{4, 5, 6, 0, 1, 2, 3, 7}));  // runs of 3, 4 and 1

}  // namespace
}  // namespace osmp
