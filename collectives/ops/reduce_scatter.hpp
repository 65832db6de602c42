// reduce_scatter's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/reduce_scatter.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

// CMA as reduce_scatter_block's, weighed on the longest share (64 KiB to
// 512 KiB).
template <>
struct Description<OpKind::reduce_scatter> : RowTerms {
  static constexpr OpDesc row = {.varied = {.of = OpKind::reduce_scatter_block},
                                 .alone = Alone::whole_share,
                                 .plan = {.walk = Route::round_trip,
                                          .carry = Carry::total,
                                          .areas = kAllAreas,
                                          .slot_symmetric = true,
                                          .symmetric = SymBytes::total,
                                          .step = {UpMove::reduce, Times::ranks, DownMove::scatter, Times::one}},
                                 .copies = {.cma = CmaPath::longest, .cma_until = std::size_t{512} << 10}};
};

}  // namespace osmp
