// scatterv = the header step, then each rank's block from where the root's
// counts and displacements put it: the flat path, or CMA where
// Engine::use_cma says for the longest block. The first flat step checks
// every rank's count against the root's and moves the first piece of every
// block (agree_counts): a small scatterv is done with it.
#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

struct Scatterv {
  static constexpr OpKind kKind = OpKind::scatterv;
  // Never run: a v-variant's plan always has data after the header step.
  static NoPayload one_step(Engine&, const CollArgs&, StatusWord) { return {}; }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (a.abstain != Errc::ok) co_return Status{};  // every rank declined: no counts, nothing to move
    const int me = e.team().rank();
    const bool root = me == a.root;
    const Blocks blocks = Blocks::of(a, root);
    // In place (the root's recv): its block stays where it is in send.
    std::byte* recv = a.recv == kInPlace ? nullptr : static_cast<std::byte*>(a.recv);
    const std::size_t mine = a.recv == kInPlace ? blocks.len(me) : static_cast<std::size_t>(a.count) * size_of(a.dtype);
    const auto* send = static_cast<const std::byte*>(a.send);
    std::size_t most = 0;
    std::uint64_t moved = 0;
    OSMP_CO_RETURN_IF_ERROR(co_await agree_counts(e, a, send, recv, blocks, mine, most, moved));
    co_return co_await flat_scatter(e, kKind, send, blocks, recv, mine, most, a.root, moved);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::scatterv>::entry = entry_of<Scatterv>();

}  // namespace osmp
