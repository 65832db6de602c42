// Each operation described once: the arguments it takes, which buffers
// each rank reads and writes and how much of them, where MPI's in place is
// allowed, the copy a team of one makes, what the heap's single copy offers
// and stages, the walk and data shape the plan and the cost model weigh,
// and the single copies' thresholds. The layers read this instead of
// switching on the operation: the argument checks (arguments.hpp), the team
// of one (Engine::begin, and the MPI glue's one-process call), the heap's
// single copy (ops/direct.cpp), the plan (plan.cpp), the cost model
// (tuning/model.cpp), the thresholds (config.hpp), and the layers that hold
// the operation as a value (engine.hpp's as_called: the MPI glue,
// osmp-tune). A constexpr table: where the operation is a constant (the
// common call, Engine::run_call) every look-up folds away.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>

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
  ByRole<Amount> send{}, recv{};      // what a rank reads from send, writes into recv
  ByRole<bool> send_in_place{};       // send may be kInPlace (the input is in recv)
  ByRole<bool> recv_in_place{};       // recv may be kInPlace (the output stays in send)
  bool first_writes_nothing = false;  // exscan: rank 0 writes nothing unless in place (recv may be null)
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
  BlockLayout layout = BlockLayout::uniform;  // from the form in osmp_ops.h (layout_of below)
  OpKind of = OpKind::barrier;                // the uniform operation it varies (layout != uniform)
  ByRole<bool> holds{};                       // gathered, scattered: the ranks whose blocks buffer holds every block
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

// Alltoall goes through the tree in one step (every rank's n blocks
// gathered up, transposed at the top, scattered down) while the whole
// exchange, n * n blocks, is at most this many bytes; beyond, the top's
// serial copies cost more than the flat path's exchange through every
// rank's outbox, where each rank copies its own blocks in parallel
// (2 processes: 0.23 us against 0.66 at 4 B per pair, 0.80 each at 1 KiB,
// 1.63 against 0.98 at 2 KiB, 9.0 against 2.35 at 8 KiB).
inline constexpr std::size_t kAlltoallTreeBytes = 4096;
// ... or up to this many at a symmetric top whose units are single ranks
// (a small team's one group; OSMP_SYMMETRIC_SLOT_MAX), where each rank takes
// its own block of every other's slot and no rank does the others' copies
// (2 processes, against the flat path: 0.23 us against 0.45 at 512 B per
// pair, 0.31 / 0.69 at 1 KiB, 0.76 / 0.98 at 4 KiB; 4.5 / 1.7 at 8 KiB).
inline constexpr std::size_t kAlltoallSymmetricBytes = 16384;

// Scan and exscan go through the tree in one step (every input up, the top
// folding them in rank order, every result down) while all the inputs
// together are at most this many bytes; beyond, along the chain of ranks,
// where each rank copies and combines only its own part (2 processes: 0.17
// us against 0.26 at 4 B, 0.26 against 0.34 at 512 B, 0.39 against 0.31 at
// 1 KiB, 3.9 against 1.1 at 8 KiB; 4 on 2 cores: the chain from 64 B).
inline constexpr std::size_t kScanTreeBytes = 1024;

// Which of a call's arguments (CollArgs) an operation takes: its entry
// points' signature, its form in osmp_ops.h (takes_of below). The op only where is_reduction, the root
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
struct CopyRange {
  std::size_t cma_from = std::size_t{64} << 10;
  std::size_t cma_until = kNoLimit;
  std::size_t stage_from = std::size_t{1} << 20;
};

struct OpDesc {
  OpKind kind = OpKind::barrier;
  Takes takes{};
  Buffers buffers{};
  Varied varied{};
  bool exclusive = false;  // a prefix without the rank's own input (exscan; the MPI glue's nodes_scan)
  Alone alone = Alone::nothing;
  HeapUse heap{};
  PlanRules plan{};
  CopyRange copies{};
};

