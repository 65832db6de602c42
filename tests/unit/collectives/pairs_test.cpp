// Alltoallv's counts rows (collectives/ops/pairs.hpp) on private buffers:
// what a row holds, when its blocks ride, which pair is the first that
// differs (the same from every rank's view), taking the blocks, the error.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "collectives/ops/pairs.hpp"

namespace osmp {
namespace {

// n ranks; rank s sends len(s, d) bytes to rank d, packed in rank order with
// a gap of 2 after each block; receives the same way.
struct Pairs {
  int n;
  std::vector<std::vector<std::int64_t>> counts, displs, rcounts, rdispls;
  std::vector<std::vector<std::uint8_t>> send, recv;
  std::vector<std::vector<std::byte>> rows;
  template <class Len>
  Pairs(int ranks, Len len) : n(ranks) {
    const auto un = static_cast<std::size_t>(n);
    counts.assign(un, std::vector<std::int64_t>(un));
    displs = rcounts = rdispls = counts;
    send.resize(un);
    recv.resize(un);
    for (std::size_t s = 0; s < un; ++s) {
      std::int64_t out = 0, in = 0;
      for (std::size_t d = 0; d < un; ++d) {
        counts[s][d] = len(s, d);
        displs[s][d] = out;
        out += counts[s][d] + 2;
        rcounts[s][d] = len(d, s);
        rdispls[s][d] = in;
        in += rcounts[s][d] + 2;
      }
      send[s].assign(static_cast<std::size_t>(out), 0);
      for (std::size_t d = 0; d < un; ++d)
        for (std::int64_t i = 0; i < counts[s][d]; ++i)
          send[s][static_cast<std::size_t>(displs[s][d] + i)] = static_cast<std::uint8_t>(s * 40 + d * 7 + i + 1);
      recv[s].assign(static_cast<std::size_t>(in), 0xee);
    }
  }
  Exchange sides(int r) const {
    const auto ur = static_cast<std::size_t>(r);
    return {Blocks{0, counts[ur].data(), displs[ur].data(), 1, true},
            Blocks{0, rcounts[ur].data(), rdispls[ur].data(), 1, true}, 0};
  }
  // Every rank writes its row (room for `cap` bytes of blocks).
  std::vector<PairsMine> write(std::size_t cap, std::size_t cma_from) {
    std::vector<PairsMine> mine;
    rows.assign(static_cast<std::size_t>(n), std::vector<std::byte>(pairs_blocks_at(n) + cap, std::byte{0x5a}));
    for (int r = 0; r < n; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      mine.push_back(write_pairs_row(rows[ur].data(), sides(r), r, n,
                                     reinterpret_cast<const std::byte*>(send[ur].data()), cap, cma_from));
    }
    return mine;
  }
  auto row_of() const {
    return [this](int q) -> const std::byte* { return rows[static_cast<std::size_t>(q)].data(); };
  }
};

TEST(PairsRow, HoldsEveryEntryTheLongestBlockAndTheBlocksPacked) {
  Pairs p(3, [](std::size_t s, std::size_t d) { return static_cast<std::int64_t>(s * 3 + d + 1); });
  const std::vector<PairsMine> mine = p.write(64, 1 << 20);
  for (int r = 0; r < 3; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const std::byte* row = p.rows[ur].data();
    std::uint64_t off = 0, longest = 0;
    for (int b = 0; b < 3; ++b) {
      const auto ub = static_cast<std::size_t>(b);
      const PairEntry e = pairs_entry(row, b);
      EXPECT_EQ(e.len, static_cast<std::uint64_t>(p.counts[ur][ub]));
      EXPECT_EQ(e.at, static_cast<std::uint64_t>(p.displs[ur][ub]));
      EXPECT_EQ(e.want, static_cast<std::uint64_t>(p.rcounts[ur][ub]));
      longest = std::max({longest, e.len, e.want});
      if (b == r) continue;  // my own block is not in the row
      EXPECT_EQ(pairs_block_off(row, r, b), off);
      for (std::uint64_t i = 0; i < e.len; ++i)
        EXPECT_EQ(static_cast<std::uint8_t>(row[pairs_blocks_at(3) + off + i]),
                  p.send[ur][static_cast<std::size_t>(p.displs[ur][ub]) + i]);
      off += e.len;
    }
    EXPECT_EQ(pairs_tail(row, 3).longest, longest);
    EXPECT_EQ(pairs_tail(row, 3).carried, off);
    EXPECT_TRUE(mine[ur].carried);
    EXPECT_EQ(mine[ur].longest, longest);
  }
}

TEST(PairsRow, BlocksRideOnlyWithinTheCapAndBelowCma) {
  Pairs p(2, [](std::size_t s, std::size_t) { return static_cast<std::int64_t>(s == 0 ? 10 : 30); });
  // rank 0 sends 10 bytes to rank 1, rank 1 30 to rank 0 (own blocks never count)
  std::vector<PairsMine> mine = p.write(10, 1 << 20);
  EXPECT_TRUE(mine[0].carried);
  EXPECT_FALSE(mine[1].carried);
  EXPECT_EQ(pairs_tail(p.rows[1].data(), 2).carried, PairsTail::kNotCarried);
  mine = p.write(64, 30);  // a block of 30 bytes is CMA's from 30
  EXPECT_TRUE(mine[0].carried);
  EXPECT_FALSE(mine[1].carried);
  // 0x5a fill: nothing written past the entries and tail of a row without blocks
  EXPECT_EQ(p.rows[1][pairs_blocks_at(2)], std::byte{0x5a});
}

TEST(PairsRow, TakingTheBlocksFillsEachReceiveBlockAndNothingElse) {
  Pairs p(4, [](std::size_t s, std::size_t d) { return static_cast<std::int64_t>((s * 5 + d * 3) % 7); });
  p.write(256, 1 << 20);
  for (int r = 0; r < 4; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    take_pairs_blocks(p.sides(r), r, 4, reinterpret_cast<const std::byte*>(p.send[ur].data()),
                      reinterpret_cast<std::byte*>(p.recv[ur].data()), p.row_of());
    std::vector<std::uint8_t> want(p.recv[ur].size(), 0xee);
    for (std::size_t s = 0; s < 4; ++s)
      for (std::int64_t i = 0; i < p.rcounts[ur][s]; ++i)
        want[static_cast<std::size_t>(p.rdispls[ur][s] + i)] = static_cast<std::uint8_t>(s * 40 + ur * 7 + i + 1);
    EXPECT_EQ(p.recv[ur], want) << "rank " << r;
  }
}

TEST(PairsRow, TheFirstDifferenceIsTheFirstReceiversFirstSender) {
  Pairs p(4, [](std::size_t, std::size_t) { return std::int64_t{8}; });
  p.write(0, 1 << 20);
  EXPECT_EQ(first_pair_difference(4, p.row_of()).receiver, -1) << "counts that agree";
  p.rcounts[3][1] = 9;  // rank 3 expects 9 from rank 1
  p.rcounts[2][3] = 7;  // rank 2 expects 7 from rank 3: the first receiver
  p.rcounts[2][0] = 6;  // ... and 6 from rank 0: its first sender
  p.write(0, 1 << 20);
  const PairsFinding f = first_pair_difference(4, p.row_of());
  EXPECT_EQ(f.receiver, 2);
  EXPECT_EQ(f.sender, 0);
  EXPECT_EQ(f.sent, 8u);
  EXPECT_EQ(f.expected, 6u);
  CollArgs a;
  a.kind = OpKind::alltoallv;
  a.dtype = Datatype::int16;  // 2 bytes: elements, not bytes, in the message
  EXPECT_EQ(pairs_error(a, f).message(), "alltoallv: rank 0 sends 4 elements to rank 2, which expects 3");
  EXPECT_EQ(pairs_error(a, f).code(), Errc::invalid_argument);
}

}  // namespace
}  // namespace osmp
