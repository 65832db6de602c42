#include "collectives/types.hpp"

#include "core/strings.hpp"

namespace osmp {
namespace {
constexpr const char* kTypeNames[] = {"int8",   "int16",  "int32",  "int64",   "uint8",
                                      "uint16", "uint32", "uint64", "float32", "float64"};
constexpr const char* kOpNames[] = {"sum", "prod", "min", "max", "band", "bor", "bxor", "land", "lor"};
#define OSMP_KIND_NAME_(name, Name, NAME, key, rooted, reduces, form) #name,
constexpr const char* kKindNames[] = {OSMP_COLLECTIVES(OSMP_KIND_NAME_)};
#undef OSMP_KIND_NAME_
#define OSMP_KIND_UPPER_(name, Name, NAME, key, rooted, reduces, form) #NAME,
constexpr const char* kKindUpper[] = {OSMP_COLLECTIVES(OSMP_KIND_UPPER_)};
#undef OSMP_KIND_UPPER_
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
  const int i = op_index(k);
  return i >= 0 ? kKindNames[i] : "invalid operation";
}

const char* upper_name(OpKind k) {
  const int i = op_index(k);
  return i >= 0 ? kKindUpper[i] : "INVALID";
}

Result<Datatype> parse_datatype(std::string_view s) {
  for (std::size_t i = 0; i < std::size(kTypeNames); ++i)
    if (iequals(s, kTypeNames[i])) return static_cast<Datatype>(i);
  if (iequals(s, "float")) return Datatype::float32;  // C's float, double
  if (iequals(s, "double")) return Datatype::float64;
  return Status(Errc::invalid_argument, cat("unknown datatype '", s, "'"));
}

Result<Op> parse_op(std::string_view s) {
  for (std::size_t i = 0; i < std::size(kOpNames); ++i)
    if (iequals(s, kOpNames[i])) return static_cast<Op>(i);
  return Status(Errc::invalid_argument, cat("unknown reduction op '", s, "'"));
}

Result<OpKind> parse_op_kind(std::string_view s) {
  for (OpKind k : kOpKinds)
    if (iequals(s, to_string(k))) return k;
  return Status(Errc::invalid_argument, cat("unknown operation '", s, "'"));
}

}  // namespace osmp
