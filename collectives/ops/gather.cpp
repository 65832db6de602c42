// gather = blocks concatenated up the tree to the root; the root unpacks
// them into rank order. Large gathers take the flat path.
#include <cstring>

#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

class GatherToRoot : public GatherPayload {
 public:
  GatherToRoot(Engine& e, std::size_t block, const std::byte* mine, std::byte* recv)
      : GatherPayload(block), e_(e), mine_(mine), recv_(recv) {}
  const std::byte* own_up() { return mine_; }
  void at_top(const std::byte* result) {
    if (recv_ && block_) unpack_blocks(e_.top_packed(), block_, result, recv_);
  }

 private:
  Engine& e_;
  const std::byte* mine_;
  std::byte* recv_;
};

static_assert(PayloadHooks<GatherToRoot>);

}  // namespace

Status run_gather(Engine& e, const CollArgs& a, StatusWord local) {
  const int me = e.team().rank();
  const std::size_t block = static_cast<std::size_t>(a.count) * size_of(a.dtype);
  auto* recv = me == a.root ? static_cast<std::byte*>(a.recv) : nullptr;
  auto* mine = static_cast<const std::byte*>(a.send == kInPlace ? recv + static_cast<std::size_t>(me) * block : a.send);
  const Plan plan = plan_for(e, a, local);
  if (plan.rest == Rest::none) {
    GatherToRoot p(e, local ? 0 : block, mine, recv);
    return first_step(e, p, a, local, plan);
  }
  OSMP_RETURN_IF_ERROR(header_step(e, a, local, plan));
  return flat_gather(e, mine, recv, block, a.root);
}

}  // namespace osmp
