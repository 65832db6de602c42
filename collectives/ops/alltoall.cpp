// alltoall = each rank's whole send buffer (a block for every rank) gathered
// up the tree, each level's leader concatenating its domain's; the top
// transposes the blocks into destination order and they come down as a
// scatter does, each local root passing on its unit's part. Every block
// crosses each level once, in one step with the headers: the small calls.
// Larger ones take the flat path (each rank's outbox, a piece of every block
// per step), or a single copy between the ranks' own buffers: through the
// heaps (ops/direct.cpp) or CMA (ops/cma.cpp), each rank reading its block
// of every peer's send buffer.
#include <cstring>

#include "collectives/ops/common.hpp"
#include "shm/copy.hpp"

namespace osmp {
namespace {

// Up: unit u's ranks' send buffers (n blocks each) in packed order. Down at
// a lane: its domain's ranks' results (n blocks each) in packed order.
class AlltoallPayload : public GatherPayload {
 public:
  // `row`: a rank's n blocks; `mine`: its send buffer (or, in place, its
  // receive buffer, overwritten only after every rank's data went up).
  AlltoallPayload(Engine& e, std::size_t row, const std::byte* mine, std::byte* recv)
      : GatherPayload(row), e_(e), mine_(mine), recv_(recv) {}
  const std::byte* own_up() { return mine_; }
  std::size_t down_len(const Lane& l) const { return l.packed.size() * block_; }
  // The up result holds row i = rank packed[i]'s send buffer; the result
  // holds row j = rank packed[j]'s receive buffer, whose block s is block
  // packed[j] of rank s's send buffer.
  const std::byte* top_down(const std::byte* up) {
    const std::vector<int>& packed = e_.top_packed();
    const std::size_t n = packed.size(), b = block_ / (n ? n : 1);
    std::byte* out = e_.scratch(3);
    if (!b) return out;
    for (std::size_t i = 0; i < n; ++i) {
      const std::byte* row = up + i * block_;
      const std::size_t src = static_cast<std::size_t>(packed[i]);
      for (std::size_t j = 0; j < n; ++j) {
        std::memcpy(out + j * block_ + src * b, row + static_cast<std::size_t>(packed[j]) * b, b);
      }
    }
    return out;
  }
  void forward(const Lane* parent, const Lane& child, const std::byte* from, std::byte* out) {
    forward_part(block_, parent, child, from, out);
  }
  // The symmetric top: when every unit of the top group is one rank (nobody
  // below it to pass results on to), each rank takes its own block of every
  // unit's data, straight into its receive buffer (in place too: peers read
  // the copies in the lines and slots). Else every result, as a local root's.
  const std::byte* sym_down(const Lane& l, LaneWork& w, std::byte* scratch) {
    const std::size_t n = l.packed.size();
    if (single_ranks(l) && recv_ && block_) {
      const std::size_t b = block_ / n, mine = static_cast<std::size_t>(e_.team().rank()) * b;
      for (std::size_t u = 0; u < n; ++u) {
        std::memcpy(recv_ + static_cast<std::size_t>(l.packed[u]) * b, w.src[u] + mine, b);
      }
      delivered_ = true;
      return scratch;
    }
    w.all_units(l.n());
    combine(l, w, w.order.data(), l.n(), scratch);
    return top_down(scratch);
  }
  void deliver(int lane, const Lane* l, const std::byte* data) {
    if (!delivered_) deliver_part(block_, lane, l, data, recv_);
  }

 private:
  Engine& e_;
  const std::byte* mine_;
  std::byte* recv_;
  bool delivered_ = false;  // sym_down wrote this rank's result
};

static_assert(PayloadHooks<AlltoallPayload>);
static_assert(HasSymDown<AlltoallPayload>);

}  // namespace

namespace {

struct Alltoall {
  static constexpr OpKind kKind = OpKind::alltoall;
  static std::size_t block(const CollArgs& a) { return static_cast<std::size_t>(a.count) * size_of(a.dtype); }
  static std::size_t row(Engine& e, const CollArgs& a) { return block(a) * static_cast<std::size_t>(e.team().size()); }
  static const std::byte* input(const CollArgs& a) {
    return static_cast<const std::byte*>(a.send == kInPlace ? a.recv : a.send);
  }
  static AlltoallPayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    return AlltoallPayload(e, local ? 0 : row(e, a), input(a), static_cast<std::byte*>(a.recv));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    // In place, every peer reads the buffer this rank writes: single copy
    // only from a staged copy of it.
    auto* recv = static_cast<std::byte*>(a.recv);
    DirectCall d(e, a, local, plan, {input(a), row(e, a), recv, row(e, a), a.send == kInPlace}, &DirectCall::alltoall);
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (DirectMode m = d.mode(); m != DirectMode::none) co_return co_await d.run(m);
    Exchange x{Blocks::uniform(block(a)), Blocks::uniform(block(a)), block(a)};
    co_return co_await flat_alltoall(e, kKind, plan.rest == Rest::cma, input(a), recv, x);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::alltoall>::entry = entry_of<Alltoall>();

}  // namespace osmp
