// MPI's collectives on osmp, shared by the PMPI interposer (interpose.cpp)
// and the Open MPI component (mpi_glue/ompi_coll). Communicators on one node
// run the whole operation on osmp; communicators spanning nodes run osmp
// inside each node and the MPI's own call among node leaders
// (reduce_scatter_block across nodes goes to the MPI). Everything else, and every case osmp
// declines (derived or non-contiguous datatypes, user ops, MINLOC/MAXLOC,
// intercommunicators, a failed team creation), goes to the MPI's own
// collective; the reason is logged once (OSMP_VERBOSE=2).
#include <mpi.h>

#include "mpi_glue/pmpi/logic.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "core/log.hpp"
#include "core/strings.hpp"
#include "mpi_glue/pmpi/state.hpp"

namespace osmp::pmpi {
namespace {

enum OpBit : unsigned { kBarrier = 1, kBcast = 2, kReduce = 4, kAllreduce = 8, kGather = 16, kAllgather = 32,
                        kScatter = 64, kReduceScatter = 128 };

std::optional<Datatype> arith_type(MPI_Datatype t) {
  if (t == MPI_INT8_T || t == MPI_SIGNED_CHAR || t == MPI_CHAR) return Datatype::int8;
  if (t == MPI_INT16_T || t == MPI_SHORT) return Datatype::int16;
  if (t == MPI_INT32_T || t == MPI_INT) return Datatype::int32;
  if (t == MPI_INT64_T || t == MPI_LONG_LONG || (t == MPI_LONG && sizeof(long) == 8)) return Datatype::int64;
  if (t == MPI_UINT8_T || t == MPI_UNSIGNED_CHAR || t == MPI_BYTE) return Datatype::uint8;
  if (t == MPI_UINT16_T || t == MPI_UNSIGNED_SHORT) return Datatype::uint16;
  if (t == MPI_UINT32_T || t == MPI_UNSIGNED) return Datatype::uint32;
  if (t == MPI_UINT64_T || t == MPI_UNSIGNED_LONG_LONG || (t == MPI_UNSIGNED_LONG && sizeof(long) == 8))
    return Datatype::uint64;
  if (t == MPI_FLOAT) return Datatype::float32;
  if (t == MPI_DOUBLE) return Datatype::float64;
  return std::nullopt;
}

std::optional<Op> op_of(MPI_Op op) {
  if (op == MPI_SUM) return Op::sum;
  if (op == MPI_PROD) return Op::prod;
  if (op == MPI_MIN) return Op::min;
  if (op == MPI_MAX) return Op::max;
  if (op == MPI_BAND) return Op::band;
  if (op == MPI_BOR) return Op::bor;
  if (op == MPI_BXOR) return Op::bxor;
  if (op == MPI_LAND) return Op::land;
  if (op == MPI_LOR) return Op::lor;
  return std::nullopt;
}

// Bytes of `count` elements when they lie contiguously, else nullopt.
std::optional<std::int64_t> bytes_of(MPI_Datatype t, int count) {
  if (count < 0) return std::nullopt;
  int size = 0;
  MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
  PMPI_Type_size(t, &size);
  PMPI_Type_get_extent(t, &lb, &extent);
  PMPI_Type_get_true_extent(t, &tlb, &textent);
  if (lb != 0 || tlb != 0 || extent != size || textent != size) return std::nullopt;
  return static_cast<std::int64_t>(size) * count;
}

// One intercepted call: whether osmp takes it.
const char* op_name(unsigned bit) {
  static const char* kNames[] = {"barrier", "bcast", "reduce", "allreduce", "gather", "allgather", "scatter",
                                 "reduce_scatter_block"};
  for (unsigned i = 0; i < 8; ++i)
    if (bit == 1u << i) return kNames[i];
  return "?";
}

struct Call {
  CommState* st = nullptr;
  bool take = false;
  unsigned bit = 0;
  Call(MPI_Comm comm, unsigned op) : bit(op) {
    if (!settings().enabled || !(settings().ops & op) || comm == MPI_COMM_NULL) return;
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (finalized) return;
    st = &state_of(comm);
    take = st->kind != CommState::Kind::declined;
  }
  bool nodes() const { return st->kind == CommState::Kind::nodes; }
  bool leader() const {
    int r = 0;
    PMPI_Comm_rank(st->comm, &r);
    return st->local_of[static_cast<std::size_t>(r)] == 0;
  }
  int leader_comm_rank(int node) const {
    for (std::size_t r = 0; r < st->node_of.size(); ++r)
      if (st->node_of[r] == node && st->local_of[r] == 0) return static_cast<int>(r);
    return -1;
  }
};

int decline(const char* reason) {
  declined(reason);
  count(false);
  return -1;
}

// An osmp outcome: on one node every rank got the same answer, so a refusal
// (bad or mismatched arguments, unsupported) falls back to the MPI together;
// anything else is an MPI error through comm's handler.
enum class Outcome { done, fall_back, failed };
Outcome outcome(const Call& c, const Status& st) {
  if (st.ok()) {
    count(true);
    // OSMP_VERBOSE=3 (coll_osmp_verbose 2): the path of every call.
    log(LogLevel::debug, "osmp_pmpi: ", op_name(c.bit), c.nodes() ? ": osmp per node + the MPI among leaders" : ": osmp");
    return Outcome::done;
  }
  const Errc e = st.code();
  if (!c.nodes() && (e == Errc::invalid_argument || e == Errc::mismatch || e == Errc::unsupported)) {
    declined(cat("osmp refused the call (", errc_name(e), ")"));
    count(false);
    return Outcome::fall_back;
  }
  log(LogLevel::error, "osmp_pmpi: ", st.to_string());
  PMPI_Comm_call_errhandler(c.st->comm, MPI_ERR_OTHER);
  return Outcome::failed;
}

// Blocks of B bytes per rank, grouped by node in the leaders' order: the
// comm ranks of each node (node-local order) and the byte counts and
// displacements the leaders' *v calls take. Nothing when a count passes int.
struct Layout {
  std::vector<std::vector<int>> members;  // [leaders rank] -> comm ranks
  std::vector<int> counts, displs;        // bytes, per leaders rank
};
std::optional<Layout> layout(const CommState& st, std::int64_t block) {
  Layout l;
  const std::size_t nodes = st.leader_rank_of_node.size();
  l.members.resize(nodes);
  for (std::size_t r = 0; r < st.node_of.size(); ++r)
    l.members[static_cast<std::size_t>(st.leader_rank_of_node[static_cast<std::size_t>(st.node_of[r])])].push_back(
        static_cast<int>(r));
  std::int64_t at = 0;
  for (const auto& m : l.members) {
    const std::int64_t bytes = block * static_cast<std::int64_t>(m.size());
    if (at + bytes > INT32_MAX) return std::nullopt;
    l.counts.push_back(static_cast<int>(bytes));
    l.displs.push_back(static_cast<int>(at));
    at += bytes;
  }
  return l;
}

// Between comm-rank order and the leaders' node-grouped order.
void to_grouped(const Layout& l, std::int64_t block, const unsigned char* by_rank, unsigned char* grouped) {
  for (std::size_t g = 0; g < l.members.size(); ++g)
    for (std::size_t i = 0; i < l.members[g].size(); ++i)
      std::memcpy(grouped + l.displs[g] + static_cast<std::int64_t>(i) * block,
                  by_rank + static_cast<std::int64_t>(l.members[g][i]) * block, static_cast<std::size_t>(block));
}
void to_ranks(const Layout& l, std::int64_t block, const unsigned char* grouped, unsigned char* by_rank) {
  for (std::size_t g = 0; g < l.members.size(); ++g)
    for (std::size_t i = 0; i < l.members[g].size(); ++i)
      std::memcpy(by_rank + static_cast<std::int64_t>(l.members[g][i]) * block,
                  grouped + l.displs[g] + static_cast<std::int64_t>(i) * block, static_cast<std::size_t>(block));
}

constexpr int kTag = 0x6f73;

const void* in_of(const void* p) { return p == MPI_IN_PLACE ? kInPlace : p; }
void* out_of(void* p) { return p == MPI_IN_PLACE ? const_cast<void*>(kInPlace) : p; }

}  // namespace
}  // namespace osmp::pmpi

