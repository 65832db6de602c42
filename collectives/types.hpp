// What the collectives need to know of datatypes and reduction ops, beyond
// the public vocabulary (osmp_base.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/status.hpp"
#include "osmp_base.hpp"  // Datatype, Op, OpKind, kInPlace, to_string, parse_*

namespace osmp {

// At namespace scope: a constexpr array local to size_of() is built on the
// stack on every call that is not folded (about 20 instructions per call).
inline constexpr std::size_t kDatatypeSizes[kDatatypeCount] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
constexpr std::size_t size_of(Datatype t) {
  return static_cast<std::size_t>(t) < kDatatypeCount ? kDatatypeSizes[static_cast<std::size_t>(t)] : 0;
}
constexpr bool is_integer(Datatype t) { return t != Datatype::float32 && t != Datatype::float64; }
// sum, prod, min, max for every type; the bitwise and logical ops for integers.
constexpr bool defined_for(Op op, Datatype t) {
  if (static_cast<int>(op) >= kOpCount || static_cast<int>(t) >= kDatatypeCount) return false;
  return op <= Op::max || is_integer(t);
}

// A digest of counts, one at a time (gatherv's and scatterv's lengths step
// folds the ranks' block lengths and the root its counts: ops/flat.cpp).
class CountsDigest {
 public:
  void add(std::int64_t count) {
    x_ = (x_ ^ static_cast<std::uint64_t>(count)) * 0x9e3779b97f4a7c15ull;
    x_ ^= x_ >> 31;
  }
  std::int64_t value() const { return static_cast<std::int64_t>(x_ >> 1); }  // not negative: no count is

 private:
  std::uint64_t x_ = 0x6a09e667f3bcc909ull;
};

// The digest of the counts every rank passes alike (allgatherv), which the
// header carries for `count` (and the node leaders compare across nodes:
// mpi_glue/pmpi/nodes.cpp): ranks whose counts differ disagree on it.
inline std::int64_t counts_digest(const std::int64_t* counts, int n) {
  if (!counts) return 0;
  CountsDigest d;
  for (int r = 0; r < n; ++r) d.add(counts[r]);
  return d.value();
}

// Every rank's elements together (allgatherv's and reduce_scatter's plan):
// of the counts every rank passes alike, or 0 without counts (null: a rank
// that declined or passed none, whose header differs anyway), a negative
// count as 0 (an argument error the header step reports), and at most 2^56
// (past any area the plan compares it with, and times any element size).
inline std::size_t counts_total(const std::int64_t* counts, int n) {
  constexpr std::uint64_t kMost = std::uint64_t{1} << 56;
  std::uint64_t total = 0;
  for (int r = 0; counts && r < n; ++r)
    total = std::min(kMost, total + std::min(kMost, static_cast<std::uint64_t>(std::max<std::int64_t>(0, counts[r]))));
  return static_cast<std::size_t>(total);
}
// The longest block of those counts (allgatherv's single-copy choice, the
// same on every rank that passes the same counts), as counts_total reads them.
inline std::size_t counts_longest(const std::int64_t* counts, int n) {
  constexpr std::int64_t kMost = std::int64_t{1} << 56;
  std::int64_t most = 0;
  for (int r = 0; counts && r < n; ++r) most = std::max(most, std::min(kMost, counts[r]));
  return static_cast<std::size_t>(most);
}

// The operation's name in capitals, as variables end: "REDUCE_SCATTER_BLOCK"
// (OSMP_VH_REDUCE_SCATTER_BLOCK).
const char* upper_name(OpKind k);

}  // namespace osmp
