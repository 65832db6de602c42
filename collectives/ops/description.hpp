// What an operation's description says (OpDesc) and the words its row is
// written in (RowTerms). Each operation's row is its own header,
// collectives/ops/<name>.hpp (Description<OpKind::<name>>); describe.hpp
// gathers them into the table every layer reads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/types.hpp"

namespace osmp {

// How much of one buffer a rank reads or writes: nothing, its own block
// (count elements of the datatype), or every rank's (count * ranks).
enum class Amount : std::uint8_t { none, one, all };
constexpr std::size_t bytes_of(Amount a, std::size_t one, std::size_t all) {
  return a == Amount::one ? one : a == Amount::all ? all : 0;
}

// An amount, or a permission, at the root and at the other ranks (an
// operation without a root: the same on every rank).
template <class T>
struct ByRole {
  T root{}, other{};
  constexpr T at(bool is_root) const { return is_root ? root : other; }
};

// The copy a call on a team of one implies (nothing moves between ranks).
enum class Alone : std::uint8_t {
  nothing,          // barrier, bcast, exscan (rank 0's output is undefined)
  input_to_output,  // the input (the output itself in place) to the output, `count` elements
  output_of_input,  // scatter: the input's own block to the output, unless the output is in place
  own_block_out,    // gatherv, allgatherv: the input to the output at displs[0], unless in place
  own_block_in,     // scatterv: the input at displs[0] to the output, unless in place
  whole_share,      // reduce_scatter: the input, counts[0] elements, to the output, unless in place
  own_pair,         // alltoallv: the input at displs[0] to the output at recv_displs[0], recv_counts[0]
};

// The uniform operations' buffers, as MPI's rules have them (the
// v-variants' blocks are checked by arguments.hpp's check_varied).
struct Buffers {
  ByRole<Amount> send{}, recv{};  // what a rank reads from send, writes into recv
  ByRole<bool> send_in_place{};   // send may be kInPlace (the input is in recv)
  ByRole<bool> recv_in_place{};   // recv may be kInPlace (the output stays in send)
  // An exclusive prefix (exscan): each rank's result leaves out its own
  // input, so rank 0 writes nothing unless in place (recv may be null);
  // the MPI glue's nodes_scan reads it so.
  bool first_writes_nothing = false;
};

// The v-variants (per-rank counts): the uniform operation each varies, how
// its blocks lie, and which ranks hold every block (arguments.hpp's
// check_varied, the MPI glue's prepare_gathered; the flat paths move them
// with ops/common.hpp's Blocks). Every other operation is uniform: `count`
// elements per rank, checked against its Buffers.
enum class BlockLayout : std::uint8_t {
  uniform,    // not a v-variant
  gathered,   // each rank's own block (send) into the blocks (recv): gatherv, allgatherv
  scattered,  // the blocks (send) out to each rank's own block (recv): scatterv
  shares,     // every rank's share counts[r] of the input, their sum: reduce_scatter
  pairs,      // both sides' blocks on every rank: alltoallv
};
struct Varied {
  BlockLayout layout = BlockLayout::uniform;  // from the form in osmp_ops.h (describe.hpp: layout_of)
  OpKind of = OpKind::barrier;                // the uniform operation it varies (layout != uniform)
  ByRole<bool> holds{};                       // gathered, scattered: the ranks whose buffer holds every block
                                              // (from `of`'s buffers: describe.hpp)
};

// How the heap's single copy (ops/direct.cpp) moves a call.
enum class DirectMode : std::uint8_t {
  none,  // some buffer the call needs is in no heap or region: the other path
  pull,  // readers copy from the owners' buffers (reductions: each its share)
  push,  // owners copy into the readers' buffers
  both,  // bcast: the root and each receiver copy a part of its buffer
};
// Whose buffers a heap mode needs in the heaps (or regions): nobody's, the
// root's, every rank's but the root's, every rank's.
enum class Whose : std::uint8_t { nobody, root, others, everyone };
// A mode, taken where every buffer it names was offered.
struct HeapRule {
  Whose send = Whose::nobody, recv = Whose::nobody;
  DirectMode mode = DirectMode::none;
};

// The heap's single copy (ops/direct.cpp): how much of each rank's send and
// receive buffers its peers read and write (an offered buffer is checked
// against it), which of this rank's buffers are staged into its heap when
// they are outside it (peers read a staged input; a staged output is copied
// out once the call is done), and the modes it may take, in order: after
// the header step every rank reads every rank's offers and takes the first
// rule whose buffers all were offered (DirectCall::mode), else the other
// path. Reduce stages nothing: its single copy needs the root's output in
// the heap too, and staging that costs the root, the rank that waits
// longest, a full copy more (measured slower than the areas' chunks).
// Operations without a heap path offer nothing and have no rule.
struct HeapUse {
  ByRole<Amount> offer_send{}, offer_recv{};
  ByRole<bool> staged_send{};
  bool staged_recv = false;
  HeapRule rules[3]{};
};

// The way an operation's data goes over the tree.
enum class Route : std::uint8_t {
  none,        // barrier: the headers only, up and down
  down,        // from the root (bcast, scatter, scatterv)
  up,          // to the root (reduce, gather, gatherv)
  round_trip,  // up to the top and down again (allreduce, allgather(v), reduce_scatter(_block), alltoall)
  prefix,      // each rank's result from the ranks before it (scan, exscan)
  pairs,       // each pair of ranks its own block (alltoallv: its counts step, then the flat path)
};

// Counts that differ between ranks and are compared in a step of their own
// (plan.hpp: counts_step): every rank's length in the first step (gatherv,
// scatterv), or alltoallv's counts rows (agree_pairs). Allgatherv's and
// reduce_scatter's counts are the same on every rank: their digest rides in
// the header.
enum class Counts : std::uint8_t { none, lengths, pairs };

// How many bytes a call's one step carries through the areas (plan.cpp's
// fit): the carried bytes must fit every area the step goes through.
enum class Carry : std::uint8_t {
  nothing,  // barrier: always one step
  one,      // one rank's block (count elements)
  all,      // every rank's block (count * ranks)
  square,   // every rank's blocks for every rank (alltoall: count * ranks * ranks)
  total,    // every rank's elements together (PlanInput::total: allgatherv, reduce_scatter)
  never,    // a counts step, then the flat path (gatherv, scatterv, alltoallv)
};
enum Area : std::uint8_t { kSlotArea = 1, kBcastArea = 2, kScratchArea = 4 };

// Allgather's and allgatherv's single copy (CMA) carries the call where its
// range covers a block, even when the blocks would fit one step: weighed on
// this rank's own block, or the longest (the same on every rank).
enum class CmaFirst : std::uint8_t { never, own_block, longest_block };

// What one member of a symmetric top publishes (plan.cpp's symmetric_bytes;
// its largest unit's `top_max_unit` ranks).
enum class SymBytes : std::uint8_t {
  never,          // scatter: each unit needs a different part, which only the root's unit has
  none,           // barrier: the header only
  one,            // a block (bcast, reduce, allreduce)
  per_unit,       // its unit's blocks (gather, allgather, scan, exscan)
  per_rank,       // a block per rank of the team (reduce_scatter_block)
  per_rank_unit,  // its unit's blocks for every rank (alltoall)
  total,          // every rank's elements (allgatherv, reduce_scatter)
  lengths,        // the lengths rows (gatherv, scatterv: plan.cpp)
  pairs,          // the counts rows over single ranks (alltoallv: plan.cpp)
};

// What one step over the tree moves where it carries the data, for the
// cost model (tuning/model.cpp): up, flags only, a fold of `up_m` or a
// gather of `up_m` per rank; down, flags only, the same `down_m` to every
// member or a part of `down_m` to each; `m` a rank's block in bytes.
enum class UpMove : std::uint8_t { flags, reduce, gather };
enum class DownMove : std::uint8_t { flags, same, scatter };
enum class Times : std::uint8_t { zero, one, ranks };  // m times this
struct StepShape {
  UpMove up = UpMove::flags;
  Times up_m = Times::zero;
  DownMove down = DownMove::flags;
  Times down_m = Times::zero;
};

// What the plan weighs (collectives/plan.cpp).
struct PlanRules {
  Route walk = Route::none;
  Counts counts = Counts::none;
  Carry carry = Carry::nothing;
  std::uint8_t areas = 0;         // Area bits
  std::size_t tree_cap = 0;       // one step over the tree carries at most this many bytes (0: no cap) ...
  std::size_t symmetric_cap = 0;  // ... or this many at a symmetric top of single ranks
  CmaFirst cma_first = CmaFirst::never;
  bool concatenates = false;    // local roots concatenate their units' data in unit order (flat groups)
  bool slot_symmetric = false;  // the symmetric top may take data beyond the line through the slots
  bool chunks = false;          // beyond one step, chunk steps over the tree in its walk (else the flat path)
  SymBytes symmetric = SymBytes::none;
  StepShape step{};  // the v-variants with a counts step: flags only (they never carry data in a step)
};

// Which of a call's arguments (CollArgs) an operation takes: its entry
// points' signature, its form in osmp_ops.h (describe.hpp: takes_of). The op only where is_reduction, the root
// only where is_rooted (osmp_ops.h); as_called (engine.hpp) clears the rest,
// so that every route hands the engine the same call.
struct Takes {
  bool send = true, recv = true;
  bool count = true;    // this rank's count (its own block)
  bool counts = false;  // every rank's counts (the v-variants)
  bool displs = false;  // ... and displacements
  bool pairs = false;   // the receive side's counts and displacements too (alltoallv)
};

// The single copies' default thresholds, in bytes per rank
// (collectives/config.hpp: CmaRange::from/until, stage_from; OSMP_CMA_MIN
// and OSMP_STAGE_MIN set one value for every operation instead). CMA
// carries [cma_from, cma_until); without CMA, plain buffers are staged
// into the heap from stage_from.
inline constexpr std::size_t kNoLimit = ~std::size_t{0};
// The single copy with CMA an operation has (ops/cma.cpp), and what its
// range weighs (plan.hpp: cma_carries): none; a rank's block (count
// elements: bcast's whole buffer, the reductions' input); the longest block
// (PlanInput::longest: allgatherv, reduce_scatter); the longest block its
// counts step found (gatherv, scatterv, alltoallv: decided after that step,
// as alltoall's for alltoallv); a rank's block in a team of two only
// (exscan: rank 1 reads rank 0's input). The slice-parallel reductions'
// also needs a piece of at least one element per rank (plan.hpp: cma_piece).
enum class CmaPath : std::uint8_t { none, block, longest, after_counts, two_ranks };
struct CopyRange {
  CmaPath cma = CmaPath::none;
  std::size_t cma_from = std::size_t{64} << 10;
  std::size_t cma_until = kNoLimit;
  std::size_t stage_from = std::size_t{1} << 20;
};

struct OpDesc {
  OpKind kind = OpKind::barrier;
  Takes takes{};
  Buffers buffers{};
  Varied varied{};
  Alone alone = Alone::nothing;
  HeapUse heap{};
  PlanRules plan{};
  CopyRange copies{};
};

// The words of a row: each Description derives from it.
struct RowTerms {
  static constexpr ByRole<Amount> kNone{}, kOne{Amount::one, Amount::one}, kAll{Amount::all, Amount::all};
  static constexpr ByRole<Amount> at_root(Amount a) { return {a, Amount::none}; }
  static constexpr ByRole<bool> kNowhere{}, kEverywhere{true, true}, kRootOnly{true, false}, kButRoot{false, true};
  static constexpr std::uint8_t kAllAreas = kSlotArea | kBcastArea | kScratchArea;
};

// Description<OpKind::<name>>::row, in collectives/ops/<name>.hpp; the
// primary is never defined, so that an operation without its header fails
// to compile where describe.hpp gathers the rows (configuring the build
// already stops: collectives/CMakeLists.txt).
template <OpKind K>
struct Description;

}  // namespace osmp
