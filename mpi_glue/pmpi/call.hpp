// One intercepted collective on this rank (logic.cpp, nodes.cpp): the
// communicator's osmp state, what this rank hands to osmp (a Plan, whose
// header every rank's osmp call compares), and where the call ended.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/access.hpp"
#include "collectives/engine.hpp"
#include "collectives/types.hpp"
#include "mpi_glue/pmpi/logic.h"
#include "mpi_glue/pmpi/state.hpp"
#include "mpi_glue/pmpi/types.hpp"
#include "osmp.hpp"

namespace osmp::pmpi {

struct Call {
  MPI_Comm comm;
  const char* name;  // "MPI_Allreduce"
  OpKind kind;
  CommState* st = nullptr;
  bool take = false;  // the communicator runs this operation on osmp (agreed when its state was built)
  int me = 0, n = 0;
  // `nonblocking`: a non-blocking call, which never builds the
  // communicator's state (a blocking collective does): without one it goes
  // to the MPI.
  // A state this thread used and nobody released since, before MPI_Finalize
  // began (known_state): MPI works, no need to ask PMPI_Finalized. Inline:
  // every call; the others look it up out of line.
  Call(MPI_Comm c, OpKind op, const char* function, bool nonblocking = false) : comm(c), name(function), kind(op) {
    if (CommState* known = comm != MPI_COMM_NULL ? known_state(comm) : nullptr) [[likely]] {
      take_state(known);
    } else {
      find_state(nonblocking);
    }
  }
  bool nodes() const { return st->kind == CommState::Kind::nodes; }
  bool alone() const { return st->kind == CommState::Kind::alone; }
  Team& team() const { return *st->team; }

