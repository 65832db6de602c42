// allgather = gather up + bcast down of the packed blocks; every rank
// unpacks them into rank order. Large allgathers take the flat path.
#include <cstring>

#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

class AllgatherPayload : public GatherPayload {
 public:
  AllgatherPayload(Engine& e, std::size_t block, const std::byte* mine, std::byte* recv)
      : GatherPayload(block), e_(e), mine_(mine), recv_(recv) {}
  const std::byte* own_up() { return mine_; }
  std::byte* top_up_out(std::byte* down_area) { return down_area; }
  std::size_t down_len(const Lane&) const { return block_ * e_.top_packed().size(); }
  void deliver(int, const Lane*, const std::byte* data) {
    if (!delivered_ && block_) unpack_blocks(e_.top_packed(), block_, data, recv_);
    delivered_ = true;
  }

 private:
  Engine& e_;
  const std::byte* mine_;
  std::byte* recv_;
  bool delivered_ = false;
};

static_assert(PayloadHooks<AllgatherPayload>);

}  // namespace

Status run_allgather(Engine& e, const CollArgs& a, StatusWord local) {
  const int me = e.team().rank();
  const std::size_t block = static_cast<std::size_t>(a.count) * size_of(a.dtype);
  auto* recv = static_cast<std::byte*>(a.recv);
  auto* mine = static_cast<const std::byte*>(a.send == kInPlace ? recv + static_cast<std::size_t>(me) * block : a.send);
  const Plan plan = plan_for(e, a, local);
  if (plan.rest == Rest::none) {
    AllgatherPayload p(e, local ? 0 : block, mine, recv);
    return first_step(e, p, a, local, plan);
  }
  OSMP_RETURN_IF_ERROR(header_step(e, a, local, plan));
  return flat_allgather(e, mine, recv, block);
}

}  // namespace osmp
