#include "collectives/types.hpp"

#include "core/strings.hpp"

namespace osmp {
namespace {
constexpr const char* kTypeNames[] = {"int8",  "int16",  "int32",  "int64",  "uint8",
                                      "uint16", "uint32", "uint64", "float", "double"};
constexpr const char* kOpNames[] = {"sum", "prod", "min", "max", "band", "bor", "bxor", "land", "lor"};
}  // namespace

std::size_t size_of(Datatype t) {
  switch (t) {
    case Datatype::int8: case Datatype::uint8: return 1;
    case Datatype::int16: case Datatype::uint16: return 2;
    case Datatype::int32: case Datatype::uint32: case Datatype::float32: return 4;
    case Datatype::int64: case Datatype::uint64: case Datatype::float64: return 8;
  }
  return 0;
}

bool is_integer(Datatype t) { return t != Datatype::float32 && t != Datatype::float64; }

bool defined_for(Op op, Datatype t) {
  if (static_cast<int>(op) >= kOpCount || static_cast<int>(t) >= kDatatypeCount) return false;
  return op <= Op::max || is_integer(t);
}

const char* to_string(Datatype t) {
  auto i = static_cast<std::size_t>(t);
  return i < std::size(kTypeNames) ? kTypeNames[i] : "invalid datatype";
}

const char* to_string(Op op) {
  auto i = static_cast<std::size_t>(op);
  return i < std::size(kOpNames) ? kOpNames[i] : "invalid op";
}

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::barrier: return "barrier";
    case OpKind::bcast: return "bcast";
    case OpKind::reduce: return "reduce";
    case OpKind::allreduce: return "allreduce";
    case OpKind::gather: return "gather";
    case OpKind::allgather: return "allgather";
    case OpKind::scatter: return "scatter";
    case OpKind::reduce_scatter_block: return "reduce_scatter_block";
  }
  return "invalid operation";
}

Result<Datatype> parse_datatype(std::string_view s) {
  for (std::size_t i = 0; i < std::size(kTypeNames); ++i)
    if (iequals(s, kTypeNames[i])) return static_cast<Datatype>(i);
  if (iequals(s, "float32")) return Datatype::float32;
  if (iequals(s, "float64")) return Datatype::float64;
  return Status(Errc::invalid_argument, cat("unknown datatype '", s, "'"));
}

Result<Op> parse_op(std::string_view s) {
  for (std::size_t i = 0; i < std::size(kOpNames); ++i)
    if (iequals(s, kOpNames[i])) return static_cast<Op>(i);
  return Status(Errc::invalid_argument, cat("unknown reduction op '", s, "'"));
}

}  // namespace osmp
