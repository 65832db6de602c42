// reduce_scatter_block = reduce of all blocks up the tree, then each rank's
// block down (as in scatter). Large ones take the flat path: every rank
// reduces its own block from all the others' outboxes. reduce_scatter (per
// rank counts) the same, with a length per rank.
#include <cstring>
#include <vector>

#include "collectives/ops/common.hpp"
#include "shm/copy.hpp"

namespace osmp {
namespace {

// The reduced vector's shares come down: `shares` says each rank's length
// (uniform blocks, or counts: reduce_scatter), the shares back to back in
// rank order in the top's result, in packed order below it.
class ReduceScatterPayload : public ReducePayload {
 public:
  ReduceScatterPayload(Engine& e, Blocks shares, std::size_t total_elems, Datatype t, Op op, const std::byte* in,
                       std::byte* out)
      : ReducePayload(e, total_elems, t, op), shares_(shares), in_(in), out_(out) {}
  const std::byte* own_up() { return in_; }
  std::byte* top_up_out(std::byte*) { return e_.scratch(2); }  // 0, 1: the levels below
  std::size_t down_len(const Lane& l) const { return span(l, l.packed.size()); }
  const std::byte* top_down(const std::byte* result) {
    std::byte* out = e_.scratch(3);
    const std::vector<int>& packed = e_.top_packed();
    if (!shares_.counts) {
      if (shares_.block) pack_blocks(packed, shares_.block, result, out);
      return out;
    }
    if (e_.top_in_rank_order()) return result;   // the shares already in packed order
    std::vector<std::size_t> at(packed.size());  // each share's place in rank order
    for (std::size_t r = 1; r < at.size(); ++r) at[r] = at[r - 1] + shares_.len(static_cast<int>(r - 1));
    std::size_t off = 0;
    for (int r : packed) {
      const std::size_t len = shares_.len(r);
      if (len) std::memcpy(out + off, result + at[static_cast<std::size_t>(r)], len);
      off += len;
    }
    return out;
  }
  // The symmetric top: where every unit of the top group is one rank, each
  // rank reduces only its own share of every unit's input (in the unit's
  // line or slot), in unit order as a local root would, straight into its
  // result (in place too: it reads the copy in its own slot).
  const std::byte* sym_down(const Lane& l, LaneWork& w, std::byte* scratch) {
    if (!single_ranks(l)) {
      std::byte* out = e_.scratch(2);
      w.all_units(l.n());
      combine(l, w, w.order.data(), l.n(), out);
      return top_down(out);
    }
    const int me = e_.team().rank();
    if (const std::size_t len = shares_.len(me)) {
      std::size_t at = 0;  // my share's place in the input: the shares before it, in rank order
      for (int r = 0; r < me; ++r) at += shares_.len(r);
      const void** in = w.ptrs.data();
      for (int u = 0; u < l.n(); ++u) in[u] = w.src[static_cast<std::size_t>(u)] + at;
      kernel_.all(out_, in, l.n(), len / kernel_.esize);
    }
    delivered_ = true;
    return scratch;
  }
  void forward(const Lane* parent, const Lane& child, const std::byte* from, std::byte* out) {
    const std::size_t off = parent ? span(*parent, parent->unit_off[static_cast<std::size_t>(parent->g->me)]) : 0;
    if (const std::size_t len = down_len(child)) copy_to_shared(out, from + off, len);
  }
  void deliver(int lane, const Lane* l, const std::byte* data) {
    const std::size_t mine = shares_.len(e_.team().rank());
    if (lane != 0 || !mine || delivered_) return;
    const std::size_t off = l ? span(*l, l->unit_off[static_cast<std::size_t>(l->g->me)]) : 0;
    std::memcpy(out_, data + off, mine);
  }

 private:
  // The bytes of the shares of the first `ranks` ranks of l's packed order.
  std::size_t span(const Lane& l, std::size_t ranks) const { return shares_.sum(l.packed.data(), ranks); }
  Blocks shares_;
  const std::byte* in_;
  std::byte* out_;
  bool delivered_ = false;  // sym_down wrote this rank's result
};

static_assert(PayloadHooks<ReduceScatterPayload>);
static_assert(HasSymDown<ReduceScatterPayload>);

}  // namespace

namespace {

struct ReduceScatterBlock {
  static constexpr OpKind kKind = OpKind::reduce_scatter_block;
  static const std::byte* input(const CollArgs& a) {
    return static_cast<const std::byte*>(a.send == kInPlace ? a.recv : a.send);
  }
  static ReduceScatterPayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    const std::size_t block = local ? 0 : static_cast<std::size_t>(a.count);
    return ReduceScatterPayload(e, Blocks::uniform(block * size_of(a.dtype)), block * e.top_packed().size(), a.dtype,
                                a.op, input(a), static_cast<std::byte*>(a.recv));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    // In place, each rank's result overwrites the first block of its input,
    // which rank 0 reads: single copy only from a staged copy of the input.
    const std::size_t block = static_cast<std::size_t>(a.count) * size_of(a.dtype);
    DirectCall d(e, a, local, plan,
                 {input(a), block * static_cast<std::size_t>(e.team().size()), static_cast<std::byte*>(a.recv), block,
                  a.send == kInPlace},
                 &DirectCall::reduce_scatter);
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (DirectMode m = d.mode(); m != DirectMode::none) co_return co_await d.run(m);
    if (plan.rest == Rest::cma) {
      co_return co_await cma_reduce_scatter(e, input(a), static_cast<std::byte*>(a.recv), Blocks::uniform(block),
                                            a.dtype, a.op);
    }
    co_return co_await flat_reduce_scatter(e, kKind, input(a), static_cast<std::byte*>(a.recv), Blocks::uniform(block),
                                           block, a.dtype, a.op);
  }
};

// reduce_scatter = reduce_scatter_block with rank r's share counts[r]
// elements, the shares back to back: in one step when they fit the areas,
// the header carrying the counts' digest (every rank passes the same
// counts); larger, the header step, then the flat path or CMA.
struct ReduceScatter {
  static constexpr OpKind kKind = OpKind::reduce_scatter;
  static ReduceScatterPayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    const Blocks shares{0, local ? nullptr : a.counts, nullptr, size_of(a.dtype), true};
    const std::size_t total = local ? 0 : counts_total(a.counts, e.team().size());
    return ReduceScatterPayload(e, shares, total, a.dtype, a.op, input(a), static_cast<std::byte*>(a.recv));
  }
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
    if (plan.rest == Rest::cma) {
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
