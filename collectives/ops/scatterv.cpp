// scatterv = in a team that makes one-pass calls, one pass down with the
// root's rows (ops/rows.cpp); elsewhere the lengths step (every rank's
// receive length up the tree, checked against the root's counts:
// share_lengths), then each rank's block
// from where the root's counts and displacements put it: the flat path, or
// CMA where the plan says for the longest block (carried_by_cma). Lengths that differ
// from the root's counts go through agree_counts, which names the rank.
#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

// This rank's side of a scatterv: the root's buffer, and its own block.
struct Sides {
  Sides(Engine& e, const CollArgs& a)
      : me(e.team().rank()),
        blocks(Blocks::of(a, me == a.root)),
        mine(a.recv == kInPlace ? blocks.len(me) : static_cast<std::size_t>(a.count) * size_of(a.dtype)),
        // In place (the root's recv): its block stays where it is in send.
        recv(a.recv == kInPlace || a.abstain != Errc::ok ? nullptr : static_cast<std::byte*>(a.recv)),
        send(me == a.root && a.abstain == Errc::ok ? static_cast<const std::byte*>(a.send) : nullptr) {}
  int me;
  Blocks blocks;
  std::size_t mine;
  std::byte* recv;
  const std::byte* send;
};

struct Scatterv {
  static constexpr OpKind kKind = OpKind::scatterv;
  // Never run: a v-variant's plan always has data after the first step.
  static NoPayload one_step(Engine&, const CollArgs&, StatusWord) { return {}; }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    const Sides s(e, a);
    if (rows_in_first(kKind, plan))
      co_return co_await scatterv_rows(e, a, local, plan, s.mine, s.blocks, s.send, s.recv);
    std::size_t most = 0;
    bool agreed = false, done = false;
    OSMP_CO_RETURN_IF_ERROR(
        co_await share_lengths(e, a, local, plan, s.mine, s.blocks, s.send, s.recv, most, agreed, done));
    if (a.abstain != Errc::ok || done) co_return Status{};  // every rank declined; or the blocks came with the lengths
    // Lengths that are not the root's counts: every rank learns which differs.
    if (!agreed) OSMP_CO_RETURN_IF_ERROR(co_await agree_counts(e, a, s.blocks, s.mine, most));
    co_return co_await flat_scatter(e, carried_by_cma(e, plan, kKind, most), s.send, s.blocks, s.recv, s.mine, most,
                                    a.root);
  }
  // The lazy scatterv's step without a coroutine frame; the others as steps().
  static Status blocking_steps(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header,
                               const Plan& plan) {
    if (!rows_in_first(kKind, plan)) return steps(e, a, local, plan).run();
    const Sides s(e, a);
    return scatterv_rows_blocking(e, a, local, header, plan, s.mine, s.blocks, s.send, s.recv);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::scatterv>::entry = entry_of<Scatterv>();

}  // namespace osmp
