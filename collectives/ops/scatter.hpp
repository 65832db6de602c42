// scatter's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/scatter.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

template <>
struct Description<OpKind::scatter> : RowTerms {
  static constexpr OpDesc row = {.buffers = {.send = at_root(Amount::all), .recv = kOne, .recv_in_place = kRootOnly},
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
                                          .step = {UpMove::flags, Times::zero, DownMove::scatter, Times::one}},
                                 .copies = {.cma = CmaPath::block}};
};

}  // namespace osmp
