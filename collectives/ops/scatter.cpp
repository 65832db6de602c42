// scatter = the root's blocks, packed, down the tree; each local root passes
// on its unit's part. Large scatters take the flat path.
#include <cstring>

#include "collectives/ops/common.hpp"
#include "shm/copy.hpp"

namespace osmp {
namespace {

// Down payload at a lane: the blocks of that lane's domain, in packed order.
class ScatterPayload : public Payload {
 public:
  ScatterPayload(Engine& e, std::size_t block, const std::byte* send, std::byte* recv)
      : e_(e), block_(block), send_(send), recv_(recv) {}
  std::size_t down_len(const Lane& l) const { return l.packed.size() * block_; }
  const std::byte* top_down(const std::byte*) {
    if (block_) pack_blocks(e_.top_packed(), block_, send_, e_.scratch(3));
    return e_.scratch(3);
  }
  void forward(const Lane* parent, const Lane& child, const std::byte* from, std::byte* out) {
    std::size_t off = parent ? parent->unit_off[static_cast<std::size_t>(parent->g->me)] * block_ : 0;
    if (block_) copy_to_shared(out, from + off, down_len(child));
  }
  void deliver(int lane, const Lane* l, const std::byte* data) {
    if (lane != 0 || !recv_ || !block_) return;
    std::size_t off = l ? l->unit_off[static_cast<std::size_t>(l->g->me)] * block_ : 0;
    std::memcpy(recv_, data + off, block_);
  }

 private:
  Engine& e_;
  std::size_t block_;
  const std::byte* send_;
  std::byte* recv_;
};

static_assert(PayloadHooks<ScatterPayload>);

}  // namespace

Status run_scatter(Engine& e, const CollArgs& a, StatusWord local) {
  const int me = e.team().rank();
  const std::size_t block = static_cast<std::size_t>(a.count) * size_of(a.dtype);
  auto* send = static_cast<const std::byte*>(a.send);
  // In place (the root's recv): its block stays where it is in send.
  auto* recv = a.recv == kInPlace ? nullptr : static_cast<std::byte*>(a.recv);
  const Plan plan = plan_for(e, a, local);
  if (plan.rest == Rest::none) {
    ScatterPayload p(e, local ? 0 : block, me == a.root ? send : nullptr, recv);
    return first_step(e, p, a, local, plan);
  }
  OSMP_RETURN_IF_ERROR(header_step(e, a, local, plan));
  return flat_scatter(e, send, recv, block, a.root);
}

}  // namespace osmp
