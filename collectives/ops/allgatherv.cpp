// allgatherv = the header step (which compares the counts' digests: every
// rank passes the same counts), then every rank's block to where each
// rank's displacements put it: the flat path, or CMA where Engine::use_cma
// says for the longest block.
#include <algorithm>

#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

struct Allgatherv {
  static constexpr OpKind kKind = OpKind::allgatherv;
  // Never run: a v-variant's plan always has data after the header step.
  static NoPayload one_step(Engine&, const CollArgs&, StatusWord) { return {}; }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (a.abstain != Errc::ok) co_return Status{};  // every rank declined: no counts, nothing to move
    const int me = e.team().rank(), n = e.team().size();
    const Blocks blocks = Blocks::of(a, true);
    auto* recv = static_cast<std::byte*>(a.recv);
    const std::byte* send = a.send == kInPlace ? recv + blocks.at(me) : static_cast<const std::byte*>(a.send);
    std::size_t most = 0;
    for (int r = 0; r < n; ++r) most = std::max(most, blocks.len(r));
    co_return co_await flat_allgather(e, kKind, send, recv, blocks, most);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::allgatherv>::entry = entry_of<Allgatherv>();

}  // namespace osmp
