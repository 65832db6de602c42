// Each operation described once: which buffers each rank reads and writes
// and how much of them, where MPI's in place is allowed, the copy a team of
// one makes, and what the heap's single copy offers and stages. The layers
// read this instead of switching on the operation: the argument checks
// (arguments.hpp), the team of one (Engine::begin) and the heap's single
// copy (ops/direct.cpp). A constexpr table: where the operation is a
// constant (the common call, Engine::run_call) every look-up folds away.
#pragma once

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
  ByRole<Amount> send{}, recv{};     // what a rank reads from send, writes into recv
  ByRole<bool> send_in_place{};      // send may be kInPlace (the input is in recv)
  ByRole<bool> recv_in_place{};      // recv may be kInPlace (the output stays in send)
  bool first_writes_nothing = false;  // exscan: rank 0 writes nothing unless in place (recv may be null)
};

// The heap's single copy (ops/direct.cpp): how much of each rank's send and
// receive buffers its peers read and write (an offered buffer is checked
// against it), and which of this rank's buffers are staged into its heap
// when they are outside it (peers read a staged input; a staged output is
// copied out once the call is done). Reduce stages nothing: its single copy
// needs the root's output in the heap too, and staging that costs the root,
// the rank that waits longest, a full copy more (measured slower than the
// areas' chunks). Operations without a heap path offer nothing.
struct HeapUse {
  ByRole<Amount> offer_send{}, offer_recv{};
  ByRole<bool> staged_send{};
  bool staged_recv = false;
};

struct OpDesc {
  OpKind kind = OpKind::barrier;
  Buffers buffers{};
  Alone alone = Alone::nothing;
  HeapUse heap{};
};

namespace describe_detail {

constexpr ByRole<Amount> kNone{}, kOne{Amount::one, Amount::one}, kAll{Amount::all, Amount::all};
constexpr ByRole<Amount> at_root(Amount a) { return {a, Amount::none}; }
constexpr ByRole<bool> kNowhere{}, kEverywhere{true, true}, kRootOnly{true, false}, kButRoot{false, true};

inline constexpr OpDesc kTable[] = {
    {.kind = OpKind::barrier, .buffers = {}},
    // One buffer (recv); the heap offers the root's as its input.
    {.kind = OpKind::bcast,
     .buffers = {.send = kNone, .recv = kOne},
     .heap = {.offer_send = at_root(Amount::one), .offer_recv = kOne, .staged_send = kRootOnly}},
    {.kind = OpKind::reduce,
     .buffers = {.send = kOne, .recv = at_root(Amount::one), .send_in_place = kRootOnly},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kOne, .offer_recv = at_root(Amount::one)}},
    {.kind = OpKind::allreduce,
     .buffers = {.send = kOne, .recv = kOne, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kOne, .offer_recv = kOne, .staged_send = kEverywhere, .staged_recv = true}},
    {.kind = OpKind::gather,
     .buffers = {.send = kOne, .recv = at_root(Amount::all), .send_in_place = kRootOnly},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kOne, .offer_recv = at_root(Amount::all), .staged_send = kButRoot}},
    {.kind = OpKind::allgather,
     .buffers = {.send = kOne, .recv = kAll, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kOne, .offer_recv = kAll, .staged_send = kEverywhere}},
    {.kind = OpKind::scatter,
     .buffers = {.send = at_root(Amount::all), .recv = kOne, .recv_in_place = kRootOnly},
     .alone = Alone::output_of_input,
     .heap = {.offer_send = at_root(Amount::all), .offer_recv = kOne, .staged_send = kRootOnly}},
    {.kind = OpKind::reduce_scatter_block,
     .buffers = {.send = kAll, .recv = kOne, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kAll, .staged_send = kEverywhere}},
    {.kind = OpKind::alltoall,
     .buffers = {.send = kAll, .recv = kAll, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output,
     .heap = {.offer_send = kAll, .offer_recv = kAll, .staged_send = kEverywhere}},
    {.kind = OpKind::scan,
     .buffers = {.send = kOne, .recv = kOne, .send_in_place = kEverywhere},
     .alone = Alone::input_to_output},
    {.kind = OpKind::exscan,
     .buffers = {.send = kOne, .recv = kOne, .send_in_place = kEverywhere, .first_writes_nothing = true}},
    {.kind = OpKind::gatherv, .alone = Alone::own_block_out},
    {.kind = OpKind::allgatherv, .alone = Alone::own_block_out},
    {.kind = OpKind::scatterv, .alone = Alone::own_block_in},
    {.kind = OpKind::alltoallv, .alone = Alone::own_pair},
    {.kind = OpKind::reduce_scatter, .alone = Alone::whole_share},
};

constexpr bool in_order() {
  for (int i = 0; i < kOpKindCount; ++i)
    if (op_index(kTable[i].kind) != i) return false;
  return true;
}
static_assert(std::size(kTable) == kOpKindCount, "one description per row of osmp_ops.h");
static_assert(in_order(), "the descriptions in osmp_ops.h's order");

}  // namespace describe_detail

constexpr const OpDesc& describe(OpKind k) { return describe_detail::kTable[op_index(k)]; }

}  // namespace osmp
