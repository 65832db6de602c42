#include "collectives/protocol.hpp"

#include <vector>

#include "collectives/ops/describe.hpp"
#include "core/disagreement.hpp"
#include "core/strings.hpp"

namespace osmp {

Field compare_fields(const OpHeader& a, const OpHeader& b) {
  // The earlier call failed first: its error is the one to report.
  if (a.earlier != b.earlier) return Field::earlier;
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
  Field field;
  const char* what;
  const char* verb;
  std::string (*value)(const OpHeader&);
};
constexpr FieldText kFields[] = {
    {Field::kind, "the operation", "called",
     [](const OpHeader& h) -> std::string { return to_string(static_cast<OpKind>(h.kind)); }},
    // A declining rank's header carries no arguments: the rest cannot compare.
    {Field::declined, "running the call on osmp", "would",
     [](const OpHeader& h) -> std::string { return h.declined ? "hand it to the MPI" : "run it"; }},
    {Field::root, "the root", "passed", [](const OpHeader& h) { return std::to_string(h.root); }},
    {Field::count, "the count", "passed",
     [](const OpHeader& h) -> std::string {  // allgatherv: its counts' digest (header_for)
       return is_varied(static_cast<OpKind>(h.kind)) ? cat("counts with digest ", h.count) : std::to_string(h.count);
     }},
    {Field::dtype, "the datatype", "passed",
     [](const OpHeader& h) -> std::string { return to_string(static_cast<Datatype>(h.dtype)); }},
    {Field::op, "the reduction op", "passed",
     [](const OpHeader& h) -> std::string { return to_string(static_cast<Op>(h.op)); }},
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

std::string pair_mismatch_message(const OpHeader& mine, int me, const OpHeader& theirs, int them) {
  const Field f = compare_fields(mine, theirs);
  if (f == Field::none || f == Field::earlier) return "";  // the earlier call's message comes from Calls
  const FieldText* t = &kFields[0];
  while (t->field != f) ++t;  // compare_fields() names one of them
  const bool them_first = them < me;
  const OpHeader& a = them_first ? theirs : mine;
  const OpHeader& b = them_first ? mine : theirs;
  return cat(to_string(static_cast<OpKind>(mine.kind)), ": ranks disagree on ", t->what, ": rank ",
             them_first ? them : me, " ", t->verb, " ", t->value(a), ", rank ", them_first ? me : them, " ", t->verb,
             " ", t->value(b));
}

}  // namespace osmp
