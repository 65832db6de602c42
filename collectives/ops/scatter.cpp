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
    if (e_.top_in_rank_order()) return send_;  // packed order is rank order: no copy
    if (block_) pack_blocks(e_.top_packed(), block_, send_, e_.scratch(3));
    return e_.scratch(3);
  }
  void forward(const Lane* parent, const Lane& child, const std::byte* from, std::byte* out) {
    forward_part(block_, parent, child, from, out);
  }
  void deliver(int lane, const Lane* l, const std::byte* data) { deliver_part(block_, lane, l, data, recv_); }

 private:
  Engine& e_;
  std::size_t block_;
  const std::byte* send_;
  std::byte* recv_;
};

static_assert(PayloadHooks<ScatterPayload>);

}  // namespace

namespace {

struct Scatter {
  static constexpr OpKind kKind = OpKind::scatter;
  static std::size_t block(const CollArgs& a) { return static_cast<std::size_t>(a.count) * size_of(a.dtype); }
  // In place (the root's recv): its block stays where it is in send.
  static std::byte* output(const CollArgs& a) { return a.recv == kInPlace ? nullptr : static_cast<std::byte*>(a.recv); }
  static ScatterPayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    auto* send = static_cast<const std::byte*>(a.send);
    return ScatterPayload(e, local ? 0 : block(a), e.team().rank() == a.root ? send : nullptr, output(a));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    const bool root = e.team().rank() == a.root;
    const std::size_t all = block(a) * static_cast<std::size_t>(e.team().size());
    DirectCall d(e, a, local, plan, {root ? static_cast<const std::byte*>(a.send) : nullptr, all, output(a), block(a)},
                 &DirectCall::scatter);
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (DirectMode m = d.mode(); m != DirectMode::none) co_return co_await d.run(m);
    co_return co_await flat_scatter(e, plan.rest == Rest::cma, static_cast<const std::byte*>(a.send),
                                    Blocks::uniform(block(a)), output(a), block(a), block(a), a.root);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::scatter>::entry = entry_of<Scatter>();

}  // namespace osmp
