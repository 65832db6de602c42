// barrier = fan-in up + fan-out down, nothing but flags; and the header
// step of the calls whose data follows, which moves nothing either.
#include "collectives/ops/common.hpp"

namespace osmp {

namespace {

struct Barrier {
  static constexpr OpKind kKind = OpKind::barrier;
  static NoPayload one_step(Engine&, const CollArgs&, StatusWord) { return {}; }
  // A barrier's plan is always one step.
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    co_return co_await header_step(e, a, local, plan);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::barrier>::entry = entry_of<Barrier>();

Task header_step(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan) {
  NoPayload none;
  co_return co_await first_step(e, none, a, local, plan);
}

}  // namespace osmp
