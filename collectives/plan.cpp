#include "collectives/plan.hpp"

#include <algorithm>

#include "collectives/protocol.hpp"
#include "topology/tree.hpp"

namespace osmp {
namespace {

// Steps whose local roots concatenate their units' data in unit order.
bool concatenates(OpKind op) {
  return op == OpKind::gather || op == OpKind::allgather || op == OpKind::allgatherv || op == OpKind::alltoall ||
         op == OpKind::scan || op == OpKind::exscan || lengths_step(op);
}

// The bytes one rank's data takes in the first step, and whether that fits
// the areas it goes through (as one step).
struct Fit {
  std::size_t bytes = 0;  // per rank (block for gathers and scatters; allgatherv, reduce_scatter: all ranks')
  bool fits = false;
};

bool symmetric_top(const PlanInput& in, const PlanShape& s, const PlanSettings& set);

// Whether the single copy (CMA) carries a call of `bytes` per rank in place
// of a step through the areas (PlanSettings::cma_range).
bool single_copy(OpKind op, std::size_t bytes, const PlanSettings& set) {
  return set.cma && set.cma_range.covers(op, bytes);
}

Fit fit(const PlanInput& in, const PlanShape& s, const PlanSettings& set) {
  const std::size_t one = in.count * in.esize, all = one * static_cast<std::size_t>(s.ranks);
  const std::size_t scratch = s.scratch_bytes();
  switch (in.op) {
    case OpKind::barrier: return {0, true};
    case OpKind::bcast: return {one, one <= s.bcast_bytes};
    case OpKind::reduce: return {one, one <= s.slot_bytes};
    case OpKind::allreduce: return {one, one <= std::min(s.slot_bytes, s.bcast_bytes)};
    case OpKind::gather: return {one, all <= std::min(s.slot_bytes, scratch)};
    case OpKind::allgather:
      return {one, all <= std::min({s.slot_bytes, s.bcast_bytes, scratch}) && !single_copy(in.op, one, set)};
    case OpKind::scatter: return {one, all <= std::min(s.bcast_bytes, scratch)};
    case OpKind::reduce_scatter_block: return {one, all <= std::min({s.slot_bytes, s.bcast_bytes, scratch})};
    case OpKind::scan:
    case OpKind::exscan:  // every input goes up, every result down
      return {one, all <= kScanTreeBytes && all <= std::min({s.slot_bytes, s.bcast_bytes, scratch})};
    case OpKind::alltoall: {  // every rank's n blocks go up, and down again
      // Or, at a symmetric top of single ranks, each takes its own blocks
      // from every other's slot (AlltoallPayload::sym_down): no serial top.
      // Whether data follows must not depend on this rank's own arguments
      // (`carries`), or ranks with the same count would take different plans.
      const std::size_t top = all * static_cast<std::size_t>(s.ranks);
      PlanInput carried = in;
      carried.carries = true;
      const bool cheap = top <= kAlltoallTreeBytes ||
                         (top <= kAlltoallSymmetricBytes && s.top_max_unit == 1 && symmetric_top(carried, s, set));
      return {one, cheap && top <= std::min({s.slot_bytes, s.bcast_bytes, scratch})};
    }
    case OpKind::allgatherv: {  // as allgather, every rank's block together
      // Single copy weighs the longest block, as flat_allgather does.
      const std::size_t every = in.total * in.esize;
      return {every, every <= std::min({s.slot_bytes, s.bcast_bytes, scratch}) &&
                         !single_copy(in.op, in.longest * in.esize, set)};
    }
    case OpKind::reduce_scatter: {  // as reduce_scatter_block, the shares together
      const std::size_t every = in.total * in.esize;
      return {every, every <= std::min({s.slot_bytes, s.bcast_bytes, scratch})};
    }
    case OpKind::gatherv:
    case OpKind::scatterv:
    case OpKind::alltoallv: return {one, false};  // the header step, a counts step, the flat path
  }
  return {};
}

// Whether a first step that carries the data runs the symmetric top: a top
// group of at most OSMP_SYMMETRIC_MAX members and what its largest unit
// publishes in the flag's line; the slot_symmetric() operations' data also
// through the slots, at a top of at most OSMP_SYMMETRIC_SLOT_MAX (and
// gatherv's and scatterv's packed rows: make_plan). Scatter never (each
// unit needs a different part, which only the root's unit has).
bool symmetric_top(const PlanInput& in, const PlanShape& s, const PlanSettings& set) {
  if (in.op == OpKind::scatter || s.top_units > set.sym_max) return false;
  const std::size_t most = symmetric_bytes(in, s);
  if (most <= kInlineBytes) return true;
  return slot_symmetric(in.op) && s.top_units <= set.sym_slot_max && most <= s.slot_bytes;
}

}  // namespace

bool slot_symmetric(OpKind op) {
  return op == OpKind::allreduce || op == OpKind::alltoall || op == OpKind::alltoallv || op == OpKind::allgather ||
         op == OpKind::allgatherv || op == OpKind::reduce_scatter_block || op == OpKind::reduce_scatter;
}

std::size_t symmetric_bytes(const PlanInput& in, const PlanShape& s) {
  if (!in.carries) return 0;
  const std::size_t one = in.count * in.esize;
  switch (in.op) {
    case OpKind::barrier:
    case OpKind::scatter: return 0;
    case OpKind::bcast:
    case OpKind::reduce:
    case OpKind::allreduce: return one;
    case OpKind::gather:
    case OpKind::allgather: return one * static_cast<std::size_t>(s.top_max_unit);
    case OpKind::reduce_scatter_block: return one * static_cast<std::size_t>(s.ranks);
    case OpKind::alltoall: return one * static_cast<std::size_t>(s.ranks) * static_cast<std::size_t>(s.top_max_unit);
    case OpKind::scan:
    case OpKind::exscan: return one * static_cast<std::size_t>(s.top_max_unit);
    case OpKind::allgatherv:  // at most: the largest unit's blocks
    case OpKind::reduce_scatter: return in.total * in.esize;
    // The lengths in fixed rows, and over single ranks gatherv's blocks'
    // first bytes (lengths_data_bytes; packed rows go through the slots
    // whatever this says: make_plan).
    case OpKind::gatherv:
      return s.top_max_unit == 1 ? kLengthsRowBytes + kLengthsDataBytes
                                 : kLengthsRowBytes * static_cast<std::size_t>(s.top_max_unit);
    case OpKind::scatterv: return kLengthsRowBytes * static_cast<std::size_t>(s.top_max_unit);
    // Over single ranks, the counts rows (pairs_in_first); else only headers.
    case OpKind::alltoallv: return s.top_max_unit == 1 ? pairs_row_bytes(s.ranks) : 0;
  }
  return 0;
}

Plan make_plan(const PlanInput& in, const PlanShape& s, const PlanSettings& set) {
  Plan p;
  p.first = StepPlan{true, true, true, false, TopCase::tree, false};
  const bool gathers = in.op == OpKind::gatherv;
  const bool rows_fit =
      gathers ? s.slot_bytes > kLengthsRowBytes : static_cast<std::size_t>(s.ranks) * kRowsEntryBytes < s.bcast_bytes;
  if (lengths_step(in.op) && set.one_pass && set.cma && rows_fit) {
    // One pass with the rows (rows_in_first): gatherv's up, scatterv's
    // down; the single copies of the blocks that do not ride follow it.
    p.first = StepPlan{true, gathers, !gathers, gathers, TopCase::tree, true};
    p.rest = Rest::flat;
    p.lengths_data = std::min(kRowsDataBytes, gathers ? s.slot_bytes - kLengthsRowBytes : s.bcast_bytes);
    return p;
  }
  if (one_pass_prefix(in.op) && set.one_pass &&
      in.count * in.esize <= std::min({kScanPrefixBytes, s.slot_bytes, s.scratch_bytes()})) {
    // Every rank reads the inputs of the ranks before it where they lie
    // (base/prefix.hpp): no top folds them all.
    p.first = StepPlan{true, true, false, true, TopCase::prefix, true};
    return p;
  }
  const Fit f = fit(in, s, set);
  if (f.fits && set.one_pass) {
    const bool down = one_pass_down(in.op);
    const bool up = one_pass_up(in.op);
    if (up || down) {
      p.first = StepPlan{true, up, down, true, TopCase::tree, true};
      return p;
    }
  }
  if (f.fits) {
    p.first.flat = concatenates(in.op);
    if (symmetric_top(in, s, set)) p.first.top = TopCase::symmetric;
    return p;
  }
  // The first step carries only the headers; the data follows.
  const std::size_t es = std::max<std::size_t>(1, in.esize);
  auto chunked = [&](std::size_t area, bool up, bool down, TopCase top) {
    p.rest = Rest::chunks;
    p.chunk = StepPlan{false, up, down, false, top, false};
    p.chunk_bytes = std::max(es, area / es * es);
    p.chunks = (f.bytes + p.chunk_bytes - 1) / p.chunk_bytes;
  };
  switch (in.op) {
    case OpKind::bcast: chunked(s.bcast_bytes, false, true, TopCase::tree); break;
    case OpKind::reduce: chunked(s.slot_bytes, true, false, TopCase::tree); break;
    case OpKind::allreduce:  // each chunk a round trip; a small top works in slices
      chunked(std::min(s.slot_bytes, s.bcast_bytes), true, true,
              s.top_units <= set.sym_max ? TopCase::slices : TopCase::tree);
      break;
    default: p.rest = Rest::flat; break;
  }
  if (lengths_step(in.op)) {
    // The first step gathers every rank's length (kLengthsRowBytes), as an
    // allgather's data: concatenated, through the symmetric top where it
    // fits; over single ranks with the blocks' first bytes, in rows of
    // their own length through the slots at a top small enough for them.
    p.first.flat = true;
    if (s.top_max_unit == 1 && s.top_units <= std::min(set.sym_max, set.sym_slot_max) &&
        lengths_packed_bytes(in.op, s.ranks) <= s.slot_bytes) {
      p.first.top = TopCase::symmetric;
      p.lengths_data = kLengthsSlotDataBytes;
      p.lengths_packed = true;
    } else if (symmetric_top(in, s, set)) {
      p.first.top = TopCase::symmetric;
      // (scatterv's root's row with every rank's bytes would not fit the line)
      if (s.top_max_unit == 1 && in.op == OpKind::gatherv) p.lengths_data = kLengthsDataBytes;
    }
  } else if (in.op == OpKind::alltoallv) {
    // Where every rank is a unit of a symmetric top, the first step carries
    // every rank's counts row (pairs_in_first), which every rank reads:
    // the counts step folded into it. Whatever this rank's own arguments
    // (`carries`): every rank must take the same plan.
    PlanInput carried = in;
    carried.carries = true;
    if (s.top_max_unit == 1 && symmetric_top(carried, s, set)) {
      p.first.flat = true;
      p.first.top = TopCase::symmetric;
    } else if (s.top_units <= set.sym_max) {
      // Else its header step needs no local root's release after the
      // headers (the flat agree_pairs after it returns the counts'
      // verdict), so a small top exchanges them as a barrier does (every
      // member reads every other's line: one crossing instead of a round
      // trip).
      p.first.top = TopCase::symmetric;
    }
  }
  return p;
}

PlanShape plan_shape(const Tree& tree, std::size_t slot_bytes, std::size_t bcast_bytes) {
  PlanShape s;
  s.ranks = tree.size();
  s.slot_bytes = slot_bytes;
  s.bcast_bytes = bcast_bytes;
  const Domain& top = tree.root();
  if (!top.has_group()) return s;
  s.top_units = static_cast<int>(top.group.size());
  for (int leader : top.group) {
    int size = 1;  // a rank placed directly in the root domain
    for (int c : top.children)
      if (tree.domain(c).leader == leader) size = static_cast<int>(tree.domain(c).members.size());
    s.top_max_unit = std::max(s.top_max_unit, size);
  }
  return s;
}

}  // namespace osmp
