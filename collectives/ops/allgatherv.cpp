// allgatherv = as allgather when every rank's block together fits the areas
// and CMA does not take the call (the longest block in CmaRange): the blocks
// gathered up the tree in packed order and broadcast down, each rank
// unpacking them to its displacements (over single ranks at a symmetric
// top, each copies every other's block from its slot straight to its
// place); the header carries the counts' digest (every rank passes the same
// counts). Else: the header step, then every rank's block to where each
// rank's displacements put it: the flat path, or CMA where the plan says
// (Rest::cma, weighed on the longest block).
#include <algorithm>
#include <cstring>

#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

// Allgather's payload with a length per rank: a unit sends its ranks' blocks
// back to back in its lane's packed order, the top's result (every block in
// the team's packed order) comes down whole. A rank that carries nothing
// (its own arguments were bad, or it declined) has no counts: lengths 0.
class AllgathervPayload : public Payload {
 public:
  AllgathervPayload(Engine& e, Blocks blocks, std::size_t total, const std::byte* mine, std::byte* recv)
      : e_(e), blocks_(blocks), total_(total), mine_(mine), recv_(recv) {}
  std::size_t uniform_up_len() const { return kVaries; }
  std::size_t up_len(const Lane& l, int u) const {
    if (!blocks_.counts) return 0;
    const auto k = static_cast<std::size_t>(u);
    return blocks_.sum(l.packed.data() + l.unit_off[k], static_cast<std::size_t>(l.unit_size[k]));
  }
  const std::byte* own_up() { return mine_; }
  // Every unit in unit order (the plan makes concatenating steps flat).
  void combine(const Lane& l, LaneWork& w, const int* units, int count, std::byte* out) {
    concatenate(w, units, count, out, [&](int u) { return up_len(l, u); });
  }
  std::byte* top_up_out(std::byte* down_area) { return down_area; }
  std::size_t down_len(const Lane&) const { return total_; }
  // The symmetric top: where every unit of the top group is one rank, each
  // rank copies every other's block from its line or slot straight to its
  // displacement (one copy, no concatenation at a top).
  const std::byte* sym_down(const Lane& l, LaneWork& w, std::byte* scratch) {
    if (single_ranks(l)) {
      for (std::size_t u = 0; blocks_.counts && u < l.packed.size(); ++u) {
        const int r = l.packed[u];
        if (const std::size_t len = blocks_.len(r)) {
          place_block(recv_ + blocks_.at(r), u == static_cast<std::size_t>(l.g->me) ? mine_ : w.src[u], len);
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
    if (delivered_ || !blocks_.counts) return;
    delivered_ = true;
    std::size_t off = 0;
    for (int r : e_.top_packed()) {
      const std::size_t len = blocks_.len(r);
      if (len) std::memcpy(recv_ + blocks_.at(r), data + off, len);
      off += len;
    }
  }

 private:
  Engine& e_;
  Blocks blocks_;
  std::size_t total_;  // bytes
  const std::byte* mine_;
  std::byte* recv_;
  bool delivered_ = false;
};

static_assert(PayloadHooks<AllgathervPayload>);
static_assert(HasSymDown<AllgathervPayload>);

struct Allgatherv {
  static constexpr OpKind kKind = OpKind::allgatherv;
  static const std::byte* mine(Engine& e, const CollArgs& a, const Blocks& blocks) {
    auto* recv = static_cast<std::byte*>(a.recv);
    return a.send == kInPlace ? recv + blocks.at(e.team().rank()) : static_cast<const std::byte*>(a.send);
  }
  static AllgathervPayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    const Blocks blocks = local ? Blocks::of(a, false) : Blocks::of(a, true);
    const std::size_t total = local ? 0 : counts_total(a.counts, e.team().size()) * size_of(a.dtype);
    return AllgathervPayload(e, blocks, total, local ? nullptr : mine(e, a, blocks), static_cast<std::byte*>(a.recv));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (a.abstain != Errc::ok) co_return Status{};  // every rank declined: no counts, nothing to move
    const int n = e.team().size();
    const Blocks blocks = Blocks::of(a, true);
    // The longest block, as the plan weighed it (PlanInput::longest).
    const std::size_t most = counts_longest(a.counts, n) * size_of(a.dtype);
    co_return co_await flat_allgather(e, plan.rest == Rest::cma, mine(e, a, blocks), static_cast<std::byte*>(a.recv),
                                      blocks, most);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::allgatherv>::entry = entry_of<Allgatherv>();

}  // namespace osmp
