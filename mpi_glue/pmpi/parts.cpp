#include "mpi_glue/pmpi/parts.hpp"

#include <cstring>

#include "core/strings.hpp"

namespace osmp::pmpi {
namespace {

constexpr int kTag = 0x6f73;

// A decision as it travels: to a node (bcast), or between a root and its
// node's leader (point to point, `len` bytes of data after it).
struct Word {
  std::int32_t route = 0, error = 0;
  std::int64_t len = 0;
  char text[240] = {};
};
static_assert(sizeof(Word) == 256);

Word word_of(const Decision& d, std::int64_t len) {
  Word w;
  w.route = static_cast<std::int32_t>(d.route);
  w.error = static_cast<std::int32_t>(d.error);
  w.len = len;
  std::strncpy(w.text, d.message.c_str(), sizeof w.text - 1);
  return w;
}

Decision decision_of(const Word& w) {
  return Decision{static_cast<Route>(w.route), static_cast<Errc>(w.error), w.text};
}

}  // namespace

Outcome outcome_of(const Decision& d) {
  switch (d.route) {
    case Route::osmp: return {};
    case Route::mpi: return {Outcome::Route::mpi, Status(Errc::unsupported, "every node hands the call to the MPI")};
    case Route::error: break;
  }
  return {Outcome::Route::error, Status(d.error, d.message)};
}

int leaders_rank(const Call& c) {
  int r = 0;
  PMPI_Comm_rank(c.st->leaders, &r);
  return r;
}

Status own(const Plan& p) { return p.why == Errc::ok ? Status() : Status(p.why, p.what); }

NodeSays says(const Plan& p, const Status& verdict) {
  NodeSays s{Errc::ok, false, p.why == Errc::ok, p.kind, p.bytes(), static_cast<int>(p.dtype), static_cast<int>(p.op),
             p.root};
  if (verdict.code() == Errc::unsupported)
    s.to_mpi = true;
  else if (!verdict.ok())
    s.error = verdict.code();
  return s;
}

Decision failure(const char* what, int rc) {
  return {Route::error, Errc::system, cat(what, " failed (MPI error ", rc, ")")};
}

Decision node_decision(const NodeSays& s) {
  if (s.to_mpi) return {Route::mpi, Errc::ok, ""};
  if (s.error == Errc::ok) return {};
  return {Route::error, s.error, cat("this node's part of the call failed (", errc_name(s.error), ")")};
}

Outcome tell_node(const Call& c, const Decision& d) {
  // Lazily every node that hands the call to the MPI decides so alone
  // (leaders_part): its ranks know it already.
  if (!c.st->leaders_agree) return outcome_of(Decision{Route::mpi, Errc::ok, ""});
  return tell_agreed(c, d);
}

Outcome tell_agreed(const Call& c, const Decision& d) {
  Word w = leader(c) ? word_of(d, 0) : Word{};
  Status st = c.team().bcast(&w, sizeof w, Datatype::uint8, 0);
  if (!st.ok()) return {Outcome::Route::error, st};
  return outcome_of(decision_of(w));
}

Errc abstain_code(const Decision& d) {
  return d.error == Errc::ok || d.error == Errc::peer_dead || d.error == Errc::aborted ? Errc::system : d.error;
}

void hand(const Call& c, const void* data, std::int64_t len, int to) {
  if (len > 0) PMPI_Send(data, static_cast<int>(len), MPI_BYTE, to, kTag, c.st->node);
}

void take(const Call& c, void* data, std::int64_t len, int from) {
  if (len > 0) PMPI_Recv(data, static_cast<int>(len), MPI_BYTE, from, kTag, c.st->node, MPI_STATUS_IGNORE);
}

void send_decision(const Call& c, const Decision& d, const void* data, std::int64_t len, int to) {
  Word w = word_of(d, d.route == Route::osmp ? len : 0);
  PMPI_Send(&w, sizeof w, MPI_BYTE, to, kTag, c.st->node);
  hand(c, data, w.len, to);
}

Decision recv_decision(const Call& c, int from, void* into, std::int64_t expect) {
  Word w;
  PMPI_Recv(&w, sizeof w, MPI_BYTE, from, kTag, c.st->node, MPI_STATUS_IGNORE);
  if (w.route != static_cast<int>(Route::osmp)) return decision_of(w);
  if (w.len == expect) {
    take(c, into, w.len, from);
    return {};
  }
  std::vector<unsigned char> sink(static_cast<std::size_t>(w.len));  // cannot happen once the node agreed
  take(c, sink.data(), w.len, from);
  return {Route::error, Errc::internal, cat("the leader sent ", w.len, " bytes, ", expect, " expected")};
}

Decision recv_decision(const Call& c, int from, std::vector<unsigned char>& into) {
  Word w;
  PMPI_Recv(&w, sizeof w, MPI_BYTE, from, kTag, c.st->node, MPI_STATUS_IGNORE);
  if (w.route != static_cast<int>(Route::osmp)) return decision_of(w);
  into.resize(static_cast<std::size_t>(w.len));
  take(c, into.data(), w.len, from);
  return {};
}

Layout layout(const CommState& st, std::int64_t b, const std::int64_t* bytes) {
  Layout l;
  l.members.resize(st.leader_rank_of_node.size());
  for (std::size_t r = 0; r < st.node_of.size(); ++r)
    l.members[static_cast<std::size_t>(st.leader_rank_of_node[static_cast<std::size_t>(st.node_of[r])])].push_back(
        static_cast<int>(r));
  std::int64_t at = 0;
  for (const auto& m : l.members) {
    std::int64_t node = 0;
    for (int r : m) node += bytes ? bytes[r] : b;
    l.counts.push_back(static_cast<int>(node));
    l.displs.push_back(static_cast<int>(at));
    at += node;
  }
  return l;
}

void to_grouped(const Layout& l, std::int64_t b, const unsigned char* by_rank, unsigned char* grouped) {
  for (std::size_t g = 0; g < l.members.size(); ++g)
    for (std::size_t i = 0; i < l.members[g].size(); ++i)
      std::memcpy(grouped + l.displs[g] + static_cast<std::int64_t>(i) * b,
                  by_rank + static_cast<std::int64_t>(l.members[g][i]) * b, static_cast<std::size_t>(b));
}

void to_ranks(const Layout& l, std::int64_t b, const unsigned char* grouped, unsigned char* by_rank) {
  for (std::size_t g = 0; g < l.members.size(); ++g)
    for (std::size_t i = 0; i < l.members[g].size(); ++i)
      std::memcpy(by_rank + static_cast<std::int64_t>(l.members[g][i]) * b,
                  grouped + l.displs[g] + static_cast<std::int64_t>(i) * b, static_cast<std::size_t>(b));
}

RootAt root_at(const Call& c, int root) {
  const CommState& st = *c.st;
  const int node = st.node_of[static_cast<std::size_t>(root)];
  return {node, st.local_of[static_cast<std::size_t>(root)], st.leader_rank_of_node[static_cast<std::size_t>(node)],
          node == st.my_node, root == c.me};
}

Plan part_plan(const Plan& p, OpKind kind, std::int64_t count, int root) {
  Plan q = p;
  q.kind = kind;
  q.count = count;
  q.root = root;
  return q;
}

}  // namespace osmp::pmpi
