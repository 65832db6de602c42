// bcast's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/bcast.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

template <>
struct Description<OpKind::bcast> : RowTerms {
  static constexpr OpDesc row = {
      .buffers = {.send = kNone, .recv = kOne},
      .heap = {.offer_send = at_root(Amount::one),
               .offer_recv = kOne,
               .staged_send = kRootOnly,
               // the root and each receiver a part, or the receivers pull, or the root pushes
               .rules = {{Whose::root, Whose::others, DirectMode::both},
                         {Whose::root, Whose::nobody, DirectMode::pull},
                         {Whose::nobody, Whose::others, DirectMode::push}}},
      .plan = {.walk = Route::down,
               .carry = Carry::one,
               .areas = kBcastArea,
               .chunks = true,
               .symmetric = SymBytes::one,
               .step = {UpMove::flags, Times::zero, DownMove::same, Times::one}},
      .copies = {.cma = CmaPath::block, .cma_from = std::size_t{128} << 10}};
};

}  // namespace osmp
