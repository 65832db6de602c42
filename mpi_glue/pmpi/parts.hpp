// The pieces the flows of nodes.cpp are made of: the leaders' part, a
// decision handed to a node or between a root and its node's leader, and
// the node-grouped layout of per-rank blocks.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "mpi_glue/pmpi/agree.hpp"
#include "mpi_glue/pmpi/call.hpp"

namespace osmp::pmpi {

using Route = Decision::Route;

Outcome outcome_of(const Decision& d);
inline bool leader(const Call& c) { return c.team().rank() == 0; }
int leaders_rank(const Call& c);
// What a leader says of its node: p's header, and the node's verdict.
NodeSays says(const Plan& p, const Status& verdict);
// p's error as a verdict (ok when none).
Status own(const Plan& p);

// The leaders' part. Strict (CommState::leaders_agree): the agreement,
// then (large data, agreed) the MPI's own collective `move`. Lazy: `move`
// alone, so the leaders make exactly the MPI call the operation is; each
// node keeps its verdict (a node that failed still takes part, with its
// leader's buffers, so the others never wait for it), and a node that
// hands the call to the MPI does so alone (as every node of a legal
// program does: what sends a call to the MPI, a user op or a type osmp
// lacks, is passed alike). A leader whose own arguments failed cannot take
// part, as with the MPI itself.
Decision failure(const char* what, int rc);
Decision node_decision(const NodeSays& s);
template <class Move>
Decision leaders_part(const Call& c, const NodeSays& s, const Payload& pl, bool large, Move&& move) {
  const bool strict = c.st->leaders_agree;
  Decision d = strict ? agree(c.st->leaders, c.me, s, pl) : node_decision(s);
  const bool moves = strict ? d.route == Route::osmp && large : !s.to_mpi && s.own_fine;
  if (!moves) return d;
  const int rc = on_leaders(move);
  return rc == MPI_SUCCESS ? d : failure("the node leaders' MPI collective", rc);
}

// The leaders' decision to every rank of a node that handed the call to
// the MPI (a bcast of a word from the leader; `d` is read at the leader),
// after the agreement: tell_agreed (gatherv, scatterv and alltoallv,
// whose leaders agree in both modes, their sizes riding along), tell_node
// (leaders_part's flows: lazily the node decided alone, and knows).
Outcome tell_agreed(const Call& c, const Decision& d);
Outcome tell_node(const Call& c, const Decision& d);

// The node's last part (bcast, scatter from the leader): run, or at a
// leader whose decision is not osmp, abstain with it.
Errc abstain_code(const Decision& d);
template <class F>
Outcome last_part(const Call& c, const Decision& d, const Plan& p, F&& run) {
  if (leader(c) && d.route != Route::osmp) {
    (void)c.team().abstain(p.kind, p.count, p.dtype, p.op, p.root, abstain_code(d));
    return outcome_of(d);
  }
  return Outcome::of(join(c.team(), p, run));
}

// Root <-> its node's leader on the node's communicator, once the node's
// osmp part agreed on the root (or another rank the flow names, as scan's
// last rank with the node's total): bytes, or a decision and bytes after it.
void hand(const Call& c, const void* data, std::int64_t len, int to);
void take(const Call& c, void* data, std::int64_t len, int from);
void send_decision(const Call& c, const Decision& d, const void* data, std::int64_t len, int to);
Decision recv_decision(const Call& c, int from, void* into, std::int64_t expect);
// The same, for as many bytes as were sent (into is resized to them).
Decision recv_decision(const Call& c, int from, std::vector<unsigned char>& into);

// Blocks of b bytes per rank (or bytes[r] for comm rank r: the
// v-variants) grouped by node, in the leaders' order. The callers keep
// every node's bytes within an int (the MPI's counts).
struct Layout {
  std::vector<std::vector<int>> members;  // [leaders rank] -> comm ranks, node-local order
  std::vector<int> counts, displs;        // bytes, per leaders rank
};
Layout layout(const CommState& st, std::int64_t b, const std::int64_t* bytes = nullptr);
void to_grouped(const Layout& l, std::int64_t b, const unsigned char* by_rank, unsigned char* grouped);
void to_ranks(const Layout& l, std::int64_t b, const unsigned char* grouped, unsigned char* by_rank);

// Whether bytes fit the agreement's payload; whether they ride in it
// through leaders_part (strict only: lazily there is no agreement, and
// every size goes in the MPI's collective).
inline bool fits_agreement(std::int64_t bytes) { return bytes <= static_cast<std::int64_t>(kPayload); }
inline bool fits(const Call& c, std::int64_t bytes) { return c.st->leaders_agree && fits_agreement(bytes); }

// Where a rooted call's root is.
struct RootAt {
  int node, local, lroot;  // its node, its rank there, its leader's rank among the leaders
  bool mine;               // on this rank's node
  bool me;                 // this rank
};
RootAt root_at(const Call& c, int root);

// p's header for one osmp part.
Plan part_plan(const Plan& p, OpKind kind, std::int64_t count, int root);

}  // namespace osmp::pmpi