using namespace osmp;
using namespace osmp::pmpi;

#define OSMP_PMPI_RESULT(call_expr, fallback_expr)        \
  switch (outcome(c, (call_expr))) {                      \
    case Outcome::done: return MPI_SUCCESS;               \
    case Outcome::failed: return MPI_ERR_OTHER;           \
    case Outcome::fall_back: return (fallback_expr);      \
  }                                                       \
  return MPI_ERR_INTERN

extern "C" {

int osmp_pmpi_barrier(MPI_Comm comm) {
  Call c(comm, kBarrier);
  if (!c.take) return PMPI_Barrier(comm);
  if (!c.nodes()) { OSMP_PMPI_RESULT(c.st->team->barrier(), PMPI_Barrier(comm)); }
  Status st = c.st->team->barrier();
  if (st.ok() && c.leader()) PMPI_Barrier(c.st->leaders);
  if (st.ok()) st = c.st->team->barrier();
  OSMP_PMPI_RESULT(st, PMPI_Barrier(comm));
}

int osmp_pmpi_bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  Call c(comm, kBcast);
  if (!c.take) return PMPI_Bcast(buf, count, t, root, comm);
  auto bytes = bytes_of(t, count);
  if (!bytes || root < 0 || root >= static_cast<int>(c.st->node_of.size()))
    return decline("bcast: non-contiguous datatype or bad root"), PMPI_Bcast(buf, count, t, root, comm);
  if (!c.nodes()) { OSMP_PMPI_RESULT(c.st->team->bcast(buf, *bytes, Datatype::uint8, root), PMPI_Bcast(buf, count, t, root, comm)); }
  const int root_node = c.st->node_of[static_cast<std::size_t>(root)];
  Status st;
  if (c.st->my_node == root_node) st = c.st->team->bcast(buf, *bytes, Datatype::uint8, c.st->local_of[static_cast<std::size_t>(root)]);
  if (st.ok() && c.leader()) PMPI_Bcast(buf, count, t, c.st->leader_rank_of_node[static_cast<std::size_t>(root_node)], c.st->leaders);
  if (st.ok() && c.st->my_node != root_node) st = c.st->team->bcast(buf, *bytes, Datatype::uint8, 0);
  OSMP_PMPI_RESULT(st, PMPI_Bcast(buf, count, t, root, comm));
}

