// scatterv = the lengths step (every rank's receive length up the tree,
// checked against the root's counts: share_lengths), then each rank's block
// from where the root's counts and displacements put it: the flat path, or
// CMA where Engine::use_cma says for the longest block. Lengths that differ
// from the root's counts go through agree_counts, which names the rank.
#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

struct Scatterv {
  static constexpr OpKind kKind = OpKind::scatterv;
  // Never run: a v-variant's plan always has data after the first step.
  static NoPayload one_step(Engine&, const CollArgs&, StatusWord) { return {}; }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    const int me = e.team().rank();
    const bool root = me == a.root;
    const Blocks blocks = Blocks::of(a, root);
    const std::size_t mine = a.recv == kInPlace ? blocks.len(me) : static_cast<std::size_t>(a.count) * size_of(a.dtype);
    // In place (the root's recv): its block stays where it is in send.
    std::byte* recv = a.recv == kInPlace || a.abstain != Errc::ok ? nullptr : static_cast<std::byte*>(a.recv);
    const auto* send = root && a.abstain == Errc::ok ? static_cast<const std::byte*>(a.send) : nullptr;
    std::size_t most = 0;
    bool agreed = false, done = false;
    OSMP_CO_RETURN_IF_ERROR(co_await share_lengths(e, a, local, plan, mine, blocks, send, recv, most, agreed, done));
    if (a.abstain != Errc::ok || done) co_return Status{};  // every rank declined; or the blocks came with the lengths
    // Lengths that are not the root's counts: every rank learns which differs.
    if (!agreed) OSMP_CO_RETURN_IF_ERROR(co_await agree_counts(e, a, blocks, mine, most));
    co_return co_await flat_scatter(e, kKind, send, blocks, recv, mine, most, a.root);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::scatterv>::entry = entry_of<Scatterv>();

}  // namespace osmp
