#include "collectives/protocol.hpp"

namespace osmp {

Field compare_fields(const OpHeader& a, const OpHeader& b) {
  if (a.kind != b.kind) return Field::kind;
  if (a.declined != b.declined) return Field::declined;
  if (a.root != b.root) return Field::root;
  if (a.count != b.count) return Field::count;
  if (a.dtype != b.dtype) return Field::dtype;
  if (a.op != b.op) return Field::op;
  return Field::none;
}

}  // namespace osmp