namespace describe_detail {

inline constexpr ByRole<Amount> kNone{}, kOne{Amount::one, Amount::one}, kAll{Amount::all, Amount::all};
constexpr ByRole<Amount> at_root(Amount a) { return {a, Amount::none}; }
inline constexpr ByRole<bool> kNowhere{}, kEverywhere{true, true}, kRootOnly{true, false}, kButRoot{false, true};
inline constexpr std::uint8_t kAllAreas = kSlotArea | kBcastArea | kScratchArea;
// Scan's and exscan's: every input up, every result down (the top folds
// them in rank order), or through the prefix top in one pass.
inline constexpr PlanRules kPrefixPlan{.walk = Route::prefix,
                                       .carry = Carry::all,
                                       .areas = kAllAreas,
                                       .tree_cap = kScanTreeBytes,
                                       .concatenates = true,
                                       .symmetric = SymBytes::per_unit,
                                       .step = {UpMove::gather, Times::one, DownMove::scatter, Times::one}};

// CMA's thresholds (2 processes): allgather(v) below 32 KiB per rank goes
// through the one step's symmetric top in the slots (9.4 us against 7.1 at
// 32 KiB, 4.9 / 5.3 at 16 KiB); exscan of two ranks (rank 1 reads rank 0's
// input) beats the chain through the outboxes from 32 KiB (4.5 us against
// 5.8, the same at 16). Allreduce stages its buffers from 128 KiB.
inline constexpr OpDesc kRows[] = {
    {.kind = OpKind::barrier, .buffers = {}, .plan = {.symmetric = SymBytes::none}},
    // One buffer (recv); the heap offers the root's as its input.
    {.kind = OpKind::bcast,
     .buffers = {.send = kNone, .recv = kOne},
     .heap = {.offer_send = at_root(Amount::one),
              .offer_recv = kOne,
              .staged_send = kRootOnly,
              // the root and each receiver a part, or the receivers pull, or the root pushes
              .rules = {{Whose::root, Whose::others, DirectMode::both},
                        {Whose::root, Whose::nobody, DirectMode::pull},
                        {Whose::nobody, Whose::others, DirectMode::push}}},
     .plan = {.walk = Route::down,
              .carry = Carry::one,
              .areas = kBcastArea,
              .chunks = true,
              .symmetric = SymBytes::one,
              .step = {UpMove::flags, Times::zero, DownMove::same, Times::one}},
     .copies = {.cma_from = std::size_t{128} << 10}},
    {.kind = OpKind::reduce,
     .buffers = {.send = kOne, .recv = at_root(Amount::one), .send_in_place = kRootOnly},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kOne,
              .offer_recv = at_root(Amount::one),
              .rules = {{Whose::everyone, Whose::root, DirectMode::pull}}},
     .plan = {.walk = Route::up,
              .carry = Carry::one,
              .areas = kSlotArea,
              .chunks = true,
              .symmetric = SymBytes::one,
              .step = {UpMove::reduce, Times::one, DownMove::flags, Times::zero}}},
    {.kind = OpKind::allreduce,
     .buffers = {.send = kOne, .recv = kOne, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kOne,
              .offer_recv = kOne,
              .staged_send = kEverywhere,
              .staged_recv = true,
              .rules = {{Whose::everyone, Whose::everyone, DirectMode::pull}}},
     .plan = {.walk = Route::round_trip,
              .carry = Carry::one,
              .areas = kSlotArea | kBcastArea,
              .slot_symmetric = true,
              .chunks = true,
              .symmetric = SymBytes::one,
              .step = {UpMove::reduce, Times::one, DownMove::same, Times::one}},
     .copies = {.cma_until = std::size_t{1} << 20, .stage_from = std::size_t{128} << 10}},
    {.kind = OpKind::gather,
     .buffers = {.send = kOne, .recv = at_root(Amount::all), .send_in_place = kRootOnly},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kOne,
              .offer_recv = at_root(Amount::all),
              .staged_send = kButRoot,
              // the senders write in parallel; the root reading them is serial
              .rules = {{Whose::nobody, Whose::root, DirectMode::push},
                        {Whose::others, Whose::nobody, DirectMode::pull}}},
     .plan = {.walk = Route::up,
              .carry = Carry::all,
              .areas = kSlotArea | kScratchArea,
              .concatenates = true,
              .symmetric = SymBytes::per_unit,
              .step = {UpMove::gather, Times::one, DownMove::flags, Times::zero}}},
    {.kind = OpKind::allgather,
     .buffers = {.send = kOne, .recv = kAll, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kOne,
              .offer_recv = kAll,
              .staged_send = kEverywhere,
              .rules = {{Whose::everyone, Whose::nobody, DirectMode::pull},
                        {Whose::nobody, Whose::everyone, DirectMode::push}}},
     .plan = {.walk = Route::round_trip,
              .carry = Carry::all,
              .areas = kAllAreas,
              .cma_first = CmaFirst::own_block,
              .concatenates = true,
              .slot_symmetric = true,
              .symmetric = SymBytes::per_unit,
              .step = {UpMove::gather, Times::one, DownMove::same, Times::ranks}},
     .copies = {.cma_from = std::size_t{32} << 10}},
    {.kind = OpKind::scatter,
     .buffers = {.send = at_root(Amount::all), .recv = kOne, .recv_in_place = kRootOnly},
     .alone = Alone::output_of_input,
     .heap = {.offer_send = at_root(Amount::all),
              .offer_recv = kOne,
              .staged_send = kRootOnly,
              .rules = {{Whose::root, Whose::nobody, DirectMode::pull},
                        {Whose::nobody, Whose::others, DirectMode::push}}},
     .plan = {.walk = Route::down,
              .carry = Carry::all,
              .areas = kBcastArea | kScratchArea,
              .symmetric = SymBytes::never,
              .step = {UpMove::flags, Times::zero, DownMove::scatter, Times::one}}},
    {.kind = OpKind::reduce_scatter_block,
     .buffers = {.send = kAll, .recv = kOne, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kAll,
              .staged_send = kEverywhere,
              .rules = {{Whose::everyone, Whose::nobody, DirectMode::pull}}},
     .plan = {.walk = Route::round_trip,
              .carry = Carry::all,
              .areas = kAllAreas,
              .slot_symmetric = true,
              .symmetric = SymBytes::per_rank,
              .step = {UpMove::reduce, Times::ranks, DownMove::scatter, Times::one}},
     .copies = {.cma_until = std::size_t{512} << 10}},
    {.kind = OpKind::alltoall,
     .buffers = {.send = kAll, .recv = kAll, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kAll,
              .offer_recv = kAll,
              .staged_send = kEverywhere,
              .rules = {{Whose::everyone, Whose::nobody, DirectMode::pull},
                        {Whose::nobody, Whose::everyone, DirectMode::push}}},
     .plan = {.walk = Route::round_trip,
              .carry = Carry::square,
              .areas = kAllAreas,
              .tree_cap = kAlltoallTreeBytes,
              .symmetric_cap = kAlltoallSymmetricBytes,
              .concatenates = true,
              .slot_symmetric = true,
              .symmetric = SymBytes::per_rank_unit,
              .step = {UpMove::gather, Times::ranks, DownMove::scatter, Times::ranks}}},
    {.kind = OpKind::scan,
     .buffers = {.send = kOne, .recv = kOne, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output,
     .plan = kPrefixPlan},
    {.kind = OpKind::exscan,
     .buffers = {.send = kOne, .recv = kOne, .send_in_place = kEverywhere, .first_writes_nothing = true},
     .exclusive = true,
     .plan = kPrefixPlan,
     .copies = {.cma_from = std::size_t{32} << 10}},
    {.kind = OpKind::gatherv,
     .varied = {.of = OpKind::gather, .holds = kRootOnly},
     .alone = Alone::own_block_out,
     .plan = {.walk = Route::up,
              .counts = Counts::lengths,
              .carry = Carry::never,
              .concatenates = true,
              .symmetric = SymBytes::lengths}},
    {.kind = OpKind::allgatherv,
     .varied = {.of = OpKind::allgather, .holds = kEverywhere},
     .alone = Alone::own_block_out,
     .plan = {.walk = Route::round_trip,
              .carry = Carry::total,
              .areas = kAllAreas,
              .cma_first = CmaFirst::longest_block,
              .concatenates = true,
              .slot_symmetric = true,
              .symmetric = SymBytes::total,
              .step = {UpMove::gather, Times::one, DownMove::same, Times::ranks}},
     .copies = {.cma_from = std::size_t{32} << 10}},
    {.kind = OpKind::scatterv,
     .varied = {.of = OpKind::scatter, .holds = kRootOnly},
     .alone = Alone::own_block_in,
     .plan = {.walk = Route::down,
              .counts = Counts::lengths,
              .carry = Carry::never,
              .concatenates = true,
              .symmetric = SymBytes::lengths}},
    {.kind = OpKind::alltoallv,
     .varied = {.of = OpKind::alltoall},
     .alone = Alone::own_pair,
     .plan = {.walk = Route::pairs,
              .counts = Counts::pairs,
              .carry = Carry::never,
              .slot_symmetric = true,
              .symmetric = SymBytes::pairs}},
    {.kind = OpKind::reduce_scatter,
     .varied = {.of = OpKind::reduce_scatter_block},
     .alone = Alone::whole_share,
     .plan = {.walk = Route::round_trip,
              .carry = Carry::total,
              .areas = kAllAreas,
              .slot_symmetric = true,
              .symmetric = SymBytes::total,
              .step = {UpMove::reduce, Times::ranks, DownMove::scatter, Times::one}}},
};

