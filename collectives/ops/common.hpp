// Shared by the operations: headers, the plan, the first step, chunk steps.
#pragma once

#include <algorithm>

#include "collectives/engine.hpp"
#include "collectives/payloads.hpp"
#include "collectives/step.hpp"
#include "collectives/walk.hpp"

namespace osmp {

inline OpHeader header_for(const CollArgs& a) {
  OpHeader h;
  h.kind = static_cast<std::uint8_t>(a.kind);
  h.dtype = static_cast<std::uint8_t>(a.dtype);
  h.op = static_cast<std::uint8_t>(a.op);
  // A root outside the team fails validation; the header only carries it.
  h.root = static_cast<std::int16_t>(a.root >= -1 && a.root <= kMaxTeamRanks ? a.root : kMaxTeamRanks);
  h.earlier = a.earlier;
  h.count = a.count;
  h.declined = a.abstain == Errc::unsupported ? 1 : 0;
  return h;
}

// The plan of a call on this rank (`local`: its own argument error, with
// which it takes part without data).
inline Plan plan_for(const Engine& e, const CollArgs& a, StatusWord local) {
  return e.plan(PlanInput{a.kind, static_cast<std::size_t>(a.count), size_of(a.dtype), local == 0});
}

// The first step of every operation: headers up, verdict down, with the
// payload's data when the plan says it fits.
template <PayloadHooks P>
Status first_step(Engine& e, P& p, const CollArgs& a, StatusWord local, const Plan& plan) {
  return run_step(e, p, plan.first, e.next_step(), header_for(a), local, a.root);
}

// A payload that moves nothing: barrier, and the first step of a call whose
// data follows.
class NoPayload : public Payload {};
static_assert(PayloadHooks<NoPayload>);

// Runs the plan's chunk steps; `prepare(c, off, len)` sets the payload to
// chunk c, bytes [off, off + len) of the call's data.
template <PayloadHooks P, class F>
Status chunk_steps(Engine& e, const Plan& plan, std::size_t bytes, int root, P& p, F&& prepare) {
  std::uint64_t first = 0;
  for (std::size_t c = 0; c < plan.chunks; ++c) {
    std::uint64_t step = e.next_step();
    if (c == 0) first = step;
    const std::size_t off = c * plan.chunk_bytes;
    prepare(off, std::min(plan.chunk_bytes, bytes - off));
    OSMP_RETURN_IF_ERROR(run_step(e, p, plan.chunk, step, OpHeader{}, 0, root, first));
  }
  return {};
}

// The header step of a call whose data follows (plan.rest != none).
inline Status header_step(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan) {
  NoPayload none;
  return first_step(e, none, a, local, plan);
}


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
