#include "collectives/protocol.hpp"

#include <vector>

#include "core/disagreement.hpp"

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

namespace {

// Each field as the message names and shows it, in compare_fields() order.
struct FieldText {
  const char* what;
  const char* verb;
  std::string (*value)(const OpHeader&);
};
constexpr FieldText kFields[] = {
    {"the operation", "called", [](const OpHeader& h) -> std::string { return to_string(static_cast<OpKind>(h.kind)); }},
    // A declining rank's header carries no arguments: the rest cannot compare.
    {"running the call on osmp", "would",
     [](const OpHeader& h) -> std::string { return h.declined ? "hand it to the MPI" : "run it"; }},
    {"the root", "passed", [](const OpHeader& h) { return std::to_string(h.root); }},
    {"the count", "passed", [](const OpHeader& h) { return std::to_string(h.count); }},
    {"the datatype", "passed", [](const OpHeader& h) -> std::string { return to_string(static_cast<Datatype>(h.dtype)); }},
    {"the reduction op", "passed", [](const OpHeader& h) -> std::string { return to_string(static_cast<Op>(h.op)); }},
};

}  // namespace

std::string mismatch_message(const OpHeader& mine, std::span<const OpHeader> all) {
  std::string out;
  std::vector<std::string> values(all.size());
  for (const FieldText& f : kFields) {
    for (std::size_t r = 0; r < all.size(); ++r) values[r] = f.value(all[r]);
    Disagreement d = group_by_value(values);
    if (d.agreed()) continue;
    // "ranks disagree on the count: ...; on the datatype: ..."
    out += cat(out.empty() ? "ranks disagree on " : "; on ", f.what, ": ", describe_sides(d, f.verb));
    if (&f <= &kFields[1]) break;  // other operations, or a declining rank: the rest cannot compare
  }
  return out.empty() ? out : cat(to_string(static_cast<OpKind>(mine.kind)), ": ", out);
}

}  // namespace osmp
