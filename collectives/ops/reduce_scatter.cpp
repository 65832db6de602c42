// reduce_scatter_block = reduce of all blocks up the tree, then each rank's
// block down (as in scatter). Large ones take the flat path: every rank
// reduces its own block from all the others' outboxes. reduce_scatter (per
// rank counts) takes that flat path, or CMA, at every size.
#include <cstring>
#include <vector>

#include "collectives/ops/common.hpp"
#include "shm/copy.hpp"

namespace osmp {
namespace {

class ReduceScatterPayload : public ReducePayload {
 public:
  ReduceScatterPayload(Engine& e, std::size_t block_elems, Datatype t, Op op, const std::byte* in, std::byte* out)
      : ReducePayload(e, block_elems * e.top_packed().size(), t, op),
        block_(block_elems * size_of(t)),
        in_(in),
        out_(out) {}
  const std::byte* own_up() { return in_; }
  std::byte* top_up_out(std::byte*) { return e_.scratch(2); }  // 0, 1: the levels below
  std::size_t down_len(const Lane& l) const { return l.packed.size() * block_; }
  const std::byte* top_down(const std::byte* result) {
    if (block_) pack_blocks(e_.top_packed(), block_, result, e_.scratch(3));
    return e_.scratch(3);
  }
  void forward(const Lane* parent, const Lane& child, const std::byte* from, std::byte* out) {
    std::size_t off = parent ? parent->unit_off[static_cast<std::size_t>(parent->g->me)] * block_ : 0;
    if (block_) copy_to_shared(out, from + off, down_len(child));
  }
  void deliver(int lane, const Lane* l, const std::byte* data) {
    if (lane != 0 || !block_) return;
    std::size_t off = l ? l->unit_off[static_cast<std::size_t>(l->g->me)] * block_ : 0;
    std::memcpy(out_, data + off, block_);
  }

 private:
  std::size_t block_;
  const std::byte* in_;
  std::byte* out_;
};

static_assert(PayloadHooks<ReduceScatterPayload>);

}  // namespace

namespace {

struct ReduceScatterBlock {
  static constexpr OpKind kKind = OpKind::reduce_scatter_block;
  static const std::byte* input(const CollArgs& a) {
    return static_cast<const std::byte*>(a.send == kInPlace ? a.recv : a.send);
  }
  static ReduceScatterPayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    return ReduceScatterPayload(e, local ? 0 : static_cast<std::size_t>(a.count), a.dtype, a.op, input(a),
                                static_cast<std::byte*>(a.recv));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    // In place, each rank's result overwrites the first block of its input,
    // which rank 0 reads: single copy only from a staged copy of the input.
    const std::size_t block = static_cast<std::size_t>(a.count) * size_of(a.dtype);
    DirectCall d(e, a, local,
                 {input(a), block * static_cast<std::size_t>(e.team().size()), static_cast<std::byte*>(a.recv), block,
                  a.send == kInPlace});
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (DirectMode m = d.mode(); m != DirectMode::none) co_return co_await d.run(m);
    if (e.use_cma(OpKind::reduce_scatter_block, block) && cma_reduces(e, a.dtype)) {
      co_return co_await cma_reduce_scatter(e, input(a), static_cast<std::byte*>(a.recv), Blocks::uniform(block),
                                            a.dtype, a.op);
    }
    co_return co_await flat_reduce_scatter(e, kKind, input(a), static_cast<std::byte*>(a.recv), Blocks::uniform(block),
                                           block, a.dtype, a.op);
  }
};

// reduce_scatter = the header step (which compares the counts' digests:
// every rank passes the same counts), then the flat path or CMA of
// reduce_scatter_block with rank r's share counts[r] elements, the blocks
// back to back.
struct ReduceScatter {
  static constexpr OpKind kKind = OpKind::reduce_scatter;
  // Never run: a v-variant's plan always has data after the header step.
  static NoPayload one_step(Engine&, const CollArgs&, StatusWord) { return {}; }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (a.abstain != Errc::ok) co_return Status{};  // every rank declined: no counts, nothing to move
    const int n = e.team().size();
    const std::size_t es = size_of(a.dtype);
    std::vector<std::int64_t> displs(static_cast<std::size_t>(n));
    std::size_t most = 0;
    for (std::size_t r = 0, at = 0; r < displs.size(); ++r) {
      displs[r] = static_cast<std::int64_t>(at);
      at += static_cast<std::size_t>(a.counts[r]);
      most = std::max(most, static_cast<std::size_t>(a.counts[r]) * es);
    }
    const Blocks blocks{0, a.counts, displs.data(), es, true};
    auto* recv = static_cast<std::byte*>(a.recv);
    if (e.use_cma(OpKind::reduce_scatter_block, most) && cma_reduces(e, a.dtype)) {
      co_return co_await cma_reduce_scatter(e, input(a), recv, blocks, a.dtype, a.op);
    }
    co_return co_await flat_reduce_scatter(e, kKind, input(a), recv, blocks, most, a.dtype, a.op);
  }
  static const std::byte* input(const CollArgs& a) {
    return static_cast<const std::byte*>(a.send == kInPlace ? a.recv : a.send);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::reduce_scatter_block>::entry = entry_of<ReduceScatterBlock>();
template <>
const OpEntry Ops<OpKind::reduce_scatter>::entry = entry_of<ReduceScatter>();

}  // namespace osmp