 private:
  [[gnu::noinline]] void find_state(bool nonblocking);
  void take_state(CommState* s) {
    st = s;
    take = st->kind != CommState::Kind::declined && (st->ops & op_bit(kind));
    if (!take) {
      count(false);
      return;
    }
    me = st->rank;
    n = st->size;
  }
};

// This rank's view of the call as osmp takes it: the header (kind, count,
// datatype, op, root), or why this rank cannot take it.
struct Plan {
  OpKind kind = OpKind::barrier;
  std::int64_t count = 0;  // elements of dtype (per rank for the gathers and scatter)
  Datatype dtype = Datatype::uint8;
  Op op = Op::sum;
  int root = -1;
  Errc why = Errc::ok;          // unsupported: to the MPI; another error: this rank's own
  int mpi_class = MPI_SUCCESS;  // the class of this rank's own error
  std::string what;             // its message, or why the call goes to the MPI
  std::int64_t bytes() const { return count * static_cast<std::int64_t>(size_of(dtype)); }
  bool refuses() const { return why == Errc::unsupported; }
  bool failed() const { return why != Errc::ok && why != Errc::unsupported; }
  // The first reason wins.
  void fail(int cls, std::string message) {
    if (why != Errc::ok && why != Errc::unsupported) return;
    why = Errc::invalid_argument;
    mpi_class = cls;
    what = std::move(message);
  }
  void refuse(std::string reason) {
    if (why != Errc::ok) return;
    why = Errc::unsupported;
    what = std::move(reason);
  }
};

// The v-variants' blocks, where this rank holds them all (committed after
// the call too; alltoallv: the receive side, and send_blocks the send side),
// and reduce_scatter's share of every rank, in osmp's elements.
struct VBlocks {
  BlockSet blocks, send_blocks;
  std::vector<std::int64_t> counts;
};
// A call's VBlocks come from this thread's last few calls' (their vectors
// keep their room: a v-variant's call allocates nothing once warm) and go
// back there when the call is done (scratch of more than 1 MiB freed).
std::unique_ptr<VBlocks> reused_vblocks();
struct VBlocksBack {
  void operator()(VBlocks* v) const noexcept;
};

// What this rank hands osmp for one call: its plan, the streams its buffers
// became (alive until the call completes: osmp reads and writes them), and
// osmp's arguments.
struct Prepared {
  Plan p;
  Stream in, out;
  const void* send = nullptr;
  void* recv = nullptr;
  bool commit = false;  // `out` is unpacked into the caller's buffer after the call
  // The v-variants' blocks: made by the calls that have them (v()), so that
  // the other calls do not build and destroy seven vectors each.
  std::unique_ptr<VBlocks, VBlocksBack> vb;
  VBlocks& v() {
    if (!vb) vb.reset(reused_vblocks().release());
    return *vb;
  }
  const VBlocks& v() const { return vb ? *vb : kNoBlocks; }
  // What a call's blocks commit after it completes, and the types they
  // unpack with (Stream::hold_type): none without blocks.
  void commit_blocks() {
    if (vb) vb->blocks.commit();
  }
  void hold_block_types(std::vector<MPI_Datatype>& held) {
    if (vb) vb->blocks.hold_type(held);
  }
  static const VBlocks kNoBlocks;
};

// Where a call ended on this rank.
struct Outcome {
  enum class Route { osmp, mpi, error } route = Route::osmp;
  Status error;
  static Outcome of(const Status& st) {
    if (st.ok()) return {};
    return {st.code() == Errc::unsupported ? Route::mpi : Route::error, st};
  }
};

// Joins osmp's call with p's header: runs it, or abstains for p.why.
template <class F>
Status join(Team& team, const Plan& p, F&& run) {
  if (p.why == Errc::ok) return run();
  return team.abstain(p.kind, p.count, p.dtype, p.op, p.root, p.why);
}
// The same for a prepared call on one node: run now, or started
// (non-blocking: nonblocking.cpp).
Status run_joined(Team& team, const Prepared& x);
// The engine's arguments of a prepared call of operation K.
template <OpKind K>
CollArgs args_of(const Prepared& x) {
  constexpr Takes t = describe(K).takes;
  const Plan& p = x.p;
  CollArgs a{K, x.send, x.recv, p.count, p.dtype, p.op, p.root};
  if constexpr (t.counts) {
    const BlockSet& blocks = t.pairs ? x.v().send_blocks : x.v().blocks;
    a.counts = t.displs ? blocks.counts() : x.v().counts.data();
    a.displs = blocks.displs();
    a.recv_counts = x.v().blocks.counts();
    a.recv_displs = x.v().blocks.displs();
  }
  return as_called(a);
}
// run_joined for a blocking call of operation K: its own entry on the
// engine the team runs K on (Ops<K>::entry.call), as the C entry calls it.
template <OpKind K>
Status run_joined_as(Team& team, const Prepared& x) {
  if (x.p.why == Errc::ok) [[likely]]
    return Ops<K>::entry.call(TeamAccess::engine(team, K), args_of<K>(x));
  return join(team, x.p, [] { return Status{}; });
}
Request start_joined(Team& team, const Prepared& x);

// Starts a prepared call (nonblocking.cpp): on osmp in the node, completed
// through a request in *req (osmp_pmpi_set_requests: a generalized request,
// or the component's); else, as the route rule says, the MPI's own
// non-blocking call, `mpi(req)` (own()): for a communicator osmp does not
// run alone or across nodes; and, inside the same request, when
// this rank declines the call (osmp's exchange then checks that every rank
// did).
int nonblocking(const Call& c, Prepared&& x, MPI_Request* req, const std::function<int(MPI_Request*)>& mpi);
// The MPI's own non-blocking collectives (osmp_pmpi_set_own, logic.h).
const osmp_pmpi_own& own();
// Moves the pending calls on until none on `comm` still needs its team (its
// state is going: MPI_Comm_free), or until none is pending at all (the
// teams are going: MPI_Finalize).
void complete_osmp_parts(MPI_Comm comm);
void complete_all();

// Calls spanning nodes (nodes.cpp): osmp in each node, the node leaders
// moving data through the MPI (agreeing first strictly: agree.hpp); an operation's flow
// from the call as prepared (its buffers as byte streams, send kInPlace
// where osmp allows; the v-variants' counts and displacements in bytes,
// reduce_scatter's shares in elements of p.dtype, where this rank's own
// arguments were fine and it holds them (gatherv, scatterv: the root); else
// it takes part without them). Blocking calls only: a non-blocking call
// across nodes is the MPI's (nonblocking.cpp). Scan's and exscan's flow
// needs every node's ranks to follow one another
// (CommState::nodes_in_rank_order). An operation without a flow (null) is
// the MPI's own collective across nodes, on every rank alike.
using Flow = Outcome (*)(const Call& c, const Prepared& x);
Flow flow_across_nodes(OpKind k);

}  // namespace osmp::pmpi