int osmp_pmpi_allreduce(const void* s, void* r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  Call c(comm, kAllreduce);
  if (!c.take) return PMPI_Allreduce(s, r, count, t, op, comm);
  auto dt = arith_type(t);
  auto o = op_of(op);
  if (!dt || !o || !defined_for(*o, *dt))
    return decline("allreduce: datatype or op osmp lacks"), PMPI_Allreduce(s, r, count, t, op, comm);
  if (!c.nodes()) { OSMP_PMPI_RESULT(c.st->team->allreduce(in_of(s), r, count, *dt, *o), PMPI_Allreduce(s, r, count, t, op, comm)); }
  const bool lead = c.leader();
  const void* in = s == MPI_IN_PLACE ? (lead ? kInPlace : r) : s;
  Status st = c.st->team->reduce(in, r, count, *dt, *o, 0);
  if (st.ok() && lead) PMPI_Allreduce(MPI_IN_PLACE, r, count, t, op, c.st->leaders);
  if (st.ok()) st = c.st->team->bcast(r, count, *dt, 0);
  OSMP_PMPI_RESULT(st, PMPI_Allreduce(s, r, count, t, op, comm));
}

int osmp_pmpi_reduce(const void* s, void* r, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
  Call c(comm, kReduce);
  if (!c.take) return PMPI_Reduce(s, r, count, t, op, root, comm);
  auto dt = arith_type(t);
  auto o = op_of(op);
  if (!dt || !o || !defined_for(*o, *dt) || root < 0 || root >= static_cast<int>(c.st->node_of.size()))
    return decline("reduce: datatype, op or root osmp lacks"), PMPI_Reduce(s, r, count, t, op, root, comm);
  if (!c.nodes()) { OSMP_PMPI_RESULT(c.st->team->reduce(in_of(s), r, count, *dt, *o, root), PMPI_Reduce(s, r, count, t, op, root, comm)); }
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  const int root_node = c.st->node_of[static_cast<std::size_t>(root)];
  const bool lead = c.leader(), root_leads = c.st->local_of[static_cast<std::size_t>(root)] == 0;
  std::vector<unsigned char> tmp(lead && me != root ? static_cast<std::size_t>(count) * size_of(*dt) : 0);
  void* partial = me == root ? r : tmp.data();
  const void* in = s == MPI_IN_PLACE ? (lead ? kInPlace : r) : s;
  if (s == MPI_IN_PLACE && lead && me != root) in = r;  // only the root may pass MPI_IN_PLACE
  Status st = c.st->team->reduce(in, partial, count, *dt, *o, 0);
  if (st.ok() && lead) {
    const int lroot = c.st->leader_rank_of_node[static_cast<std::size_t>(root_node)];
    int lme = 0;
    PMPI_Comm_rank(c.st->leaders, &lme);
    // Never MPI_IN_PLACE here: MPICH 4.0 crashes on an in-place reduce whose
    // root is not rank 0 (pmodels/mpich#6540); a copy costs less than a crash.
    const std::size_t n = static_cast<std::size_t>(count) * size_of(*dt);
    std::vector<unsigned char> total(lme == lroot && me != root ? n : 0);
    if (me == root) tmp.assign(static_cast<const unsigned char*>(partial), static_cast<const unsigned char*>(partial) + n);
    PMPI_Reduce(tmp.data(), lme == lroot && me != root ? total.data() : r, count, t, op, lroot, c.st->leaders);
    if (lme == lroot && me != root) PMPI_Send(total.data(), count, t, root, 0x6f73, comm);
  }
  if (st.ok() && me == root && !root_leads)
    PMPI_Recv(r, count, t, c.leader_comm_rank(root_node), 0x6f73, comm, MPI_STATUS_IGNORE);
  OSMP_PMPI_RESULT(st, PMPI_Reduce(s, r, count, t, op, root, comm));
}

