// allreduce's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/allreduce.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

// Allreduce stages its buffers from 128 KiB.
template <>
struct Description<OpKind::allreduce> : RowTerms {
  static constexpr OpDesc row = {
      .buffers = {.send = kOne, .recv = kOne, .send_in_place = kEverywhere},
      .alone = Alone::input_to_output,
      .heap = {.offer_send = kOne,
               .offer_recv = kOne,
               .staged_send = kEverywhere,
               .staged_recv = true,
               .rules = {{Whose::everyone, Whose::everyone, DirectMode::pull}}},
      .plan = {.walk = Route::round_trip,
               .carry = Carry::one,
               .areas = kSlotArea | kBcastArea,
               .slot_symmetric = true,
               .chunks = true,
               .symmetric = SymBytes::one,
               .step = {UpMove::reduce, Times::one, DownMove::same, Times::one}},
      .copies = {.cma = CmaPath::block, .cma_until = std::size_t{1} << 20, .stage_from = std::size_t{128} << 10}};
};

}  // namespace osmp
