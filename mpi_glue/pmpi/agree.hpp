// Node leaders agreeing on a call that spans nodes (OSMP_CHECK=strict, and
// the sizes of gatherv, scatterv and alltoallv), in the exchange that moves
// its data anyway.
//
// Each node has run its part on osmp (or abstained), so every rank of a node
// knows its node's verdict. The leaders then run one MPI_Allreduce of a fixed
// block (kBlock bytes) with an op of ours: a header (the node's verdict,
// whether it hands the call to the MPI, and the range of every argument
// seen: kind, bytes, datatype, op, root) and, for calls whose leaders' data
// fits (kPayload bytes), the data itself, combined (reductions) or laid side
// by side (the others, and scan's node totals: Payload::Mode). The block's size never depends on the arguments, so
// leaders that disagree cannot block in it; larger data follows in the MPI's
// own collective only once the headers agreed.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "osmp.hpp"

namespace osmp::pmpi {

// Small: every call across nodes under OSMP_CHECK=strict pays this
// allreduce (lazily the leaders run only the MPI's collective: parts.hpp,
// leaders_part), and its cost grows
// with the block (2 simulated nodes, Open MPI 4.1: a barrier 1.18 us with
// 256 bytes, 1.97 us with 1024; calls with more data than the payload holds
// move it in the MPI's own collective after, which costs about what riding
// a larger block did).
inline constexpr std::size_t kBlock = 256;
inline constexpr std::size_t kHeader = 96;
inline constexpr std::size_t kPayload = kBlock - kHeader;

// What a leader says about its node's part of the call.
struct NodeSays {
  Errc error = Errc::ok;  // the node's error (this leader's own included)
  bool to_mpi = false;    // the node hands the call to the MPI
  bool own_fine = true;   // the leader's own arguments are good (its buffers may take part)
  OpKind kind = OpKind::barrier;
  std::int64_t bytes = 0;  // per rank (reductions: the vector; allgatherv: the counts' digest)
  int dtype = 0, op = 0, root = -1;
};

// How the payload rides: nothing, combined with (dtype, op), or each
// leader's bytes at its offset (the others' are zero; bytes are OR-ed).
struct Payload {
  enum class Mode { none, combine, place } mode = Mode::none;
  Datatype dtype = Datatype::uint8;
  Op op = Op::sum;
  const void* in = nullptr;  // this leader's bytes
  std::size_t at = 0, len = 0;
  void* out = nullptr;  // the result's `total` bytes (may be `in`)
  std::size_t total = 0;
};

// The common decision: the route every rank of the call takes.
struct Decision {
  enum class Route { osmp, mpi, error } route = Route::osmp;
  Errc error = Errc::ok;
  std::string message;
};

// Every MPI call among the leaders goes through here (counted: the
// leaders' calls per osmp call, osmp_pmpi_leader_calls, for tests). Only
// the thread that makes the call's MPI calls counts: plain.
extern long long g_leader_calls;
template <class F>
int on_leaders(F&& call) {
  ++g_leader_calls;
  return call();
}

// Collective over the leaders' communicator. `who` is this leader's rank
// in the call's communicator (errors name the lowest such rank).
Decision agree(MPI_Comm leaders, int who, const NodeSays& mine, const Payload& payload);
// Frees the block's MPI type and op (MPI_Finalize).
void release_agreement();

}  // namespace osmp::pmpi
