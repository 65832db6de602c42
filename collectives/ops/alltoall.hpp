// alltoall's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/alltoall.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

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

template <>
struct Description<OpKind::alltoall> : RowTerms {
  static constexpr OpDesc row = {.buffers = {.send = kAll, .recv = kAll, .send_in_place = kEverywhere},
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
                                          .step = {UpMove::gather, Times::ranks, DownMove::scatter, Times::ranks}},
                                 .copies = {.cma = CmaPath::block}};
};

}  // namespace osmp
