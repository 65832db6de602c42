#include "collectives/step.hpp"

namespace osmp {

Status verdict_error(StatusWord w, const OpHeader& h, int me) {
  const char* op = to_string(static_cast<OpKind>(h.kind));
  int rank = status_rank(w);
  Errc code = status_code(w);
  switch (status_field(w)) {
    case Field::args:
      return Status(
          code, rank == me ? cat(op, ": invalid arguments") : cat(op, ": rank ", rank, " passed invalid arguments"));
    case Field::none: return Status(code, cat(op, ": failed on rank ", rank));
    case Field::counts: return Status(code, cat(op, ": rank ", rank, "'s count is not the root's entry for it"));
    default: break;
  }
  const char* field = "";
  switch (status_field(w)) {
    case Field::kind: field = "operation"; break;
    case Field::dtype: field = "datatype"; break;
    case Field::op: field = "reduction op"; break;
    case Field::count: field = "count"; break;
    case Field::root: field = "root"; break;
    case Field::declined: field = "call: some decline it, others take it"; break;
    case Field::earlier: field = "call before this one"; break;
    default: break;
  }
  // Engine::run() replaces this with who passed what (mismatch_message()).
  return Status(code, cat(op, ": ranks disagree on the ", field, " (seen at rank ", rank, ")"));
}

Status step_verdict_error(StatusWord w, const OpHeader& h, int me, const OpHeader& seen, int seen_rank, bool pairs) {
  if (pairs && seen_rank >= 0) {
    std::string pair = pair_mismatch_message(h, me, seen, seen_rank);
    if (!pair.empty()) return Status(Errc::mismatch, std::move(pair));
  }
  return verdict_error(w, h, me);
}

}  // namespace osmp
