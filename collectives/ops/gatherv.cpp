// gatherv = the lengths step (every rank's block length up the tree, checked
// against the root's counts: share_lengths), then every rank's block to
// where the root's counts and displacements put it: the flat path, or CMA
// where Engine::use_cma says for the longest block (small blocks ride with
// the lengths where every rank is a unit of a symmetric top). Lengths that
// differ from the root's counts go through agree_counts, which names the rank.
#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

struct Gatherv {
  static constexpr OpKind kKind = OpKind::gatherv;
  // Never run: a v-variant's plan always has data after the first step.
  static NoPayload one_step(Engine&, const CollArgs&, StatusWord) { return {}; }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    const int me = e.team().rank();
    const bool root = me == a.root;
    const Blocks blocks = Blocks::of(a, root);
    const bool in_place = a.send == kInPlace;
    const std::size_t mine = in_place ? blocks.len(me) : static_cast<std::size_t>(a.count) * size_of(a.dtype);
    std::byte* recv = root && a.abstain == Errc::ok ? static_cast<std::byte*>(a.recv) : nullptr;
    const std::byte* send = in_place ? (recv ? recv + blocks.at(me) : nullptr) : static_cast<const std::byte*>(a.send);
    std::size_t most = 0;
    bool agreed = false, done = false;
    OSMP_CO_RETURN_IF_ERROR(co_await share_lengths(e, a, local, plan, mine, blocks, send, recv, most, agreed, done));
    if (a.abstain != Errc::ok || done) co_return Status{};  // every rank declined; or the blocks came with the lengths
    // Lengths that are not the root's counts: every rank learns which differs.
    if (!agreed) OSMP_CO_RETURN_IF_ERROR(co_await agree_counts(e, a, blocks, mine, most));
    co_return co_await flat_gather(e, kKind, send, mine, recv, blocks, most, a.root);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::gatherv>::entry = entry_of<Gatherv>();

}  // namespace osmp
