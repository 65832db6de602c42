// alltoallv = the header step, then two flat steps in which every rank
// learns where each peer's block for it lies and how long the longest block
// is, and checks each against its own receive counts (agree_pairs), then
// the exchange: the flat path, or CMA where Engine::use_cma says for the
// longest block.
#include <vector>

#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

struct Alltoallv {
  static constexpr OpKind kKind = OpKind::alltoallv;
  // Never run: a v-variant's plan always has data after the header step.
  static NoPayload one_step(Engine&, const CollArgs&, StatusWord) { return {}; }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (a.abstain != Errc::ok) co_return Status{};  // every rank declined: no counts, nothing to move
    const std::size_t es = size_of(a.dtype);
    const Blocks in{0, a.recv_counts, a.recv_displs, es, true};
    // In place, the blocks to send are the receive blocks.
    const bool in_place = a.send == kInPlace;
    Exchange x{in_place ? in : Blocks{0, a.counts, a.displs, es, true}, in, 0};
    auto* recv = static_cast<std::byte*>(a.recv);
    const std::byte* send = in_place ? recv : static_cast<const std::byte*>(a.send);
    std::vector<std::uint64_t> at;  // where each peer's block for me lies in its send buffer
    OSMP_CO_RETURN_IF_ERROR(co_await agree_pairs(e, a, x, at));
    co_return co_await flat_alltoall(e, kKind, send, recv, x);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::alltoallv>::entry = entry_of<Alltoallv>();

}  // namespace osmp
