#include "collectives/types.hpp"

#include "core/strings.hpp"

namespace osmp {
namespace {
constexpr const char* kTypeNames[] = {"int8",  "int16",  "int32",  "int64",  "uint8",
                                      "uint16", "uint32", "uint64", "float", "double"};
constexpr const char* kOpNames[] = {"sum", "prod", "min", "max", "band", "bor", "bxor", "land", "lor"};
}  // namespace

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

Result<OpKind> parse_op_kind(std::string_view s) {
  for (int k = static_cast<int>(OpKind::barrier); k <= static_cast<int>(OpKind::reduce_scatter_block); ++k)
    if (iequals(s, to_string(static_cast<OpKind>(k)))) return static_cast<OpKind>(k);
  return Status(Errc::invalid_argument, cat("unknown operation '", s, "'"));
}

}  // namespace osmp
