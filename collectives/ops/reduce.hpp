// reduce's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/reduce.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

template <>
struct Description<OpKind::reduce> : RowTerms {
  static constexpr OpDesc row = {.buffers = {.send = kOne, .recv = at_root(Amount::one), .send_in_place = kRootOnly},
                                 .alone = Alone::input_to_output,
                                 .heap = {.offer_send = kOne,
                                          .offer_recv = at_root(Amount::one),
                                          .rules = {{Whose::everyone, Whose::root, DirectMode::pull}}},
                                 .plan = {.walk = Route::up,
                                          .carry = Carry::one,
                                          .areas = kSlotArea,
                                          .chunks = true,
                                          .symmetric = SymBytes::one,
                                          .step = {UpMove::reduce, Times::one, DownMove::flags, Times::zero}}};
};

}  // namespace osmp
