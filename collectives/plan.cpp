#include "collectives/plan.hpp"

#include <algorithm>

#include "collectives/protocol.hpp"
#include "topology/tree.hpp"

namespace osmp {
namespace {

// The bytes one rank's data takes in the first step, and whether that fits
// the areas it goes through (as one step).
struct Fit {
  std::size_t bytes = 0;  // per rank (block for gathers and scatters; allgatherv, reduce_scatter: all ranks')
  bool fits = false;
};

bool symmetric_top(const PlanInput& in, const PlanShape& s, const PlanSettings& set);

// Whether CMA's single copy carries the data that follows the first step,
// where what its range weighs is known before the call (CmaPath).
bool by_cma(const PlanInput& in, const PlanShape& s, const PlanSettings& set) {
  std::size_t weighed = in.count * in.esize;
  switch (describe(in.op).copies.cma) {
    case CmaPath::none:
    case CmaPath::after_counts: return false;  // gatherv, scatterv, alltoallv: after their counts step
    case CmaPath::block: break;
    case CmaPath::longest: weighed = in.longest * in.esize; break;
    case CmaPath::two_ranks:
      if (s.ranks != 2) return false;
      break;
  }
  if (is_reduction(in.op) && cma_piece(s, in.esize) == 0) return false;
  return cma_carries(in.op, weighed, set);
}

// The room of the areas a step goes through (PlanRules::areas).
std::size_t room(std::uint8_t areas, const PlanShape& s) {
  std::size_t r = SIZE_MAX;
  if (areas & kSlotArea) r = std::min(r, s.slot_bytes);
  if (areas & kBcastArea) r = std::min(r, s.bcast_bytes);
  if (areas & kScratchArea) r = std::min(r, s.scratch_bytes());
  return r;
}

Fit fit(const PlanInput& in, const PlanShape& s, const PlanSettings& set) {
  const PlanRules& r = describe(in.op).plan;
  const std::size_t one = in.count * in.esize, all = one * static_cast<std::size_t>(s.ranks);
  const std::size_t every = in.total * in.esize;
  std::size_t carried = 0;
  switch (r.carry) {
    case Carry::nothing: return {0, true};
    case Carry::never: return {one, false};  // the counts step, then the flat path
    case Carry::one: carried = one; break;
    case Carry::all: carried = all; break;
    case Carry::square: carried = all * static_cast<std::size_t>(s.ranks); break;
    case Carry::total: carried = every; break;
  }
  bool fits = carried <= room(r.areas, s);
  if (r.tree_cap && carried > r.tree_cap) {
    // Beyond the tree's cap, only a symmetric top of single ranks (each
    // takes its own blocks from every other's slot: no serial top) up to
    // its own. Whether data follows must not depend on this rank's own
    // arguments (`carries`), or ranks with the same count would take
    // different plans.
    PlanInput carried_in = in;
    carried_in.carries = true;
    fits = fits && carried <= r.symmetric_cap && s.top_max_unit == 1 && symmetric_top(carried_in, s, set);
  }
  // Single copy weighs this rank's block or the longest, as flat_allgather does.
  if (r.cma_first == CmaFirst::own_block) fits = fits && !cma_carries(in.op, one, set);
  if (r.cma_first == CmaFirst::longest_block) fits = fits && !cma_carries(in.op, in.longest * in.esize, set);
  return {r.carry == Carry::total ? every : one, fits};
}

// Whether a first step that carries the data runs the symmetric top: a top
// group of at most OSMP_SYMMETRIC_MAX members and what its largest unit
// publishes in the flag's line; the slot_symmetric() operations' data also
// through the slots, at a top of at most OSMP_SYMMETRIC_SLOT_MAX (and
// gatherv's and scatterv's packed rows: make_plan). Never where the
// description says so (SymBytes::never: scatter).
bool symmetric_top(const PlanInput& in, const PlanShape& s, const PlanSettings& set) {
  if (describe(in.op).plan.symmetric == SymBytes::never || s.top_units > set.sym_max) return false;
  const std::size_t most = symmetric_bytes(in, s);
  if (most <= kInlineBytes) return true;
  return slot_symmetric(in.op) && s.top_units <= set.sym_slot_max && most <= s.slot_bytes;
}

}  // namespace

std::size_t symmetric_bytes(const PlanInput& in, const PlanShape& s) {
  if (!in.carries) return 0;
  const std::size_t one = in.count * in.esize;
  const auto unit = static_cast<std::size_t>(s.top_max_unit), ranks = static_cast<std::size_t>(s.ranks);
  switch (describe(in.op).plan.symmetric) {
    case SymBytes::never:
    case SymBytes::none: return 0;
    case SymBytes::one: return one;
    case SymBytes::per_unit: return one * unit;
    case SymBytes::per_rank: return one * ranks;
    case SymBytes::per_rank_unit: return one * ranks * unit;
    case SymBytes::total:
      return in.total * in.esize;  // allgatherv: at most, the largest unit's blocks
    // The lengths in fixed rows, and over single ranks gatherv's blocks'
    // first bytes (lengths_data_bytes; packed rows go through the slots
    // whatever this says: make_plan).
    case SymBytes::lengths:
      return unit == 1 && describe(in.op).plan.walk == Route::up ? kLengthsRowBytes + kLengthsDataBytes
                                                                 : kLengthsRowBytes * unit;
    // Over single ranks, the counts rows (pairs_in_first); else only headers.
    case SymBytes::pairs: return unit == 1 ? pairs_row_bytes(s.ranks) : 0;
  }
  return 0;
}

namespace {

// Where the data follows the first step: the heap's single copy before the
// rest where the operation has one (heap rules) and calls offer their
// buffers; CMA's in place of chunks or the flat path where it carries them.
Plan rest_by_copies(Plan p, const PlanInput& in, const PlanShape& s, const PlanSettings& set) {
  if (p.rest == Rest::none) return p;
  p.heap = set.direct && describe(in.op).heap.rules[0].mode != DirectMode::none;
  if (by_cma(in, s, set)) {
    p.rest = Rest::cma;
    p.chunk = StepPlan{};
    p.chunk_bytes = p.chunks = 0;
  }
  return p;
}

// The first step and what follows it through the areas (make_plan).
Plan first_and_rest(const PlanInput& in, const PlanShape& s, const PlanSettings& set) {
  Plan p;
  p.first = StepPlan{true, true, true, false, TopCase::tree, false};
  const bool gathers = describe(in.op).plan.walk == Route::up;  // gatherv (else scatterv)
  const bool rows_fit =
      gathers ? s.slot_bytes > kLengthsRowBytes : static_cast<std::size_t>(s.ranks) * kRowsEntryBytes < s.bcast_bytes;
  const bool one_pass = set.one_pass && !in.declines;
  if (lengths_step(in.op) && one_pass && set.one_group && set.cma && rows_fit) {
    // One pass with the rows (rows_in_first): gatherv's up, scatterv's
    // down; the single copies of the blocks that do not ride follow it.
    p.first = StepPlan{true, gathers, !gathers, gathers, TopCase::tree, true};
    p.rest = Rest::flat;
    p.lengths_data = std::min(kRowsDataBytes, gathers ? s.slot_bytes - kLengthsRowBytes : s.bcast_bytes);
    return p;
  }
  if (one_pass_prefix(in.op) && one_pass && set.one_group &&
      in.count * in.esize <= std::min({kScanPrefixBytes, s.slot_bytes, s.scratch_bytes()})) {
    // Every rank reads the inputs of the ranks before it where they lie
    // (base/prefix.hpp): no top folds them all.
    p.first = StepPlan{true, true, false, true, TopCase::prefix, true};
    return p;
  }
  const Fit f = fit(in, s, set);
  if (f.fits && one_pass) {
    const bool down = one_pass_down(in.op);
    const bool up = one_pass_up(in.op);
    if (up || down) {
      // Down, every base case releases alike; up, gather concatenates and
      // reduce combines as the group's base case says (k-nomial in a wide
      // group: its local root reads a few units, not all).
      p.first = StepPlan{true, up, down, describe(in.op).plan.concatenates, TopCase::tree, true};
      return p;
    }
  }
  if (f.fits) {
    p.first.flat = describe(in.op).plan.concatenates;
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
  if (const PlanRules& r = describe(in.op).plan; !r.chunks) {
    p.rest = Rest::flat;
  } else if (r.walk == Route::down) {
    chunked(s.bcast_bytes, false, true, TopCase::tree);
  } else if (r.walk == Route::up) {
    chunked(s.slot_bytes, true, false, TopCase::tree);
  } else {  // a round trip per chunk; a small top works in slices
    chunked(std::min(s.slot_bytes, s.bcast_bytes), true, true,
            s.top_units <= set.sym_max ? TopCase::slices : TopCase::tree);
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
      if (s.top_max_unit == 1 && gathers) p.lengths_data = kLengthsDataBytes;
    }
  } else if (describe(in.op).plan.counts == Counts::pairs) {
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

}  // namespace

Plan make_plan(const PlanInput& in, const PlanShape& s, const PlanSettings& set) {
  return rest_by_copies(first_and_rest(in, s, set), in, s, set);
}

PlanSettings PlanSettings::of(const CollectiveConfig& c, const Tree& tree) {
  PlanSettings s = of(c);
  // A property of the tree, the same on every rank, not of a rank's path (a
  // rank that leads a lower group has more lanes than one that does not).
  int groups = 0;
  std::size_t widest = 0;
  for (const Domain& d : tree.domains()) {
    if (!d.has_group()) continue;
    ++groups;
    widest = std::max(widest, d.group.size());
  }
  const auto most = static_cast<std::size_t>(std::max(c.one_pass_max, 0));
  s.one_pass = c.lazy && tree.size() > 1 && widest >= 2 && widest <= most;
  s.one_group = s.one_pass && groups == 1;
  return s;
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