int osmp_pmpi_gather(const void* s, int sc, MPI_Datatype st_, void* r, int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  Call c(comm, kGather);
  if (!c.take) return PMPI_Gather(s, sc, st_, r, rc, rt, root, comm);
  int me = 0, n = 0;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &n);
  auto bytes = (me == root && s == MPI_IN_PLACE) ? bytes_of(rt, rc) : bytes_of(st_, sc);
  if (!bytes || root < 0 || root >= n) return decline("gather: non-contiguous datatype or bad root"), PMPI_Gather(s, sc, st_, r, rc, rt, root, comm);
  if (!c.nodes()) { OSMP_PMPI_RESULT(c.st->team->gather(in_of(s), r, *bytes, Datatype::uint8, root), PMPI_Gather(s, sc, st_, r, rc, rt, root, comm)); }
  // Across nodes: gather in each node, Gatherv among the leaders, reorder at the root.
  const std::int64_t b = *bytes;
  auto l = layout(*c.st, b);
  if (!l || b * n > INT32_MAX) return decline("gather: too large for the leaders' Gatherv"), PMPI_Gather(s, sc, st_, r, rc, rt, root, comm);
  const bool lead = c.leader();
  const int root_node = c.st->node_of[static_cast<std::size_t>(root)];
  const bool root_leads = c.st->local_of[static_cast<std::size_t>(root)] == 0;
  const void* in = s == MPI_IN_PLACE ? static_cast<const unsigned char*>(r) + me * b : s;
  std::vector<unsigned char> node(lead ? static_cast<std::size_t>(b) * c.st->team->size() : 0);
  Status st = c.st->team->gather(in, node.data(), b, Datatype::uint8, 0);
  if (st.ok() && lead) {
    int lme = 0;
    PMPI_Comm_rank(c.st->leaders, &lme);
    const int lroot = c.st->leader_rank_of_node[static_cast<std::size_t>(root_node)];
    std::vector<unsigned char> grouped(lme == lroot ? static_cast<std::size_t>(b * n) : 0);
    PMPI_Gatherv(node.data(), l->counts[static_cast<std::size_t>(lme)], MPI_BYTE, grouped.data(), l->counts.data(),
                 l->displs.data(), MPI_BYTE, lroot, c.st->leaders);
    if (lme == lroot) {
      std::vector<unsigned char> tmp(me == root ? 0 : static_cast<std::size_t>(b * n));
      unsigned char* out = me == root ? static_cast<unsigned char*>(r) : tmp.data();
      to_ranks(*l, b, grouped.data(), out);
      if (me != root) PMPI_Send(out, static_cast<int>(b * n), MPI_BYTE, root, kTag, comm);
    }
  }
  if (st.ok() && me == root && !root_leads)
    PMPI_Recv(r, static_cast<int>(b * n), MPI_BYTE, c.leader_comm_rank(root_node), kTag, comm, MPI_STATUS_IGNORE);
  OSMP_PMPI_RESULT(st, PMPI_Gather(s, sc, st_, r, rc, rt, root, comm));
}

