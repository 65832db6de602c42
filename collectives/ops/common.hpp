// Shared by the operations: headers, the first step, chunking.
#pragma once

#include <algorithm>

#include "collectives/engine.hpp"
#include "collectives/payloads.hpp"
#include "collectives/step_impl.hpp"

namespace osmp {

inline OpHeader header_for(const CollArgs& a) {
  OpHeader h;
  h.kind = static_cast<std::uint8_t>(a.kind);
  h.dtype = static_cast<std::uint8_t>(a.dtype);
  h.op = static_cast<std::uint8_t>(a.op);
  h.root = a.root;
  h.count = a.count;
  h.declined = a.abstain == Errc::unsupported ? 1 : 0;
  return h;
}

// The first step of every operation: headers up, verdict down, with the
// payload's data when it fits. `only`: no chunk steps follow.
template <class P>
Status first_step(Engine& e, P& p, const CollArgs& a, StatusWord local, bool only = true) {
  StepKind k;
  k.header = k.up = k.down = true;
  k.only = only;
  return run_step(e, p, k, e.next_step(), header_for(a), local, a.root);
}

// A payload that moves nothing: barrier, and the first step of a chunked operation.
class NoPayload : public Payload {
 public:
  bool symmetric_ok() const { return true; }
};

// Runs `chunks` chunk steps of the given kind; `make(c)` prepares chunk c.
template <class P, class F>
Status chunk_steps(Engine& e, std::size_t chunks, bool up, bool down, int root, P& p, F&& prepare,
                   bool slices = false) {
  StepKind k;
  k.up = up;
  k.down = down;
  k.slices = slices;
  for (std::size_t c = 0; c < chunks; ++c) {
    std::uint64_t step = e.next_step();
    if (c == 0) k.first_chunk = step;
    prepare(c);
    OSMP_RETURN_IF_ERROR(run_step(e, p, k, step, OpHeader{}, 0, root));
  }
  return {};
}

inline std::size_t elems_per(std::size_t bytes, Datatype t) { return std::max<std::size_t>(1, bytes / size_of(t)); }
inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Each operation, after its arguments were checked locally (`local` is 0 or
// this rank's argument error, which it still takes part with).
Status run_barrier(Engine& e, const CollArgs& a, StatusWord local);
Status run_bcast(Engine& e, const CollArgs& a, StatusWord local);
Status run_reduce(Engine& e, const CollArgs& a, StatusWord local);
Status run_allreduce(Engine& e, const CollArgs& a, StatusWord local);
Status run_gather(Engine& e, const CollArgs& a, StatusWord local);
Status run_allgather(Engine& e, const CollArgs& a, StatusWord local);
Status run_scatter(Engine& e, const CollArgs& a, StatusWord local);
Status run_reduce_scatter_block(Engine& e, const CollArgs& a, StatusWord local);

// The flat paths for large gathers and scatters (collectives/ops/flat.cpp):
// every rank's outbox in the team's control segment, in chunks.
Status flat_gather(Engine& e, const std::byte* send, std::byte* recv, std::size_t block, int root);
Status flat_allgather(Engine& e, const std::byte* send, std::byte* recv, std::size_t block);
Status flat_scatter(Engine& e, const std::byte* send, std::byte* recv, std::size_t block, int root);
Status flat_reduce_scatter(Engine& e, const std::byte* send, std::byte* recv, std::size_t count, Datatype t, Op op);

}  // namespace osmp