// The arguments and the blocks' layout follow from the row's form in
// osmp_ops.h, from which the entry points are generated too.
enum class Form : std::uint8_t { none, buffer, uniform, gathered, scattered, shares, pairs };
#define OSMP_FORM_OF_(name, Name, NAME, key, rooted, reduces, form) Form::form,
inline constexpr Form kForms[] = {OSMP_COLLECTIVES(OSMP_FORM_OF_)};
#undef OSMP_FORM_OF_
constexpr Takes takes_of(Form f) {
  switch (f) {
    case Form::none: return {.send = false, .recv = false, .count = false};
    case Form::buffer: return {.send = false};
    case Form::uniform: return {};
    case Form::gathered:
    case Form::scattered: return {.counts = true, .displs = true};
    case Form::shares: return {.count = false, .counts = true};
    case Form::pairs: return {.count = false, .counts = true, .displs = true, .pairs = true};
  }
  return {};
}
constexpr BlockLayout layout_of(Form f) {
  switch (f) {
    case Form::gathered: return BlockLayout::gathered;
    case Form::scattered: return BlockLayout::scattered;
    case Form::shares: return BlockLayout::shares;
    case Form::pairs: return BlockLayout::pairs;
    default: return BlockLayout::uniform;
  }
}
static_assert(std::size(kRows) == kOpKindCount, "one description per row of osmp_ops.h");
static_assert(std::size(kForms) == kOpKindCount);
constexpr std::array<OpDesc, kOpKindCount> with_forms() {
  std::array<OpDesc, kOpKindCount> t{};
  for (int i = 0; i < kOpKindCount; ++i) {
    t[i] = kRows[i];
    t[i].takes = takes_of(kForms[i]);
    t[i].varied.layout = layout_of(kForms[i]);
  }
  return t;
}
inline constexpr std::array<OpDesc, kOpKindCount> kTable = with_forms();

