// gather's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/gather.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

template <>
struct Description<OpKind::gather> : RowTerms {
  static constexpr OpDesc row = {.buffers = {.send = kOne, .recv = at_root(Amount::all), .send_in_place = kRootOnly},
                                 .alone = Alone::input_to_output,
                                 .heap = {.offer_send = kOne,
                                          .offer_recv = at_root(Amount::all),
                                          .staged_send = kButRoot,
                                          // the senders write in parallel; the root reading them is serial
                                          .rules = {{Whose::nobody, Whose::root, DirectMode::push},
                                                    {Whose::others, Whose::nobody, DirectMode::pull}}},
                                 .plan = {.walk = Route::up,
                                          .carry = Carry::all,
                                          .areas = kSlotArea | kScratchArea,
                                          .concatenates = true,
                                          .symmetric = SymBytes::per_unit,
                                          .step = {UpMove::gather, Times::one, DownMove::flags, Times::zero}},
                                 .copies = {.cma = CmaPath::block}};
};

}  // namespace osmp
