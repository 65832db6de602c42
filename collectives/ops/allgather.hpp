// allgather's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/allgather.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

// CMA's threshold (2 processes): below 32 KiB per rank allgather goes
// through the one step's symmetric top in the slots (9.4 us against 7.1 at
// 32 KiB, 4.9 / 5.3 at 16 KiB).
template <>
struct Description<OpKind::allgather> : RowTerms {
  static constexpr OpDesc row = {.buffers = {.send = kOne, .recv = kAll, .send_in_place = kEverywhere},
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
                                 .copies = {.cma = CmaPath::block, .cma_from = std::size_t{32} << 10}};
};

}  // namespace osmp
