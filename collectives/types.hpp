// Datatypes, reduction operations and operation kinds of the collectives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/status.hpp"

namespace osmp {

enum class Datatype : std::uint8_t { int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64 };
inline constexpr int kDatatypeCount = 10;

enum class Op : std::uint8_t { sum, prod, min, max, band, bor, bxor, land, lor };
inline constexpr int kOpCount = 9;

enum class OpKind : std::uint8_t {
  barrier = 1, bcast, reduce, allreduce, gather, allgather, scatter, reduce_scatter_block,
};

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
const char* to_string(Datatype t);
const char* to_string(Op op);
const char* to_string(OpKind k);
Result<Datatype> parse_datatype(std::string_view s);
Result<Op> parse_op(std::string_view s);
// "reduce", "reduce_scatter_block", ...: the names to_string(OpKind) gives.
Result<OpKind> parse_op_kind(std::string_view s);

// The MPI_IN_PLACE of osmp: pass it as the send (or, for scatter, receive)
// buffer where the data is already in the other buffer.
inline const void* const kInPlace = reinterpret_cast<const void*>(std::uintptr_t{1});

}  // namespace osmp
