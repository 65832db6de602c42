// barrier's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/barrier.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

template <>
struct Description<OpKind::barrier> : RowTerms {
  static constexpr OpDesc row = {.buffers = {}, .plan = {.symmetric = SymBytes::none}};
};

}  // namespace osmp