int osmp_pmpi_allgather(const void* s, int sc, MPI_Datatype st_, void* r, int rc, MPI_Datatype rt, MPI_Comm comm) {
  Call c(comm, kAllgather);
  if (!c.take) return PMPI_Allgather(s, sc, st_, r, rc, rt, comm);
  auto bytes = s == MPI_IN_PLACE ? bytes_of(rt, rc) : bytes_of(st_, sc);
  if (!bytes) return decline("allgather: non-contiguous datatype"), PMPI_Allgather(s, sc, st_, r, rc, rt, comm);
  if (!c.nodes()) { OSMP_PMPI_RESULT(c.st->team->allgather(in_of(s), r, *bytes, Datatype::uint8), PMPI_Allgather(s, sc, st_, r, rc, rt, comm)); }
  // Across nodes: gather in each node, Allgatherv among the leaders, bcast in each node.
  int me = 0, n = 0;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &n);
  const std::int64_t b = *bytes;
  auto l = layout(*c.st, b);
  if (!l || b * n > INT32_MAX) return decline("allgather: too large for the leaders' Allgatherv"), PMPI_Allgather(s, sc, st_, r, rc, rt, comm);
  const bool lead = c.leader();
  const void* in = s == MPI_IN_PLACE ? static_cast<const unsigned char*>(r) + me * b : s;
  std::vector<unsigned char> node(lead ? static_cast<std::size_t>(b) * c.st->team->size() : 0);
  Status st = c.st->team->gather(in, node.data(), b, Datatype::uint8, 0);
  if (st.ok() && lead) {
    int lme = 0;
    PMPI_Comm_rank(c.st->leaders, &lme);
    std::vector<unsigned char> grouped(static_cast<std::size_t>(b * n));
    PMPI_Allgatherv(node.data(), l->counts[static_cast<std::size_t>(lme)], MPI_BYTE, grouped.data(), l->counts.data(),
                    l->displs.data(), MPI_BYTE, c.st->leaders);
    to_ranks(*l, b, grouped.data(), static_cast<unsigned char*>(r));
  }
  if (st.ok()) st = c.st->team->bcast(r, b * n, Datatype::uint8, 0);
  OSMP_PMPI_RESULT(st, PMPI_Allgather(s, sc, st_, r, rc, rt, comm));
}

