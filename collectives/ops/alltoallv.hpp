// alltoallv's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/alltoallv.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

template <>
struct Description<OpKind::alltoallv> : RowTerms {
  static constexpr OpDesc row = {.varied = {.of = OpKind::alltoall},
                                 .alone = Alone::own_pair,
                                 .plan = {.walk = Route::pairs,
                                          .counts = Counts::pairs,
                                          .carry = Carry::never,
                                          .slot_symmetric = true,
                                          .symmetric = SymBytes::pairs},
                                 .copies = {.cma = CmaPath::after_counts}};
};

}  // namespace osmp
