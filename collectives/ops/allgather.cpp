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
  // The symmetric top: where every unit of the top group is one rank, each
  // rank copies every other's block from its line or slot straight to its
  // place in the receive buffer (one copy, no concatenation at a top).
  const std::byte* sym_down(const Lane& l, LaneWork& w, std::byte* scratch) {
    if (single_ranks(l)) {
      if (block_) {
        for (std::size_t u = 0; u < l.packed.size(); ++u) {
          place_block(recv_ + static_cast<std::size_t>(l.packed[u]) * block_,
                      u == static_cast<std::size_t>(l.g->me) ? mine_ : w.src[u], block_);
        }
      }
      delivered_ = true;
      return scratch;
    }
    w.all_units(l.n());
    combine(l, w, w.order.data(), l.n(), scratch);
    return scratch;
  }
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
static_assert(HasSymDown<AllgatherPayload>);

}  // namespace

namespace {

struct Allgather {
  static constexpr OpKind kKind = OpKind::allgather;
  static std::size_t block(const CollArgs& a) { return static_cast<std::size_t>(a.count) * size_of(a.dtype); }
  static const std::byte* mine(Engine& e, const CollArgs& a) {
    const std::size_t me = static_cast<std::size_t>(e.team().rank());
    return static_cast<const std::byte*>(a.send == kInPlace ? static_cast<std::byte*>(a.recv) + me * block(a) : a.send);
  }
  static AllgatherPayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    return AllgatherPayload(e, local ? 0 : block(a), mine(e, a), static_cast<std::byte*>(a.recv));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    const std::size_t all = block(a) * static_cast<std::size_t>(e.team().size());
    DirectCall d(e, a, local, plan, {mine(e, a), block(a), static_cast<std::byte*>(a.recv), all},
                 &DirectCall::allgather);
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (DirectMode m = d.mode(); m != DirectMode::none) co_return co_await d.run(m);
    co_return co_await flat_allgather(e, plan.rest == Rest::cma, mine(e, a), static_cast<std::byte*>(a.recv),
                                      Blocks::uniform(block(a)), block(a));
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::allgather>::entry = entry_of<Allgather>();

}  // namespace osmp