int osmp_pmpi_scatter(const void* s, int sc, MPI_Datatype st_, void* r, int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  Call c(comm, kScatter);
  if (!c.take) return PMPI_Scatter(s, sc, st_, r, rc, rt, root, comm);
  int me = 0, n = 0;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &n);
  auto bytes = (me == root && r == MPI_IN_PLACE) ? bytes_of(st_, sc) : bytes_of(rt, rc);
  if (!bytes || root < 0 || root >= n) return decline("scatter: non-contiguous datatype or bad root"), PMPI_Scatter(s, sc, st_, r, rc, rt, root, comm);
  if (!c.nodes()) { OSMP_PMPI_RESULT(c.st->team->scatter(s, out_of(r), *bytes, Datatype::uint8, root), PMPI_Scatter(s, sc, st_, r, rc, rt, root, comm)); }
  // Across nodes: the root's node leader regroups, Scatterv among the leaders, scatter in each node.
  const std::int64_t b = *bytes;
  auto l = layout(*c.st, b);
  if (!l || b * n > INT32_MAX) return decline("scatter: too large for the leaders' Scatterv"), PMPI_Scatter(s, sc, st_, r, rc, rt, root, comm);
  const bool lead = c.leader();
  const int root_node = c.st->node_of[static_cast<std::size_t>(root)];
  const bool root_leads = c.st->local_of[static_cast<std::size_t>(root)] == 0;
  if (me == root && !root_leads)
    PMPI_Send(s, static_cast<int>(b * n), MPI_BYTE, c.leader_comm_rank(root_node), kTag, comm);
  std::vector<unsigned char> node(lead ? static_cast<std::size_t>(b) * c.st->team->size() : 0);
  if (lead) {
    int lme = 0;
    PMPI_Comm_rank(c.st->leaders, &lme);
    const int lroot = c.st->leader_rank_of_node[static_cast<std::size_t>(root_node)];
    std::vector<unsigned char> grouped(lme == lroot ? static_cast<std::size_t>(b * n) : 0), from_root;
    if (lme == lroot) {
      const unsigned char* src = static_cast<const unsigned char*>(s);
      if (me != root) {
        from_root.resize(static_cast<std::size_t>(b * n));
        PMPI_Recv(from_root.data(), static_cast<int>(b * n), MPI_BYTE, root, kTag, comm, MPI_STATUS_IGNORE);
        src = from_root.data();
      }
      to_grouped(*l, b, src, grouped.data());
    }
    PMPI_Scatterv(grouped.data(), l->counts.data(), l->displs.data(), MPI_BYTE, node.data(),
                  l->counts[static_cast<std::size_t>(lme)], MPI_BYTE, lroot, c.st->leaders);
  }
  std::vector<unsigned char> discard(me == root && r == MPI_IN_PLACE ? static_cast<std::size_t>(b) : 0);
  void* out = me == root && r == MPI_IN_PLACE ? discard.data() : r;  // in place: the root's block stays put
  Status st = c.st->team->scatter(node.data(), out, b, Datatype::uint8, 0);
  OSMP_PMPI_RESULT(st, PMPI_Scatter(s, sc, st_, r, rc, rt, root, comm));
}

int osmp_pmpi_reduce_scatter_block(const void* s, void* r, int rc, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  Call c(comm, kReduceScatter);
  if (!c.take) return PMPI_Reduce_scatter_block(s, r, rc, t, op, comm);
  auto dt = arith_type(t);
  auto o = op_of(op);
  if (c.nodes() || !dt || !o || !defined_for(*o, *dt))
    return decline("reduce_scatter_block: spans nodes, or datatype or op osmp lacks"), PMPI_Reduce_scatter_block(s, r, rc, t, op, comm);
  OSMP_PMPI_RESULT(c.st->team->reduce_scatter_block(in_of(s), r, rc, *dt, *o), PMPI_Reduce_scatter_block(s, r, rc, t, op, comm));
}


}  // extern "C"

extern "C" {
// For tests and tools: how many collectives this process ran on osmp / the MPI.
__attribute__((visibility("default"))) long long osmp_pmpi_calls(int on_osmp) { return calls(on_osmp != 0); }

void osmp_pmpi_report(void) { report(reporting_rank()); }

void osmp_pmpi_set_verbose(int level) {
  if (level >= 2) set_log_level(LogLevel::debug);
  else if (level >= 1) set_log_level(LogLevel::info);
}

void osmp_pmpi_finalize(void) {
  int rank = 0, finalized = 0;
  PMPI_Finalized(&finalized);
  if (finalized) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  release_all();
  report(rank);
}
}
