// Alltoallv's counts row: what every rank tells every other about its pairs,
// so that every rank can check every pair's counts, learn where each peer's
// block for it lies and how long the longest block is, and, where its
// blocks are small, take them from the row. The row goes through the first
// step's symmetric top (pairs_in_first: every rank reads every row) or
// through each rank's outbox (agree_pairs, ops/flat.cpp).
//
//   PairEntry[n]      entry b: my send block for rank b (length, place in my
//                     send buffer) and my receive count from b, in bytes
//   PairsTail         my longest block (send or receive), my blocks' bytes
//                     in the row (kNotCarried: they are not)
//   blocks            from pairs_blocks_at(n): my send blocks but my own,
//                     packed in rank order (block b after the lengths of
//                     blocks 0 .. b - 1 but mine: pairs_block_off)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "collectives/ops/common.hpp"

namespace osmp {

struct PairEntry {
  std::uint64_t len = 0, at = 0, want = 0;
};
static_assert(sizeof(PairEntry) == kPairsEntryBytes);
struct PairsTail {
  static constexpr std::uint64_t kNotCarried = ~std::uint64_t{0};
  std::uint64_t longest = 0, carried = kNotCarried;
};
static_assert(sizeof(PairsTail) == kPairsTailBytes);

// What writing my row found: my longest block, whether my blocks are in it.
struct PairsMine {
  std::uint64_t longest = 0;
  bool carried = false;
};

// Writes my row for the sides `x` into `row`; my send blocks go with it when
// together they are at most `cap` bytes and none is `cma_from` bytes or
// longer (CMA would carry the call). `send`: my send buffer (may be the
// receive buffer: in place).
PairsMine write_pairs_row(std::byte* row, const Exchange& x, int me, int n, const std::byte* send, std::size_t cap,
                          std::size_t cma_from);

// The bytes of my send blocks a row of mine would carry (all but my own).
inline std::size_t pairs_carried_bytes(const Exchange& x, int me, int n) {
  std::size_t total = 0;
  for (int b = 0; b < n; ++b)
    if (b != me) total += x.out.len(b);
  return total;
}

// Rank q's entry for rank b and its tail, in its row.
inline PairEntry pairs_entry(const std::byte* row, int b) {
  PairEntry e;
  std::memcpy(&e, row + static_cast<std::size_t>(b) * sizeof e, sizeof e);
  return e;
}
inline PairsTail pairs_tail(const std::byte* row, int n) {
  PairsTail t;
  std::memcpy(&t, row + static_cast<std::size_t>(n) * sizeof(PairEntry), sizeof t);
  return t;
}

// Where rank q's block for rank b lies among the blocks of q's row.
inline std::size_t pairs_block_off(const std::byte* row, int q, int b) {
  std::size_t off = 0;
  for (int c = 0; c < b; ++c)
    if (c != q) off += pairs_entry(row, c).len;
  return off;
}

// Every row's tail together: the longest block of any pair, and whether
// every row carried its blocks.
struct PairsTails {
  std::uint64_t most = 0;
  bool all_carried = true;
};
template <class RowOf>
PairsTails pairs_tails(int n, RowOf row) {
  PairsTails t;
  for (int q = 0; q < n; ++q) {
    const PairsTail tail = pairs_tail(row(q), n);
    t.most = std::max(t.most, tail.longest);
    t.all_carried = t.all_carried && tail.carried != PairsTail::kNotCarried;
  }
  return t;
}

// The first pair whose counts differ: the first receiver in rank order with
// a difference, and its first sender (in rank order). receiver < 0: none.
struct PairsFinding {
  int receiver = -1, sender = -1;
  std::uint64_t sent = 0, expected = 0;
};

// Every rank's column from the rows `row(q)` of all n ranks: the same on
// every rank that reads the same rows.
template <class RowOf>
PairsFinding first_pair_difference(int n, RowOf row) {
  for (int r = 0; r < n; ++r) {
    for (int q = 0; q < n; ++q) {
      const std::uint64_t sent = pairs_entry(row(q), r).len, expected = pairs_entry(row(r), q).want;
      if (sent != expected) return {r, q, sent, expected};
    }
  }
  return {};
}

// Every rank's blocks rode in its row `row(q)`: takes my block from each
// into `recv`, and my own from `send` (may be `recv`: in place).
template <class RowOf>
void take_pairs_blocks(const Exchange& x, int me, int n, const std::byte* send, std::byte* recv, RowOf row) {
  for (int q = 0; q < n; ++q) {
    const std::size_t len = x.in.len(q);
    if (!len) continue;
    std::byte* to = recv + x.in.at(q);
    if (q == me) {
      if (send + x.out.at(me) != to) std::memcpy(to, send + x.out.at(me), len);
    } else {
      std::memcpy(to, row(q) + pairs_blocks_at(n) + pairs_block_off(row(q), q, me), len);
    }
  }
}

// The error every rank returns for `f` (receiver >= 0).
Status pairs_error(const CollArgs& a, const PairsFinding& f);

}  // namespace osmp