constexpr bool in_order() {
  for (int i = 0; i < kOpKindCount; ++i)
    if (op_index(kTable[i].kind) != i) return false;
  return true;
}
// A v-variant varies a uniform operation, whose row says it is one.
constexpr bool varies_uniform() {
  for (const OpDesc& d : kTable) {
    if (d.varied.layout == BlockLayout::uniform) continue;
    const int of = op_index(d.varied.of);
    if (of < 0 || kTable[of].varied.layout != BlockLayout::uniform) return false;
  }
  return true;
}
static_assert(in_order(), "the descriptions in osmp_ops.h's order");
static_assert(varies_uniform(), "a v-variant's `of` is a uniform operation");

}  // namespace describe_detail

// Every caller passes a kind of osmp_ops.h (the entries fix it, configure
// checks the user's); another reads as the first row, never out of bounds.
constexpr const OpDesc& describe(OpKind k) {
  const int i = op_index(k);
  return describe_detail::kTable[i < 0 ? 0 : i];
}

// The v-variants take per-rank counts and displacements; each varies one
// operation of uniform blocks, which every other operation is of itself.
constexpr bool is_varied(OpKind k) { return describe(k).varied.layout != BlockLayout::uniform; }
constexpr OpKind uniform_of(OpKind k) { return is_varied(k) ? describe(k).varied.of : k; }
// Whether a call moves data (a size to sweep, a buffer to hand): all but barrier.
constexpr bool moves_data(OpKind k) { return describe(k).takes.send || describe(k).takes.recv; }

}  // namespace osmp
