// barrier = fan-in up + fan-out down, nothing but flags.
#include "collectives/ops/common.hpp"

namespace osmp {

Status run_barrier(Engine& e, const CollArgs& a, StatusWord local) {
  NoPayload p;
  return first_step(e, p, a, local, plan_for(e, a, local));
}

}  // namespace osmp
