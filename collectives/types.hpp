// What the collectives need to know of datatypes and reduction ops, beyond
// the public vocabulary (osmp_base.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/status.hpp"
#include "osmp_base.hpp"  // Datatype, Op, OpKind, kInPlace, to_string, parse_*

namespace osmp {

constexpr std::size_t size_of(Datatype t) {
  constexpr std::size_t kSizes[kDatatypeCount] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
  return static_cast<std::size_t>(t) < kDatatypeCount ? kSizes[static_cast<std::size_t>(t)] : 0;
}
constexpr bool is_integer(Datatype t) { return t != Datatype::float32 && t != Datatype::float64; }
// sum, prod, min, max for every type; the bitwise and logical ops for integers.
constexpr bool defined_for(Op op, Datatype t) {
  if (static_cast<int>(op) >= kOpCount || static_cast<int>(t) >= kDatatypeCount) return false;
  return op <= Op::max || is_integer(t);
}

// The operation's name in capitals, as variables end: "REDUCE_SCATTER_BLOCK"
// (OSMP_VH_REDUCE_SCATTER_BLOCK).
const char* upper_name(OpKind k);

}  // namespace osmp
