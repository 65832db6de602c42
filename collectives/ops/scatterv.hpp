// scatterv's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/scatterv.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

template <>
struct Description<OpKind::scatterv> : RowTerms {
  static constexpr OpDesc row = {.varied = {.of = OpKind::scatter},
                                 .alone = Alone::own_block_in,
                                 .plan = {.walk = Route::down,
                                          .counts = Counts::lengths,
                                          .carry = Carry::never,
                                          .concatenates = true,
                                          .symmetric = SymBytes::lengths},
                                 .copies = {.cma = CmaPath::after_counts}};
};

}  // namespace osmp
