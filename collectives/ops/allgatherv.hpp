// allgatherv's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/allgatherv.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

// CMA from 32 KiB per rank, as allgather's.
template <>
struct Description<OpKind::allgatherv> : RowTerms {
  static constexpr OpDesc row = {.varied = {.of = OpKind::allgather},
                                 .alone = Alone::own_block_out,
                                 .plan = {.walk = Route::round_trip,
                                          .carry = Carry::total,
                                          .areas = kAllAreas,
                                          .cma_first = CmaFirst::longest_block,
                                          .concatenates = true,
                                          .slot_symmetric = true,
                                          .symmetric = SymBytes::total,
                                          .step = {UpMove::gather, Times::one, DownMove::same, Times::ranks}},
                                 .copies = {.cma = CmaPath::longest, .cma_from = std::size_t{32} << 10}};
};

}  // namespace osmp
