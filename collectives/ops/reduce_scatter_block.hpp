// reduce_scatter_block's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/reduce_scatter.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

template <>
struct Description<OpKind::reduce_scatter_block> : RowTerms {
  static constexpr OpDesc row = {.buffers = {.send = kAll, .recv = kOne, .send_in_place = kEverywhere},
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
                                 .copies = {.cma = CmaPath::block, .cma_until = std::size_t{512} << 10}};
};

}  // namespace osmp
