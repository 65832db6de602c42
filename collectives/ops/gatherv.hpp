// gatherv's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/gatherv.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

template <>
struct Description<OpKind::gatherv> : RowTerms {
  static constexpr OpDesc row = {.varied = {.of = OpKind::gather},
                                 .alone = Alone::own_block_out,
                                 .plan = {.walk = Route::up,
                                          .counts = Counts::lengths,
                                          .carry = Carry::never,
                                          .concatenates = true,
                                          .symmetric = SymBytes::lengths},
                                 .copies = {.cma = CmaPath::after_counts}};
};

}  // namespace osmp
