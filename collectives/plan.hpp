// What a call does, decided once: a pure function of the operation, its
// size, the tree's shape and the settings. The engine's operations run it
// (collectives/ops/*.cpp), the cost model predicts from it (tuning/model.cpp);
// neither decides anything of its own about paths, chunks or base cases.
//
// A call is a first step (headers up, verdict down; the data too when it fits
// the areas; or, for small rooted calls with OSMP_CHECK=lazy, one pass with
// the headers riding along) and then, for larger data, chunk steps over the
// tree, the flat path over the whole team (collectives/ops/flat.cpp) or
// CMA's single copy (collectives/ops/cma.cpp); before any of them, where the
// plan says so, the heap's single copy when every buffer it needs lies in
// the heaps or shared regions (collectives/ops/direct.cpp: the only part
// of a path that the ranks' buffers decide, read after the header step
// alike on every rank). At each
// group a step runs a base case (collectives/base/): flat or k-nomial below
// the top, and at the top one of the tree's local root, the symmetric top or
// the slice-parallel reduction.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/config.hpp"
#include "collectives/ops/describe.hpp"
#include "collectives/types.hpp"

namespace osmp {

class Tree;

// The tree as the plan needs it (the same for every rank of a team).
struct PlanShape {
  int ranks = 1;                // team size
  int top_units = 0;            // members of the top group (0: a team of one)
  int top_max_unit = 0;         // ranks in the top group's largest unit
  std::size_t slot_bytes = 0;   // per unit, per parity (shm/layout.hpp)
  std::size_t bcast_bytes = 0;  // the broadcast area, per parity
  constexpr std::size_t scratch_bytes() const { return slot_bytes > bcast_bytes ? slot_bytes : bcast_bytes; }
};
// The shape of `tree` with the given area sizes (Engine::create, the model).
PlanShape plan_shape(const Tree& tree, std::size_t slot_bytes, std::size_t bcast_bytes);

// How the top group runs a step.
enum class TopCase : std::uint8_t {
  tree,       // its local root collects, combines, releases (base/walk.hpp)
  symmetric,  // every member reads every other's line and computes the result (base/symmetric.hpp)
  slices,     // reduce-scatter then allgather among its members (base/slices.hpp)
  prefix,     // one pass: every member publishes its line and reads those of the ranks before it (base/prefix.hpp)
};

struct StepPlan {
  bool header = false;  // headers up, verdict down (the first step of every call)
  bool up = false;      // an up phase
  bool down = false;    // a down phase
  // Every group flat whatever its configured base case: the step concatenates
  // (gather, allgather), which needs every unit in unit order.
  bool flat = false;
  TopCase top = TopCase::tree;
  // A one-pass first step (OSMP_CHECK=lazy): down only (bcast, scatter,
  // scatterv's rows), up only (reduce, gather, gatherv's rows) or through
  // the prefix top (scan, exscan), the header riding with the data; the
  // ranks that check (the receivers, the root, each scan rank the ranks
  // before it) may be the only ones to see a mismatch (collectives/calls.hpp).
  bool one_pass = false;
  bool operator==(const StepPlan&) const = default;
};

// The kinds of step a one-group team's blocking step runs itself
// (base/one_group.hpp): one pass down, one pass up a flat lane, one pass
// through the prefix top, a round trip through the symmetric top; none: the
// step is the Walk's (one_group_kind, collectives/engine.hpp).
enum class OneGroupKind : std::uint8_t { none, down, up, prefix, symmetric };

// What follows the first step.
enum class Rest : std::uint8_t {
  none,    // the first step carried the data
  chunks,  // chunk steps over the tree (`chunk` says which way)
  flat,    // the flat path over the team (collectives/ops/flat.cpp)
  cma,     // CMA's single copy between the ranks' own buffers (collectives/ops/cma.cpp)
};

struct Plan {
  StepPlan first;
  Rest rest = Rest::none;
  StepPlan chunk;               // rest == chunks
  std::size_t chunk_bytes = 0;  // rest == chunks: bytes per chunk (a multiple of the element)
  std::size_t chunks = 0;       // rest == chunks: how many; they cover the bytes once
  // Before `rest`: the heap's single copy, taken where every buffer one of
  // the operation's heap rules names was offered (DirectCall::mode, after
  // the header step); the call offers its buffers, staging them from
  // stage_from (PlanSettings::direct, an operation with heap rules, data
  // that follows the first step).
  bool heap = false;
  // Gatherv's and scatterv's first step (lengths_step): the data bytes per
  // block its rows carry (0: none), and whether the rows have each their own
  // length, in their ranks' slots (kLengthsSlotDataBytes), or a fixed one.
  std::size_t lengths_data = 0;
  bool lengths_packed = false;
  bool operator==(const Plan&) const = default;
};

struct PlanInput {
  OpKind op = OpKind::barrier;
  std::size_t count = 0;  // elements per rank (for gathers and scatters: per block)
  std::size_t esize = 1;  // bytes per element
  // False when this rank takes part without data (its own arguments were
  // bad): it publishes nothing, which can make the top symmetric where the
  // others' data would not (the header at the top settles it: walk.hpp).
  bool carries = true;
  // allgatherv, reduce_scatter: every rank's elements together (the same on
  // every rank that passes the same counts; 0 on a rank without counts,
  // whose header then differs anyway); the other operations: 0.
  std::size_t total = 0;
  // allgatherv, reduce_scatter: the longest block's elements
  // (counts_longest; 0 on a rank without counts), on which CMA's range is
  // weighed (CmaPath::longest); the other operations: 0.
  std::size_t longest = 0;
  // This rank declines the call (Team::abstain: the MPI's own collective
  // should run it): it takes no one-pass plan, whose senders return before
  // any verdict and could not know whether every rank declined; a decliner
  // among one-pass ranks is a plan apart, found as any other (walk.hpp).
  bool declines = false;
  bool operator==(const PlanInput&) const = default;
};

// The operations whose plan weighs PlanInput::total, and ::longest: the one
// list for a real call's input (plan_for, ops/common.hpp) and a uniform one's.
constexpr bool plans_on_total(OpKind op) { return describe(op).plan.carry == Carry::total; }
constexpr bool plans_on_longest(OpKind op) { return describe(op).copies.cma == CmaPath::longest; }

// A call of `count` elements of `esize` bytes per rank where each of
// `ranks` ranks passes the same (the model's input, and the plan's tests').
inline PlanInput uniform_input(OpKind op, std::size_t count, std::size_t esize, int ranks, bool carries = true) {
  PlanInput in{op, count, esize, carries};
  if (plans_on_total(op)) in.total = count * static_cast<std::size_t>(ranks);
  if (plans_on_longest(op)) in.longest = count;
  return in;
}

// The thresholds of one step over the tree (kAlltoallTreeBytes,
// kAlltoallSymmetricBytes, kScanTreeBytes) are in the operations'
// descriptions (ops/alltoall.hpp, ops/scan.hpp: PlanRules).

// In a team that makes one-pass calls, scan and exscan go through the
// prefix top (one pass: each rank folds the inputs of the ranks before it,
// read in their slots) while a rank's input is at most this many bytes
// (2 processes, against the tree or the chain after a header step: 0.77
// us against 1.26 at 1 KiB, 1.04 / 1.49 at 2 KiB, 2.6 / 2.8 at 8 KiB, even
// at 16-64 KiB).
inline constexpr std::size_t kScanPrefixBytes = 8192;

struct PlanSettings {
  int sym_max = 8;       // OSMP_SYMMETRIC_MAX
  int sym_slot_max = 2;  // OSMP_SYMMETRIC_SLOT_MAX
  // The team makes one-pass calls (Engine::unit_acks: OSMP_CHECK=lazy, no
  // group of its tree wider than OSMP_ONE_PASS_MAX units).
  bool one_pass = false;
  // ... and its tree is one group, every unit a rank: scan's and exscan's
  // prefix top, gatherv's and scatterv's rows (rows_in_first) read every
  // rank's line in the team's one lane.
  bool one_group = false;
  // The team may copy with CMA (Engine::cma_settings): a one-pass gatherv's
  // or scatterv's blocks beyond its rows go that way (rows_in_first).
  // Allgather and allgatherv: where the range covers the blocks and the
  // team may copy with CMA, the single copy carries the call, even when the
  // blocks would fit the areas in one step.
  bool cma = false;
  CmaRange cma_range;
  // Calls offer their buffers for the heap's single copy (OSMP_DIRECT).
  bool direct = true;
  // CMA's size range applies (Engine::cma_settings): not with OSMP_CMA=auto
  // where the copy does not pay, where no size is CMA's and only the one-pass
  // gatherv's and scatterv's blocks beyond their rows still go by CMA.
  bool cma_sized = true;
  static PlanSettings of(const CollectiveConfig& c) {
    return {c.sym_max, c.sym_slot_max, false, false, false, c.cma_range, c.direct};
  }
  // ... with one_pass and one_group as a team on `tree` with numbered calls
  // has them (Engine::set_calls), which the cost model predicts alike.
  static PlanSettings of(const CollectiveConfig& c, const Tree& tree);
};

// CMA's single copy carries `bytes` per rank of `op` (its range weighs what
// the operation's CmaPath says): the plan's rule, which make_plan applies
// where the bytes are known before the call (Rest::cma), and gatherv,
// scatterv and alltoallv after their counts step, on the longest block.
constexpr bool cma_carries(OpKind op, std::size_t bytes, const PlanSettings& set) {
  return set.cma && set.cma_sized && set.cma_range.covers(op, bytes);
}
// The smallest block of `op` that CMA carries (alltoallv's per pair).
constexpr std::size_t cma_from(OpKind op, const PlanSettings& set) {
  return set.cma && set.cma_sized ? set.cma_range.from(op) : kNoLimit;
}
// The slice-parallel reductions' CMA (allreduce, reduce_scatter(_block)):
// the elements of `esize` bytes per piece, four scratch areas over the
// ranks; they need at least one.
constexpr std::size_t cma_piece(const PlanShape& s, std::size_t esize) {
  return 4 * s.scratch_bytes() / static_cast<std::size_t>(s.ranks) / (esize ? esize : 1);
}

// The operations whose one step may run the symmetric top with data beyond
// the line, through the slots (PlanRules::slot_symmetric): each member reads
// every other's slot, at a top of at most OSMP_SYMMETRIC_SLOT_MAX members.
constexpr bool slot_symmetric(OpKind op) { return describe(op).plan.slot_symmetric; }

Plan make_plan(const PlanInput& in, const PlanShape& shape, const PlanSettings& settings);

// The operations a one-pass plan may take when they fit one step: down only
// (bcast, scatter) or up only (reduce, gather) ...
constexpr bool one_pass_down(OpKind op) {
  return describe(op).plan.walk == Route::down && describe(op).plan.counts == Counts::none;
}
constexpr bool one_pass_up(OpKind op) {
  return describe(op).plan.walk == Route::up && describe(op).plan.counts == Counts::none;
}
// ... or through the prefix top (scan, exscan: every rank reads the ranks
// before it, rank 0 none).
constexpr bool one_pass_prefix(OpKind op) { return describe(op).plan.walk == Route::prefix; }

// The v-variants whose counts differ between ranks and are compared in a
// step of their own (gatherv, scatterv: the first step gathers every rank's
// length; alltoallv: agree_pairs after the header step, ops/flat.cpp). The
// others (allgatherv, reduce_scatter) pass the same counts on every rank,
// whose digest the header carries.
constexpr bool counts_step(OpKind op) { return describe(op).plan.counts != Counts::none; }
// Gatherv's and scatterv's first step carries this many bytes per rank up
// the tree (its block's length; at the root, the digest of its counts) and
// down (the longest block, whether the lengths are the root's counts).
constexpr bool lengths_step(OpKind op) { return describe(op).plan.counts == Counts::lengths; }
// Whether a call of `op` may make one pass where it fits one step (a
// mismatch may then send some ranks on a one-pass plan, which waits for
// nobody, while others take a round trip: walk.hpp's elsewhere). Gatherv and
// scatterv make one pass at every size or never (rows_in_first: the same
// plan on every rank of a team), so their ranks never split so.
constexpr bool may_one_pass(OpKind op) { return one_pass_down(op) || one_pass_up(op) || one_pass_prefix(op); }
inline constexpr std::size_t kLengthsRowBytes = 16;
// Where every rank is a unit of a symmetric top (so every rank reads every
// row) the rows also carry data: gatherv's the first bytes of each rank's
// block, scatterv's root's the first bytes of every rank's block; a call
// whose blocks all fit is done in that step. This many bytes per block in
// rows of a fixed size where they fit the lines (gatherv over at most
// OSMP_SYMMETRIC_MAX ranks);
inline constexpr std::size_t kLengthsDataBytes = 16;
// ... this many in rows of their own length, each in its rank's slot
// (Plan::lengths_packed: a top of at most OSMP_SYMMETRIC_SLOT_MAX ranks).
// (2 processes: gatherv 0.46-0.51 us against 0.54-0.60 at 32-512 B, even
// at 1 KiB, 0.66-0.86 against 0.59-0.75 at 2-4 KiB: beyond, the flat path's
// two copies beat the row's three).
inline constexpr std::size_t kLengthsSlotDataBytes = 1024;
// The most bytes a rank's row takes in the slot where the rows are packed:
// gatherv's any rank's, scatterv's the root's (the others' only the row).
constexpr std::size_t lengths_packed_bytes(OpKind op, int ranks) {
  return kLengthsRowBytes +
         kLengthsSlotDataBytes * (describe(op).plan.walk == Route::down ? static_cast<std::size_t>(ranks) : 1);
}
// The data bytes per block the rows carry in the plan `p` (0: none).
constexpr std::size_t lengths_data_bytes(const Plan& p) { return p.lengths_data; }

// A lazy gatherv or scatterv (a team of one group that makes one-pass
// calls, PlanSettings::one_group, and may copy with CMA): its first step is one pass
// with rows. Gatherv's goes up, every rank's row (its block's length) in
// its slot with the block when it is at most Plan::lengths_data bytes (this
// many, or the slot's room); the root checks each length against its
// counts, copies the blocks that rode and tells the ranks of longer ones
// where theirs go; they write them by CMA after its ack, the root waiting
// for them. Scatterv's goes down, the
// root's rows (every rank's length and place) with the blocks of at most
// as many bytes that fit its release's area; each rank checks its own
// length, copies its block or reads it by CMA, while the root waits for
// the acks of those that read (ops/rows.cpp).
inline constexpr std::size_t kRowsDataBytes = 16384;
// Scatterv's rows: an entry of this many bytes per rank (the length, where
// the block is in the area or the root's buffer), which must fit the area.
inline constexpr std::size_t kRowsEntryBytes = 24;
constexpr bool rows_in_first(OpKind op, const Plan& p) { return lengths_step(op) && p.first.one_pass; }

// Alltoallv's counts row (collectives/ops/pairs.hpp): an entry of this many
// bytes per rank, a tail, then its blocks from pairs_blocks_at(n).
inline constexpr std::size_t kPairsEntryBytes = 24;
inline constexpr std::size_t kPairsTailBytes = 16;
constexpr std::size_t pairs_blocks_at(int n) {
  return static_cast<std::size_t>(n) * kPairsEntryBytes + kPairsTailBytes;
}
// Up to this many ranks every rank reads every row whole (n * n entries: 6
// KiB at 16), and so finds the same first difference as every other;
// beyond, agree_pairs has each check its own column and share the findings
// in a second step.
inline constexpr int kPairsAllRowsMax = 16;
// Where every rank is a unit of a symmetric top, alltoallv's first step
// carries the rows (the counts step folded into it: pairs_in_first), each
// with its blocks when together they are at most pairs_first_cap(n) bytes
// (as alltoall's symmetric top, kAlltoallSymmetricBytes for the whole
// exchange).
constexpr std::size_t pairs_first_cap(int n) { return kAlltoallSymmetricBytes / static_cast<std::size_t>(n); }
constexpr std::size_t pairs_row_bytes(int n) { return pairs_blocks_at(n) + pairs_first_cap(n); }
constexpr bool pairs_in_first(OpKind op, const Plan& p) {
  return describe(op).plan.counts == Counts::pairs && p.first.flat;
}

// The base case a group runs in a step: the one configured for it
// (CollectiveConfig::choose, fixed at team creation) unless the step is flat.
inline BaseCase level_base(const StepPlan& s, const BaseCase& chosen) {
  return s.flat ? BaseCase{BaseCase::Kind::flat, 0} : chosen;
}

// The bytes unit-of-most publishes at a symmetric top in the first step of
// `in` (0: nothing beyond the flags).
std::size_t symmetric_bytes(const PlanInput& in, const PlanShape& shape);

}  // namespace osmp
