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
  // Where the packed order is rank order, the root concatenates straight
  // into its buffer (in place, its own block is there already).
  std::byte* top_up_out(std::byte*) { return recv_ && e_.top_in_rank_order() ? recv_ : nullptr; }
  void at_top(const std::byte* result) {
    if (recv_ && block_ && result != recv_) unpack_blocks(e_.top_packed(), block_, result, recv_);
  }

 private:
  Engine& e_;
  const std::byte* mine_;
  std::byte* recv_;
};

static_assert(PayloadHooks<GatherToRoot>);

}  // namespace

namespace {

struct Gather {
  static constexpr OpKind kKind = OpKind::gather;
  static std::size_t block(const CollArgs& a) { return static_cast<std::size_t>(a.count) * size_of(a.dtype); }
  static std::byte* output(Engine& e, const CollArgs& a) {
    return e.team().rank() == a.root ? static_cast<std::byte*>(a.recv) : nullptr;
  }
  static const std::byte* mine(Engine& e, const CollArgs& a) {
    const std::size_t me = static_cast<std::size_t>(e.team().rank());
    return static_cast<const std::byte*>(a.send == kInPlace ? output(e, a) + me * block(a) : a.send);
  }
  static GatherToRoot one_step(Engine& e, const CollArgs& a, StatusWord local) {
    return GatherToRoot(e, local ? 0 : block(a), mine(e, a), output(e, a));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    const std::size_t all = block(a) * static_cast<std::size_t>(e.team().size());
    DirectCall d(e, a, local, plan, {mine(e, a), block(a), output(e, a), all}, &DirectCall::gather);
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (DirectMode m = d.mode(); m != DirectMode::none) co_return co_await d.run(m);
    co_return co_await flat_gather(e, plan.rest == Rest::cma, mine(e, a), block(a), output(e, a),
                                   Blocks::uniform(block(a)), block(a), a.root);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::gather>::entry = entry_of<Gather>();

}  // namespace osmp
