// exscan's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/scan.cpp.
#pragma once

#include "collectives/ops/description.hpp"
#include "collectives/ops/scan.hpp"  // kPrefixPlan

namespace osmp {

// CMA's threshold: exscan of two ranks (rank 1 reads rank 0's input)
// beats the chain through the outboxes from 32 KiB (4.5 us against 5.8, the
// same at 16).
template <>
struct Description<OpKind::exscan> : RowTerms {
  static constexpr OpDesc row = {
      .buffers = {.send = kOne, .recv = kOne, .send_in_place = kEverywhere, .first_writes_nothing = true},
      .plan = kPrefixPlan,
      .copies = {.cma = CmaPath::two_ranks, .cma_from = std::size_t{32} << 10}};
};

}  // namespace osmp
