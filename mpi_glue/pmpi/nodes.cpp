// Calls on communicators that span nodes: osmp inside each node, the node
// leaders through the MPI. Every flow is made of the same parts
// (parts.hpp):
//
//   1. the node's part on osmp, which every rank of the node joins with its
//      header or abstains from (call.hpp), so the node shares one verdict;
//      on the root's node it is rooted at the root, so that every rank of
//      that node agrees on the root before anyone acts on it;
//   2. the leaders' part (leaders_part): lazily (the default) only the
//      MPI's own collective among them, each node keeping its verdict;
//      strictly the leaders' agreement (agree.hpp) first, data riding
//      along when it fits, then the MPI's collective for larger data;
//   3. the result into each node on osmp, the leader abstaining with the
//      decision when it is an error; on the root's node of reduce and
//      gather, the leader's result to the root.
//
// A node whose verdict is an error returns it at once (its leader still
// takes part in 2: lazily with its buffers, strictly telling the others).
// A node whose verdict is "to the MPI" hands the call to it (lazily at
// once; strictly after the leaders' decision, tell_node: to the MPI only
// when every node said so, else an error). Ranks whose part ends in 1 (the non-root nodes of
// reduce, gather and gatherv, the root's node of bcast, scatter and
// scatterv, the first node of scan and exscan) return without hearing of
// errors found later elsewhere: data flows away from them, as with the MPI
// itself, and nothing waits for them.
#include <climits>
#include <cstring>
#include <utility>
#include <vector>

#include "collectives/kernels.hpp"
#include "collectives/ops/describe.hpp"
#include "core/strings.hpp"
#include "mpi_glue/pmpi/parts.hpp"
#include "mpi_glue/pmpi/types.hpp"

namespace osmp::pmpi {

namespace {

// The leaders' exchange of the nodes' blocks (gather, allgather): this
// leader's `node` goes to its place in `grouped`, in the decision itself when
// the blocks fit it (`small`), else after it.
Payload placed(const Layout& l, std::size_t lme, const std::vector<unsigned char>& node,
               std::vector<unsigned char>& grouped, bool small) {
  return {Payload::Mode::place,
          Datatype::uint8,
          Op::sum,
          node.data(),
          static_cast<std::size_t>(l.displs[lme]),
          small ? node.size() : 0,
          grouped.data(),
          small ? grouped.size() : 0};
}

// gatherv and scatterv move, between a node's leader and the root, each of
// the node's ranks' lengths (this many bytes each, in node order), then
// their blocks back to back.
constexpr std::size_t kLen = sizeof(std::int64_t);

// The leaders' int counts and displacements of `totals` (a node's bytes
// each); false when they pass what ints hold. Every leader knows every
// total, so all decide alike.
bool int_layout(const std::vector<std::int64_t>& totals, std::vector<int>& counts, std::vector<int>& displs) {
  std::int64_t at = 0;
  for (std::int64_t t : totals) {
    if (t > INT_MAX - at) return false;
    counts.push_back(static_cast<int>(t));
    displs.push_back(static_cast<int>(at));
    at += t;
  }
  return true;
}

Decision too_large(const Plan& p) {
  return {
      Route::error, Errc::no_space,
      cat(to_string(p.kind), " across nodes: more than 2 GiB between the node leaders (their MPI counts are ints)")};
}

// Each node's bytes in `rows` (the lengths and blocks of every node but
// `skip`, in the leaders' order); what is short is the caller's error.
bool node_totals(const Layout& l, std::size_t skip, const std::vector<unsigned char>& rows,
                 std::vector<std::int64_t>& totals) {
  std::size_t at = 0;
  for (std::size_t k = 0; k < l.members.size(); ++k) {
    if (k == skip) continue;
    const std::size_t size = l.members[k].size();
    if (rows.size() - at < kLen * size) return false;
    std::size_t blocks = 0;
    for (std::size_t i = 0; i < size; ++i) {
      std::int64_t len = 0;
      std::memcpy(&len, rows.data() + at + i * kLen, kLen);
      if (len < 0) return false;
      blocks += static_cast<std::size_t>(len);
    }
    const std::size_t node = kLen * size + blocks;
    if (rows.size() - at < node) return false;
    totals[k] = static_cast<std::int64_t>(node);
    at += node;
  }
  return at == rows.size();
}

// The ranks' lengths at the head of a node's rows, and where their blocks
// start.
void row_layout(const unsigned char* rows, std::size_t size, std::vector<std::int64_t>& lens,
                std::vector<std::int64_t>& at) {
  lens.resize(size);
  at.resize(size);
  if (size) std::memcpy(lens.data(), rows, kLen * size);
  auto next = static_cast<std::int64_t>(kLen * size);
  for (std::size_t i = 0; i < size; ++i) {
    at[i] = next;
    next += lens[i];
  }
}

// The leaders' part of reduce_scatter(_block): `grouped` (every node's
// ranks' shares, in the leaders' order: l) reduced by node into `node`
// (this leader's, at l.displs[lme]), in the agreement when it fits, else
// MPI_Reduce_scatter after it.
Decision leaders_reduce_scatter(const Call& c, const Plan& p, const NodeSays& s, const Layout& l, std::size_t lme,
                                std::vector<unsigned char>& grouped, std::vector<unsigned char>& node) {
  const bool small = fits(c, static_cast<std::int64_t>(grouped.size()));
  const std::size_t len = small ? grouped.size() : 0;
  std::vector<int> elems(l.counts);
  for (int& e : elems) e = static_cast<int>(e / static_cast<int>(size_of(p.dtype)));
  Decision d = leaders_part(c, s, {Payload::Mode::combine, p.dtype, p.op, grouped.data(), 0, len, grouped.data(), len},
                            !small, [&] {
                              return PMPI_Reduce_scatter(grouped.data(), node.data(), elems.data(),
                                                         mpi_type_of(p.dtype), mpi_op_of(p.op), c.st->leaders);
                            });
  if (small && d.route == Route::osmp && !node.empty())
    std::memcpy(node.data(), grouped.data() + l.displs[lme], node.size());
  return d;
}

// A node's ranks' bytes of every length to its leader: each rank's length
// (a node gather), then the bytes (a node gatherv) into `rows`, each rank's
// at at[i]; `with_lengths`: after the lengths themselves (the rows of
// gatherv and scatterv). On the leader, lens and at per node rank.
Status gather_rows(const Call& c, const Plan& p, const void* data, std::int64_t len, bool with_lengths,
                   std::vector<unsigned char>& rows, std::vector<std::int64_t>& lens, std::vector<std::int64_t>& at) {
  Team& team = c.team();
  const auto size = leader(c) ? static_cast<std::size_t>(team.size()) : 0;
  lens.assign(size, 0);
  at.assign(size, 0);
  Status v = join(team, part_plan(p, OpKind::gather, kLen, 0),
                  [&] { return team.gather(&len, lens.data(), kLen, Datatype::uint8, 0); });
  if (!v.ok()) return v;
  auto next = static_cast<std::int64_t>(with_lengths ? kLen * size : 0);
  for (std::size_t i = 0; i < size; ++i) {
    at[i] = next;
    next += lens[i];
  }
  rows.assign(static_cast<std::size_t>(next), 0);
  if (with_lengths && size) std::memcpy(rows.data(), lens.data(), kLen * size);
  return join(team, part_plan(p, OpKind::gatherv, len, 0),
              [&] { return team.gatherv(data, len, rows.data(), lens.data(), at.data(), Datatype::uint8, 0); });
}

// A v-variant's counts and displacements (bytes per comm rank) where this
// rank's own arguments were fine and it holds the blocks (`holds`); else
// none, and it takes part without data.
struct Held {
  const std::int64_t* counts = nullptr;
  const std::int64_t* displs = nullptr;
};
Held held(const Prepared& x, const BlockSet& blocks, bool holds) {
  if (x.p.why != Errc::ok || !holds) return {};
  return {blocks.counts(), blocks.displs()};
}

std::size_t node_rank(const Call& c) {
  return static_cast<std::size_t>(c.st->leader_rank_of_node[static_cast<std::size_t>(c.st->my_node)]);
}

Outcome nodes_barrier(const Call& c, const Prepared& /*x*/) {
  Plan p;
  Status v1 = c.team().barrier();
  Decision d;
  // Strict: the agreement is the leaders' barrier; lazily MPI_Barrier.
  if (leader(c)) d = leaders_part(c, says(p, v1), {}, false, [&] { return PMPI_Barrier(c.st->leaders); });
  if (!v1.ok()) return Outcome::of(v1);
  return last_part(c, d, p, [&] { return c.team().barrier(); });
}

Outcome nodes_allreduce(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  Team& team = c.team();
  const bool lead = leader(c);
  const void* in = send == kInPlace && !lead ? recv : send;
  Status v1 = join(team, part_plan(p, OpKind::reduce, p.count, 0),
                   [&] { return team.reduce(in, lead ? recv : nullptr, p.count, p.dtype, p.op, 0); });
  Decision d;
  if (lead) {
    const bool small = fits(c, p.bytes());
    const std::size_t len = small ? static_cast<std::size_t>(p.bytes()) : 0;
    d = leaders_part(c, says(p, v1), {Payload::Mode::combine, p.dtype, p.op, recv, 0, len, recv, len}, !small, [&] {
      return PMPI_Allreduce(MPI_IN_PLACE, recv, static_cast<int>(p.count), mpi_type_of(p.dtype), mpi_op_of(p.op),
                            c.st->leaders);
    });
  }
  if (v1.code() == Errc::unsupported) return tell_node(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  return last_part(c, d, part_plan(p, OpKind::bcast, p.count, 0),
                   [&] { return team.bcast(recv, p.count, p.dtype, 0); });
}

// reduce_scatter_block: every node reduces all blocks to its leader; the
// leaders reduce-scatter them in node order (each its node's blocks); each
// node scatters its blocks from the leader.
Outcome nodes_reduce_scatter_block(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  Team& team = c.team();
  const bool lead = leader(c);
  const std::int64_t b = p.bytes(), all = b * c.n;  // b: one rank's block
  const void* in = send == kInPlace ? recv : send;  // in place: the input is recv (all blocks)
  std::vector<unsigned char> partial(lead ? static_cast<std::size_t>(all) : 0), grouped(partial.size());
  std::vector<unsigned char> node(lead ? static_cast<std::size_t>(b * team.size()) : 0);
  Status v1 = join(team, part_plan(p, OpKind::reduce, p.count * c.n, 0),
                   [&] { return team.reduce(in, lead ? partial.data() : nullptr, p.count * c.n, p.dtype, p.op, 0); });
  Decision d;
  if (lead) {
    const Layout l = layout(*c.st, b);
    const auto lme = static_cast<std::size_t>(leaders_rank(c));
    if (v1.ok()) to_grouped(l, b, partial.data(), grouped.data());
    d = leaders_reduce_scatter(c, p, says(p, v1), l, lme, grouped, node);
  }
  if (v1.code() == Errc::unsupported) return tell_node(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  return last_part(c, d, part_plan(p, OpKind::scatter, b, 0),
                   [&] { return team.scatter(node.data(), recv, b, Datatype::uint8, 0); });
}

Outcome nodes_allgather(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  Team& team = c.team();
  const bool lead = leader(c);
  const std::int64_t b = p.bytes(), all = b * c.n;
  const bool small = fits(c, all);
  std::vector<unsigned char> node(lead ? static_cast<std::size_t>(b * team.size()) : 0);
  std::vector<unsigned char> grouped(lead ? static_cast<std::size_t>(all) : 0);
  Status v1 = join(team, part_plan(p, OpKind::gather, b, 0),
                   [&] { return team.gather(send, node.data(), b, Datatype::uint8, 0); });
  Decision d;
  if (lead) {
    const Layout l = layout(*c.st, b);
    const auto lme = static_cast<std::size_t>(leaders_rank(c));
    const Payload pl = placed(l, lme, node, grouped, small);
    d = leaders_part(c, says(p, v1), pl, !small, [&] {
      return PMPI_Allgatherv(node.data(), l.counts[lme], MPI_BYTE, grouped.data(), l.counts.data(), l.displs.data(),
                             MPI_BYTE, c.st->leaders);
    });
    if (d.route == Route::osmp) to_ranks(l, b, grouped.data(), static_cast<unsigned char*>(recv));
  }
  if (v1.code() == Errc::unsupported) return tell_node(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  return last_part(c, d, part_plan(p, OpKind::bcast, all, 0),
                   [&] { return team.bcast(recv, all, Datatype::uint8, 0); });
}

// allgatherv: every node gathers its ranks' blocks to its leader, each
// after an 8-byte digest of the counts its rank passed (the leader checks
// them against its own: ranks whose counts differ fail on every node); the
// leaders exchange the nodes' blocks (MPI_Allgatherv; strictly in the
// agreement when they fit, whose header carries the digest, so nodes whose
// counts differ fail too); each node gets every block from its leader, packed in
// the leaders' order, and every rank puts them at its displacements.
// `counts`, `displs`: bytes per comm rank (null where this rank's own
// arguments failed: it takes part without data).
Outcome nodes_allgatherv(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  const auto [counts, displs] = held(x, x.v().blocks, true);
  Team& team = c.team();
  const bool lead = leader(c), go = p.why == Errc::ok && counts;
  const std::int64_t digest = go ? counts_digest(counts, c.n) : 0;
  const Layout l = layout(*c.st, 0, go ? counts : nullptr);
  const std::size_t nodes = l.members.size(),
                    node_rank =
                        static_cast<std::size_t>(c.st->leader_rank_of_node[static_cast<std::size_t>(c.st->my_node)]);
  const std::vector<int>& mine = l.members[node_rank];
  const std::int64_t all = go ? l.displs[nodes - 1] + l.counts[nodes - 1] : 0;
  constexpr std::int64_t kDigest = sizeof(std::int64_t);
  // My digest and block, and (the leader) every node rank's, back to back.
  const std::int64_t own = go ? counts[c.me] : 0;
  std::vector<unsigned char> up(go ? static_cast<std::size_t>(kDigest + own) : 0);
  if (go) {
    std::memcpy(up.data(), &digest, kDigest);
    const void* from = send == kInPlace ? static_cast<const unsigned char*>(recv) + displs[c.me] : send;
    if (own) std::memcpy(up.data() + kDigest, from, static_cast<std::size_t>(own));
  }
  std::vector<std::int64_t> ncounts(mine.size()), ndispls(mine.size());
  std::int64_t at = 0;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    ncounts[i] = kDigest + (go ? counts[mine[i]] : 0);
    ndispls[i] = at;
    at += ncounts[i];
  }
  std::vector<unsigned char> gathered(lead ? static_cast<std::size_t>(at) : 0);
  Status v1 = join(team, part_plan(p, OpKind::gatherv, kDigest + own, 0), [&] {
    return team.gatherv(up.data(), kDigest + own, lead ? gathered.data() : nullptr, ncounts.data(), ndispls.data(),
                        Datatype::uint8, 0);
  });
  std::vector<unsigned char> grouped(go ? static_cast<std::size_t>(all) : 0);
  Decision d;
  Status node = v1;  // the leader: the node's verdict, then its ranks' digests against mine
  if (lead) {
    std::vector<unsigned char> blocks;
    if (node.ok()) {
      blocks.reserve(static_cast<std::size_t>(at - kDigest * static_cast<std::int64_t>(mine.size())));
      for (std::size_t i = 0; i < mine.size() && node.ok(); ++i) {
        std::int64_t theirs = 0;
        std::memcpy(&theirs, gathered.data() + ndispls[i], kDigest);
        if (theirs != digest) {
          node = Status(Errc::invalid_argument,
                        cat("rank ", mine[i], "'s counts differ from rank ", c.me, "'s (on one node)"));
          break;
        }
        const auto* b = gathered.data() + ndispls[i] + kDigest;
        blocks.insert(blocks.end(), b, b + (ncounts[i] - kDigest));
      }
    }
    const auto lme = static_cast<std::size_t>(leaders_rank(c));
    // A node that failed still takes part lazily (leaders_part), with as many bytes as it says.
    if (!node.ok() && !c.st->leaders_agree) blocks.assign(static_cast<std::size_t>(l.counts[lme]), 0);
    const bool small = fits(c, all);
    const Payload pl = placed(l, lme, blocks, grouped, small);
    d = leaders_part(c, says(part_plan(p, OpKind::allgatherv, digest, -1), node), pl, !small, [&] {
      return PMPI_Allgatherv(blocks.data(), l.counts[lme], MPI_BYTE, grouped.data(), l.counts.data(), l.displs.data(),
                             MPI_BYTE, c.st->leaders);
    });
  }
  if (v1.code() == Errc::unsupported) return tell_node(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  Outcome o = last_part(c, d, part_plan(p, OpKind::bcast, all, 0),
                        [&] { return team.bcast(grouped.data(), all, Datatype::uint8, 0); });
  if (!node.ok()) return Outcome::of(node);  // the leader that found the counts differ says which
  if (o.route != Outcome::Route::osmp || !go) return o;
  const unsigned char* from = grouped.data();
  for (const auto& m : l.members)
    for (int r : m) {
      if (counts[r])
        std::memcpy(static_cast<unsigned char*>(recv) + displs[r], from, static_cast<std::size_t>(counts[r]));
      from += counts[r];
    }
  return o;
}

// bcast: the root's node first (bcast from the root), then the leaders,
// then the other nodes (bcast from their leader).
Outcome nodes_bcast(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  void* buf = x.recv;
  Team& team = c.team();
  const RootAt at = root_at(c, p.root);
  const std::int64_t b = p.bytes();
  const bool small = fits(c, b);
  const auto len = static_cast<std::size_t>(small ? b : 0);
  auto move = [&] { return PMPI_Bcast(buf, static_cast<int>(b), MPI_BYTE, at.lroot, c.st->leaders); };
  Decision d;
  if (at.mine) {
    Status v1 = join(team, part_plan(p, OpKind::bcast, b, at.local),
                     [&] { return team.bcast(buf, b, Datatype::uint8, at.local); });
    if (leader(c))
      d = leaders_part(c, says(p, v1), {Payload::Mode::place, Datatype::uint8, Op::sum, buf, 0, len}, !small, move);
    if (v1.code() == Errc::unsupported) return tell_node(c, d);
    if (!v1.ok()) return Outcome::of(v1);
    return leader(c) ? outcome_of(d) : Outcome{};
  }
  if (leader(c))
    d = leaders_part(c, says(p, own(p)), {Payload::Mode::place, Datatype::uint8, Op::sum, nullptr, 0, 0, buf, len},
                     !small, move);
  if (p.refuses()) return tell_node(c, d);
  return last_part(c, d, part_plan(p, OpKind::bcast, b, 0), [&] { return team.bcast(buf, b, Datatype::uint8, 0); });
}

// scatter: the root's node first (its blocks scattered from the root, the
// rest handed to the leader), then the leaders, then the other nodes.
Outcome nodes_scatter(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  Team& team = c.team();
  const RootAt at = root_at(c, p.root);
  const std::int64_t b = p.bytes(), all = b * c.n;
  const bool small = fits(c, all);
  const Layout l = layout(*c.st, b);
  const bool lead = leader(c);
  const int lme = lead ? leaders_rank(c) : -1;
  std::vector<unsigned char> grouped((lead && at.mine) || at.me ? static_cast<std::size_t>(all) : 0);
  std::vector<unsigned char> node(lead ? static_cast<std::size_t>(b * team.size()) : 0);
  std::vector<unsigned char> out(small ? static_cast<std::size_t>(all) : 0);
  Status v1;
  if (at.mine) {
    if (at.me && p.why == Errc::ok) to_grouped(l, b, static_cast<const unsigned char*>(send), grouped.data());
    const unsigned char* mine = at.me ? grouped.data() + l.displs[static_cast<std::size_t>(at.lroot)] : nullptr;
    v1 = join(team, part_plan(p, OpKind::scatter, b, at.local),
              [&] { return team.scatter(mine, recv, b, Datatype::uint8, at.local); });
    if (v1.ok() && at.me && !lead) hand(c, grouped.data(), all, 0);
    if (v1.ok() && lead && !at.me) take(c, grouped.data(), all, at.local);
  }
  Decision d;
  if (lead) {
    Payload pl{Payload::Mode::place, Datatype::uint8, Op::sum, grouped.data(), 0, small && at.mine ? grouped.size() : 0,
               out.data(),           out.size()};
    d = leaders_part(c, says(p, at.mine ? v1 : own(p)), pl, !small, [&] {
      return PMPI_Scatterv(grouped.data(), l.counts.data(), l.displs.data(), MPI_BYTE, node.data(),
                           l.counts[static_cast<std::size_t>(lme)], MPI_BYTE, at.lroot, c.st->leaders);
    });
    if (small && d.route == Route::osmp && !node.empty())
      std::memcpy(node.data(), out.data() + l.displs[static_cast<std::size_t>(lme)], node.size());
  }
  if (at.mine ? v1.code() == Errc::unsupported : p.refuses()) return tell_node(c, d);
  if (at.mine) return !v1.ok() ? Outcome::of(v1) : lead ? outcome_of(d) : Outcome{};
  return last_part(c, d, part_plan(p, OpKind::scatter, b, 0),
                   [&] { return team.scatter(node.data(), recv, b, Datatype::uint8, 0); });
}

// reduce: every node reduces to its leader (the root's node to the root,
// which hands the sum to its leader), the leaders reduce to the root's
// leader, which hands the result to the root.
Outcome nodes_reduce(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  Team& team = c.team();
  const RootAt at = root_at(c, p.root);
  const bool lead = leader(c);
  const int r1 = at.mine ? at.local : 0;
  const std::int64_t n = p.bytes();
  std::vector<unsigned char> partial(lead || at.me ? static_cast<std::size_t>(n) : 0);
  std::vector<unsigned char> total(lead && at.mine ? static_cast<std::size_t>(n) : 0);
  const void* in = send == kInPlace ? recv : send;  // only the root may, its data in recv
  Status v1 = join(team, part_plan(p, OpKind::reduce, p.count, r1), [&] {
    return team.reduce(in, team.rank() == r1 ? partial.data() : nullptr, p.count, p.dtype, p.op, r1);
  });
  if (v1.ok() && at.me && !lead) hand(c, partial.data(), n, 0);
  if (v1.ok() && lead && at.mine && !at.me) take(c, partial.data(), n, at.local);
  Decision d;
  if (lead) {
    const bool small = fits(c, n);
    const auto len = static_cast<std::size_t>(small ? n : 0);
    Payload pl{Payload::Mode::combine, p.dtype, p.op, partial.data(), 0, len, total.data(), at.mine ? len : 0};
    // Never in place: MPICH 4.0 crashes on an in-place reduce whose root
    // is not rank 0 (pmodels/mpich#6540).
    d = leaders_part(c, says(p, v1), pl, !small, [&] {
      return PMPI_Reduce(partial.data(), at.mine ? total.data() : nullptr, static_cast<int>(p.count),
                         mpi_type_of(p.dtype), mpi_op_of(p.op), at.lroot, c.st->leaders);
    });
  }
  if (v1.code() == Errc::unsupported) return tell_node(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  if (!at.mine) return lead ? outcome_of(d) : Outcome{};
  if (lead && at.me) {
    if (d.route == Route::osmp && n) std::memcpy(recv, total.data(), static_cast<std::size_t>(n));
    return outcome_of(d);
  }
  if (lead) send_decision(c, d, total.data(), n, at.local);
  if (!at.me) return lead ? outcome_of(d) : Outcome{};
  return outcome_of(recv_decision(c, 0, recv, n));
}

// gather: every node gathers to its leader (the root's node to the root,
// which hands the blocks to its leader), the leaders gather to the root's
// leader, which hands all blocks to the root.
Outcome nodes_gather(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  Team& team = c.team();
  const RootAt at = root_at(c, p.root);
  const bool lead = leader(c);
  const int r1 = at.mine ? at.local : 0;
  const std::int64_t b = p.bytes(), all = b * c.n, here = b * team.size();
  const bool small = fits(c, all);
  std::vector<unsigned char> node(lead || at.me ? static_cast<std::size_t>(here) : 0);
  Status v1 = join(team, part_plan(p, OpKind::gather, b, r1), [&] {
    return team.gather(send, team.rank() == r1 ? node.data() : nullptr, b, Datatype::uint8, r1);
  });
  if (v1.ok() && at.me && !lead) hand(c, node.data(), here, 0);
  if (v1.ok() && lead && at.mine && !at.me) take(c, node.data(), here, at.local);
  Decision d;
  std::vector<unsigned char> grouped(lead && at.mine ? static_cast<std::size_t>(all) : 0), by_rank(grouped.size());
  if (lead) {
    const Layout l = layout(*c.st, b);
    const auto lme = static_cast<std::size_t>(leaders_rank(c));
    const Payload pl = placed(l, lme, node, grouped, small);
    d = leaders_part(c, says(p, v1), pl, !small, [&] {
      return PMPI_Gatherv(node.data(), l.counts[lme], MPI_BYTE, grouped.data(), l.counts.data(), l.displs.data(),
                          MPI_BYTE, at.lroot, c.st->leaders);
    });
    if (at.mine && d.route == Route::osmp)
      to_ranks(l, b, grouped.data(), at.me ? static_cast<unsigned char*>(recv) : by_rank.data());
  }
  if (v1.code() == Errc::unsupported) return tell_node(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  if (!at.mine || (lead && at.me)) return lead ? outcome_of(d) : Outcome{};
  if (lead) send_decision(c, d, by_rank.data(), all, at.local);
  if (!at.me) return lead ? outcome_of(d) : Outcome{};
  return outcome_of(recv_decision(c, 0, recv, all));
}

// alltoall: every node gathers its ranks' send buffers to its leader; the
// leaders exchange them, each node's blocks for another node's ranks in one
// piece (MPI_Alltoallv); each leader sorts what came into its ranks'
// receive buffers, in source rank order, and scatters them.
Outcome nodes_alltoall(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  Team& team = c.team();
  const bool lead = leader(c);
  const std::int64_t b = p.bytes(), row = b * c.n;  // one block; one rank's buffer
  const auto here = static_cast<std::size_t>(lead ? row * team.size() : 0);
  const void* in = send == kInPlace ? recv : send;  // in place: gathered before the scatter overwrites it
  std::vector<unsigned char> node(here), out(here);
  Status v1 = join(team, part_plan(p, OpKind::gather, row, 0),
                   [&] { return team.gather(in, node.data(), row, Datatype::uint8, 0); });
  Decision d;
  if (lead) {
    const Layout l = layout(*c.st, b);
    const std::vector<int>& mine = l.members[static_cast<std::size_t>(leaders_rank(c))];
    const std::size_t nodes = l.members.size(), ub = static_cast<std::size_t>(b), urow = static_cast<std::size_t>(row);
    std::vector<int> sc(nodes), sd(nodes), rc(nodes), rd(nodes);
    std::vector<unsigned char> to(here), from(here);
    std::size_t so = 0, ro = 0;
    for (std::size_t k = 0; k < nodes; ++k) {
      // To node k: each of my ranks' blocks for k's ranks; from node k: each
      // of k's ranks' blocks for mine (both in node-local order).
      sd[k] = static_cast<int>(so);
      for (std::size_t s = 0; s < mine.size(); ++s)
        for (int dst : l.members[k]) {
          if (ub) std::memcpy(to.data() + so, node.data() + s * urow + static_cast<std::size_t>(dst) * ub, ub);
          so += ub;
        }
      sc[k] = static_cast<int>(so) - sd[k];
      rd[k] = static_cast<int>(ro);
      rc[k] = static_cast<int>(l.members[k].size() * mine.size() * ub);
      ro += static_cast<std::size_t>(rc[k]);
    }
    d = leaders_part(c, says(p, v1), {Payload::Mode::place, Datatype::uint8, Op::sum, nullptr, 0, 0, nullptr, 0}, true,
                     [&] {
                       return PMPI_Alltoallv(to.data(), sc.data(), sd.data(), MPI_BYTE, from.data(), rc.data(),
                                             rd.data(), MPI_BYTE, c.st->leaders);
                     });
    if (d.route == Route::osmp && ub) {
      for (std::size_t k = 0; k < nodes; ++k) {
        const unsigned char* at = from.data() + rd[k];
        for (int src : l.members[k])
          for (std::size_t t = 0; t < mine.size(); ++t, at += ub)
            std::memcpy(out.data() + t * urow + static_cast<std::size_t>(src) * ub, at, ub);
      }
    }
  }
  if (v1.code() == Errc::unsupported) return tell_node(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  return last_part(c, d, part_plan(p, OpKind::scatter, row, 0),
                   [&] { return team.scatter(out.data(), recv, row, Datatype::uint8, 0); });
}

// scan, exscan, where every node's ranks follow one another in comm (so
// rank order is the nodes' order, then each node's): every node scans its
// ranks on osmp; its last rank hands the node's total (scan: its result;
// exscan: its result and its own input) to the leader; the leaders exscan
// the totals in the leaders' order, which is the nodes' (small: each folds
// the totals before its own, which came in their agreement; else
// MPI_Exscan); every
// node but the first takes what the nodes before it make from its leader
// and puts it before its ranks' results (exscan: the node's first rank's
// result is that alone). The built-in ops osmp runs commute exactly, so the
// order of the two operands of the last combine changes no bit.
Outcome nodes_scan(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  Team& team = c.team();
  const bool lead = leader(c), last = team.rank() == team.size() - 1,
             ex = osmp::describe(p.kind).buffers.first_writes_nothing;
  const bool first_node = c.st->leader_rank_of_node[static_cast<std::size_t>(c.st->my_node)] == 0;
  const auto n = static_cast<std::size_t>(p.bytes());
  const bool go = p.why == Errc::ok;  // this rank's buffers are good
  std::vector<unsigned char> total(lead || last ? n : 0), before(lead || !first_node ? n : 0);
  // exscan: the last rank's own input, before an in-place call overwrites it.
  if (ex && last && go && n) std::memcpy(total.data(), send == kInPlace ? recv : send, n);
  Status v1 = join(team, part_plan(p, p.kind, p.count, -1), [&] {
    return ex ? team.exscan(send, recv, p.count, p.dtype, p.op) : team.scan(send, recv, p.count, p.dtype, p.op);
  });
  if (v1.ok() && last && n) {
    if (!ex)
      std::memcpy(total.data(), recv, n);
    else if (team.size() > 1)
      combine(total.data(), recv, static_cast<std::size_t>(p.count), p.dtype, p.op);
  }
  if (v1.ok() && last && !lead) hand(c, total.data(), static_cast<std::int64_t>(n), 0);
  if (v1.ok() && lead && !last) take(c, total.data(), static_cast<std::int64_t>(n), team.size() - 1);
  Decision d;
  if (lead) {
    // Every node's total in the agreement when they all fit it (each leader
    // then folds those of the nodes before it), else MPI_Exscan after it.
    const std::size_t nodes = c.st->leader_rank_of_node.size(), lme = static_cast<std::size_t>(leaders_rank(c));
    const bool small = fits(c, static_cast<std::int64_t>(n * nodes));
    std::vector<unsigned char> all(small ? n * nodes : 0);
    const Payload pl{Payload::Mode::place, Datatype::uint8, Op::sum,   total.data(), lme * n,
                     small ? n : 0,        all.data(),      all.size()};
    d = leaders_part(c, says(p, v1), pl, !small, [&] {
      return PMPI_Exscan(total.data(), before.data(), static_cast<int>(p.count), mpi_type_of(p.dtype), mpi_op_of(p.op),
                         c.st->leaders);
    });
    if (small && d.route == Route::osmp && lme > 0 && n) {
      std::memcpy(before.data(), all.data(), n);
      for (std::size_t k = 1; k < lme; ++k)
        combine(before.data(), all.data() + k * n, static_cast<std::size_t>(p.count), p.dtype, p.op);
    }
  }
  if (v1.code() == Errc::unsupported) return tell_node(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  // The first node's results are whole: nothing comes to it (its leader
  // still hears the others' verdicts, as the roots of gather do).
  if (first_node) return lead ? outcome_of(d) : Outcome{};
  Outcome o = last_part(c, d, part_plan(p, OpKind::bcast, p.count, 0),
                        [&] { return team.bcast(before.data(), p.count, p.dtype, 0); });
  if (o.route != Outcome::Route::osmp || !n) return o;
  if (ex && team.rank() == 0)
    std::memcpy(recv, before.data(), n);
  else
    combine(recv, before.data(), static_cast<std::size_t>(p.count), p.dtype, p.op);
  return o;
}

// gatherv: the root's node gathers straight into the root's buffer (its
// counts); every other node gathers its ranks' lengths, then their blocks,
// to its leader; the leaders agree, each node's bytes riding along (else
// MPI_Allgather of them), and the root's leader gathers every other node's
// lengths and blocks (MPI_Gatherv), which it hands to the root; the root
// checks each rank's length against its count before it puts any block at
// its displacement. As with gather, the other nodes return without
// hearing what the root found. `counts`, `displs`: the root's, in bytes.
Outcome nodes_gatherv(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  const auto [counts, displs] = held(x, x.v().blocks, c.me == p.root);
  Team& team = c.team();
  const RootAt at = root_at(c, p.root);
  const bool lead = leader(c), go = p.why == Errc::ok;
  const Layout l = layout(*c.st, 0);
  const std::size_t nodes = l.members.size(), root_node = static_cast<std::size_t>(at.lroot);
  const std::vector<int>& mine = l.members[node_rank(c)];
  std::vector<std::int64_t> nc, nd;
  std::vector<unsigned char> rows;  // a leader of another node: its ranks' lengths and blocks
  Status v1;
  if (at.mine) {
    if (at.me && go)
      for (int r : mine) {
        nc.push_back(counts[r]);
        nd.push_back(displs[r]);
      }
    v1 = join(team, part_plan(p, OpKind::gatherv, p.count, at.local), [&] {
      return team.gatherv(send, p.count, at.me ? recv : nullptr, nc.data(), nd.data(), Datatype::uint8, at.local);
    });
  } else {
    v1 = gather_rows(c, p, send, p.count, true, rows, nc, nd);
  }
  Decision d;
  std::vector<unsigned char> others;  // at the root's leader: the other nodes' rows, in the leaders' order
  if (lead) {
    const std::size_t lme = node_rank(c);
    const auto bytes = static_cast<std::int64_t>(rows.size());
    std::vector<std::int64_t> totals(nodes, 0);
    const bool small = fits_agreement(kLen * static_cast<std::int64_t>(nodes));
    const Payload pl{Payload::Mode::place, Datatype::uint8,  Op::sum,       &bytes,
                     lme * kLen,           small ? kLen : 0, totals.data(), small ? kLen * nodes : 0};
    d = agree(c.st->leaders, c.me, says(part_plan(p, OpKind::gatherv, 0, p.root), v1), pl);
    if (d.route == Route::osmp && !small) {
      int rc = on_leaders(
          [&] { return PMPI_Allgather(&bytes, 1, MPI_INT64_T, totals.data(), 1, MPI_INT64_T, c.st->leaders); });
      if (rc != MPI_SUCCESS) d = failure("the node leaders' MPI_Allgather", rc);
    }
    std::vector<int> ic, id;
    if (d.route == Route::osmp && !int_layout(totals, ic, id)) d = too_large(p);
    if (d.route == Route::osmp) {
      if (lme == root_node) others.resize(static_cast<std::size_t>(id.back() + ic.back()));
      int rc = on_leaders([&] {
        return PMPI_Gatherv(rows.data(), static_cast<int>(bytes), MPI_BYTE, others.data(), ic.data(), id.data(),
                            MPI_BYTE, at.lroot, c.st->leaders);
      });
      if (rc != MPI_SUCCESS) d = failure("the node leaders' MPI_Gatherv", rc);
    }
  }
  if (v1.code() == Errc::unsupported) return tell_agreed(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  if (!at.mine || (!at.me && !lead)) return lead ? outcome_of(d) : Outcome{};
  if (!at.me) {  // the root's leader
    send_decision(c, d, others.data(), static_cast<std::int64_t>(others.size()), at.local);
    return outcome_of(d);
  }
  if (!lead) d = recv_decision(c, 0, others);
  if (d.route != Route::osmp) return outcome_of(d);
  // The root: every length against my count for that rank, then the blocks.
  std::vector<std::int64_t> totals(nodes, 0), lens, from;
  if (!node_totals(l, root_node, others, totals))
    return Outcome::of(Status(Errc::internal, "gatherv across nodes: the node leaders' rows do not add up"));
  std::size_t base = 0;
  for (int pass = 0; pass < 2; ++pass, base = 0) {
    for (std::size_t k = 0; k < nodes; ++k) {
      if (k == root_node) continue;
      row_layout(others.data() + base, l.members[k].size(), lens, from);
      for (std::size_t i = 0; i < lens.size(); ++i) {
        const int r = l.members[k][i];
        if (pass == 0 && lens[i] != counts[r])
          return Outcome::of(Status(Errc::invalid_argument, cat("gatherv across nodes: rank ", r, " sends ", lens[i],
                                                                " bytes, the root's count for it is ", counts[r])));
        if (pass == 1 && lens[i])
          std::memcpy(static_cast<unsigned char*>(recv) + displs[r], others.data() + base + from[i],
                      static_cast<std::size_t>(lens[i]));
      }
      base += static_cast<std::size_t>(totals[k]);
    }
  }
  return {};
}

// scatterv: the root scatters its node's blocks (its counts) and puts every
// other node's ranks' lengths and blocks in rows, which it hands to its
// leader (unless it is the leader); the leaders agree, each node's bytes
// riding along from the root's leader (else MPI_Bcast of them), and the
// root's leader scatters the rows (MPI_Scatterv); each other node's leader
// scatters its ranks' blocks, each rank checking its own count against the
// length it gets (osmp's scatterv). As with scatter, the root's node returns
// without hearing what the others found. `counts`, `displs`: the root's, in
// bytes.
Outcome nodes_scatterv(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  const auto [counts, displs] = held(x, x.v().blocks, c.me == p.root);
  Team& team = c.team();
  const RootAt at = root_at(c, p.root);
  const bool lead = leader(c), go = p.why == Errc::ok;
  const Layout l = layout(*c.st, 0);
  const std::size_t nodes = l.members.size(), root_node = static_cast<std::size_t>(at.lroot);
  std::vector<unsigned char> others;  // the root, then its leader: the other nodes' rows, in the leaders' order
  Status v1;
  if (at.mine) {
    std::vector<std::int64_t> nc, nd;
    if (at.me && go) {
      for (std::size_t k = 0; k < nodes; ++k) {
        if (k == root_node) continue;
        for (int r : l.members[k]) {
          const auto* len = reinterpret_cast<const unsigned char*>(&counts[r]);
          others.insert(others.end(), len, len + kLen);
        }
        for (int r : l.members[k]) {
          const auto* b = static_cast<const unsigned char*>(send) + displs[r];
          others.insert(others.end(), b, b + counts[r]);
        }
      }
      for (int r : l.members[root_node]) {
        nc.push_back(counts[r]);
        nd.push_back(displs[r]);
      }
    }
    v1 = join(team, part_plan(p, OpKind::scatterv, p.count, at.local), [&] {
      return team.scatterv(at.me ? send : nullptr, nc.data(), nd.data(), recv, p.count, Datatype::uint8, at.local);
    });
    // The rows go to the leader in one message (an int count): more is the
    // error the leaders would find (too_large), which the leader then says.
    if (v1.ok() && at.me && !lead) {
      const bool fit = others.size() <= INT_MAX;
      send_decision(c, fit ? Decision{} : too_large(p), others.data(), static_cast<std::int64_t>(others.size()), 0);
      if (!fit) return outcome_of(too_large(p));
    }
    if (v1.ok() && lead && !at.me) {
      const Decision got = recv_decision(c, at.local, others);
      if (got.route != Route::osmp) v1 = Status(got.error, got.message);
    }
  }
  Decision d;
  std::vector<unsigned char> rows;  // a leader of another node: its ranks' lengths and blocks
  if (lead) {
    const std::size_t lme = node_rank(c);
    std::vector<std::int64_t> totals(nodes, 0);
    const bool has = at.mine && v1.ok();  // the root's leader, with the rows
    if (has && !node_totals(l, root_node, others, totals)) v1 = Status(Errc::internal, "scatterv rows do not add up");
    const bool small = fits_agreement(kLen * static_cast<std::int64_t>(nodes));
    const std::size_t all = kLen * nodes;
    const Payload pl{Payload::Mode::place,   Datatype::uint8, Op::sum,        totals.data(), 0,
                     small && has ? all : 0, totals.data(),   small ? all : 0};
    d = agree(c.st->leaders, c.me, says(part_plan(p, OpKind::scatterv, 0, p.root), at.mine ? v1 : own(p)), pl);
    if (d.route == Route::osmp && !small) {
      int rc = on_leaders(
          [&] { return PMPI_Bcast(totals.data(), static_cast<int>(nodes), MPI_INT64_T, at.lroot, c.st->leaders); });
      if (rc != MPI_SUCCESS) d = failure("the node leaders' MPI_Bcast", rc);
    }
    std::vector<int> ic, id;
    if (d.route == Route::osmp && !int_layout(totals, ic, id)) d = too_large(p);
    if (d.route == Route::osmp) {
      rows.resize(static_cast<std::size_t>(totals[lme]));
      int rc = on_leaders([&] {
        return PMPI_Scatterv(others.data(), ic.data(), id.data(), MPI_BYTE, rows.data(), ic[lme], MPI_BYTE, at.lroot,
                             c.st->leaders);
      });
      if (rc != MPI_SUCCESS) d = failure("the node leaders' MPI_Scatterv", rc);
    }
  }
  if (at.mine ? v1.code() == Errc::unsupported : p.refuses()) return tell_agreed(c, d);
  if (at.mine) return !v1.ok() ? Outcome::of(v1) : lead ? outcome_of(d) : Outcome{};
  std::vector<std::int64_t> nc, nd;
  if (lead && d.route == Route::osmp) row_layout(rows.data(), static_cast<std::size_t>(team.size()), nc, nd);
  return last_part(c, d, part_plan(p, OpKind::scatterv, p.count, 0),
                   [&] { return team.scatterv(rows.data(), nc.data(), nd.data(), recv, p.count, Datatype::uint8, 0); });
}

// reduce_scatter (per-rank counts, the same everywhere): every node reduces
// the whole input to its leader; the leaders (strictly with a digest of
// the counts in their headers: nodes whose counts differ fail)
// reduce-scatter it by node (each node's ranks' shares, in the leaders'
// order: MPI_Reduce_scatter; strictly in the agreement when it fits); each leader scatters its node's shares,
// every rank checking its own count against its leader's. `counts`:
// elements of p.dtype per comm rank (null where this rank's arguments failed).
Outcome nodes_reduce_scatter(const Call& c, const Prepared& x) {
  const Plan& p = x.p;
  const void* send = x.send;
  void* recv = x.recv;
  const std::int64_t* counts = p.why == Errc::ok ? x.v().counts.data() : nullptr;
  Team& team = c.team();
  const bool lead = leader(c), go = p.why == Errc::ok && counts;
  const auto es = static_cast<std::int64_t>(size_of(p.dtype));
  std::vector<std::int64_t> bytes(static_cast<std::size_t>(c.n), 0);
  std::int64_t total = 0;  // elements
  for (int r = 0; go && r < c.n; ++r) {
    bytes[static_cast<std::size_t>(r)] = counts[r] * es;
    total += counts[r];
  }
  // Masked: the header's bytes are the digest times the element's size.
  const std::int64_t digest = go ? counts_digest(counts, c.n) & ((std::int64_t{1} << 40) - 1) : 0;
  const Layout l = layout(*c.st, 0, bytes.data());
  const std::size_t lme = node_rank(c);
  const std::vector<int>& mine = l.members[lme];
  const auto all = static_cast<std::size_t>(total * es);
  std::vector<unsigned char> partial(lead ? all : 0), grouped(partial.size());
  std::vector<unsigned char> node(lead ? static_cast<std::size_t>(l.counts[lme]) : 0);
  const void* in = send == kInPlace ? recv : send;  // in place: the input is recv (every share)
  // Every rank's digest to the leader first: counts that differ within a
  // node (even with the same total) fail there, as the leaders' digests do
  // across nodes.
  std::vector<std::int64_t> digests(lead ? mine.size() : 0);
  Status v1 = join(team, part_plan(p, OpKind::gather, kLen, 0),
                   [&] { return team.gather(&digest, digests.data(), kLen, Datatype::uint8, 0); });
  if (v1.ok())
    v1 = join(team, part_plan(p, OpKind::reduce, total, 0),
              [&] { return team.reduce(in, lead ? partial.data() : nullptr, total, p.dtype, p.op, 0); });
  Status node_ok = v1;  // the leader: the node's verdict, then its ranks' digests against mine
  for (std::size_t i = 0; lead && node_ok.ok() && i < digests.size(); ++i)
    if (digests[i] != digest)
      node_ok = Status(Errc::invalid_argument,
                       cat("reduce_scatter: rank ", mine[i], "'s counts differ from rank ", c.me, "'s (on one node)"));
  Decision d;
  if (lead) {
    if (v1.ok()) {  // the shares from rank order into the leaders' order
      std::vector<std::int64_t> from(static_cast<std::size_t>(c.n), 0);
      for (int r = 1; r < c.n; ++r)
        from[static_cast<std::size_t>(r)] =
            from[static_cast<std::size_t>(r - 1)] + bytes[static_cast<std::size_t>(r - 1)];
      std::size_t at = 0;
      for (const auto& m : l.members)
        for (int r : m) {
          const auto b = static_cast<std::size_t>(bytes[static_cast<std::size_t>(r)]);
          if (b) std::memcpy(grouped.data() + at, partial.data() + from[static_cast<std::size_t>(r)], b);
          at += b;
        }
    }
    d = leaders_reduce_scatter(c, p, says(part_plan(p, OpKind::reduce_scatter, digest, -1), node_ok), l, lme, grouped,
                               node);
  }
  if (v1.code() == Errc::unsupported) return tell_node(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  std::vector<std::int64_t> nc, nd;
  std::int64_t at = 0;
  if (lead && go)
    for (int r : mine) {
      nc.push_back(counts[r]);
      nd.push_back(at);
      at += counts[r];
    }
  Outcome o = last_part(c, d, part_plan(p, OpKind::scatterv, p.count, 0),
                        [&] { return team.scatterv(node.data(), nc.data(), nd.data(), recv, p.count, p.dtype, 0); });
  return node_ok.ok() ? o : Outcome::of(node_ok);  // the leader that found the counts differ says which
}

// alltoallv: every rank's row (its send counts, then its blocks in
// destination order) goes to its leader (a node gather of the rows'
// lengths, then a node gatherv); for every pair of nodes the leaders
// exchange what one node's ranks send the other's, lengths then blocks
// (every pair's bytes in the agreement when they fit, else MPI_Allgather of
// them; the blocks with MPI_Alltoallv); each leader scatters to each of its
// ranks what every source sends it, lengths then blocks in source rank
// order, whose whole length the rank checks against its receive counts (on
// osmp) and each length against its count before it places any block.
// `sc`, `sd`, `rc`, `rd`: bytes per comm rank (null where this rank's own
// arguments failed); send kInPlace: the blocks to send are in recv (rc, rd).
Outcome nodes_alltoallv(const Call& c, const Prepared& prepared) {
  const Plan& p = prepared.p;
  const void* send = prepared.send;
  void* recv = prepared.recv;
  const auto [sc, sd] = held(prepared, prepared.v().send_blocks, send != kInPlace);
  const auto [rc, rd] = held(prepared, prepared.v().blocks, true);
  Team& team = c.team();
  const bool lead = leader(c), go = p.why == Errc::ok && rc;
  const auto un = static_cast<std::size_t>(c.n);
  const Layout l = layout(*c.st, 0);
  const std::size_t nodes = l.members.size(), lme = node_rank(c);
  const std::vector<int>& mine = l.members[lme];
  std::vector<unsigned char> row;  // mine: my send counts, then my blocks by destination
  if (go) {
    const bool in_place = send == kInPlace;
    const std::int64_t* cnt = in_place ? rc : sc;
    const std::int64_t* dsp = in_place ? rd : sd;
    const auto* base = static_cast<const unsigned char*>(in_place ? recv : send);
    row.resize(kLen * un);
    std::memcpy(row.data(), cnt, row.size());
    for (std::size_t q = 0; q < un; ++q) row.insert(row.end(), base + dsp[q], base + dsp[q] + cnt[q]);
  }
  std::vector<unsigned char> rows;  // the leader: its ranks' rows, back to back
  std::vector<std::int64_t> lens, at;
  Status v1 = gather_rows(c, p, row.data(), static_cast<std::int64_t>(row.size()), false, rows, lens, at);
  Decision d;
  std::vector<unsigned char> out;  // the leader: each of its ranks' incoming row, back to back
  std::vector<std::int64_t> out_len(lead ? mine.size() : 0), out_at(out_len.size());
  if (lead) {
    // Where each of my ranks' blocks for each destination is in `rows`.
    std::vector<std::int64_t> off(v1.ok() ? mine.size() * un : 0), len(off.size());
    for (std::size_t i = 0; i < mine.size() && v1.ok(); ++i) {
      const unsigned char* r = rows.data() + at[i];
      std::memcpy(len.data() + i * un, r, kLen * un);
      std::int64_t o = at[i] + static_cast<std::int64_t>(kLen * un);
      for (std::size_t q = 0; q < un; ++q) {
        off[i * un + q] = o;
        o += len[i * un + q];
      }
    }
    // To node k: for my ranks s, its ranks t, the length s sends t; then the blocks in that order.
    std::vector<unsigned char> to;
    std::vector<std::int64_t> size_to(nodes, 0);
    for (std::size_t k = 0; k < nodes && v1.ok(); ++k) {
      const std::size_t start = to.size();
      for (std::size_t i = 0; i < mine.size(); ++i)
        for (int t : l.members[k]) {
          const auto* b = reinterpret_cast<const unsigned char*>(&len[i * un + static_cast<std::size_t>(t)]);
          to.insert(to.end(), b, b + kLen);
        }
      for (std::size_t i = 0; i < mine.size(); ++i)
        for (int t : l.members[k]) {
          const std::size_t j = i * un + static_cast<std::size_t>(t);
          to.insert(to.end(), rows.data() + off[j], rows.data() + off[j] + len[j]);
        }
      size_to[k] = static_cast<std::int64_t>(to.size() - start);
    }
    // Every pair's bytes: [from node][to node].
    std::vector<std::int64_t> sizes(nodes * nodes, 0);
    const bool small = fits_agreement(static_cast<std::int64_t>(kLen * nodes * nodes));
    const Payload pl{Payload::Mode::place, Datatype::uint8,          Op::sum,      size_to.data(),
                     lme * nodes * kLen,   small ? kLen * nodes : 0, sizes.data(), small ? kLen * nodes * nodes : 0};
    d = agree(c.st->leaders, c.me, says(part_plan(p, OpKind::alltoallv, 0, -1), v1), pl);
    if (d.route == Route::osmp && !small) {
      int e = on_leaders([&] {
        return PMPI_Allgather(size_to.data(), static_cast<int>(nodes), MPI_INT64_T, sizes.data(),
                              static_cast<int>(nodes), MPI_INT64_T, c.st->leaders);
      });
      if (e != MPI_SUCCESS) d = failure("the node leaders' MPI_Allgather", e);
    }
    // Every leader's sends and receives within ints (all decide alike: all know every pair).
    std::vector<int> ic, id, jc, jd;
    bool fit = true;
    for (std::size_t k = 0; k < nodes && d.route == Route::osmp && fit; ++k) {
      std::vector<std::int64_t> row_k(sizes.begin() + static_cast<std::ptrdiff_t>(k * nodes),
                                      sizes.begin() + static_cast<std::ptrdiff_t>((k + 1) * nodes)),
          col_k(nodes);
      for (std::size_t j = 0; j < nodes; ++j) col_k[j] = sizes[j * nodes + k];
      std::vector<int> a, b, e, f;
      fit = int_layout(row_k, a, b) && int_layout(col_k, e, f);
      if (k == lme) {
        ic = std::move(a);
        id = std::move(b);
        jc = std::move(e);
        jd = std::move(f);
      }
    }
    if (d.route == Route::osmp && !fit) d = too_large(p);
    std::vector<unsigned char> from;
    if (d.route == Route::osmp) {
      from.resize(static_cast<std::size_t>(jd.back() + jc.back()));
      int e = on_leaders([&] {
        return PMPI_Alltoallv(to.data(), ic.data(), id.data(), MPI_BYTE, from.data(), jc.data(), jd.data(), MPI_BYTE,
                              c.st->leaders);
      });
      if (e != MPI_SUCCESS) d = failure("the node leaders' MPI_Alltoallv", e);
    }
    if (d.route == Route::osmp) {
      // What each source q sends my rank j: its length and where its block is in `from`.
      std::vector<std::int64_t> got(mine.size() * un, 0), where(got.size(), 0);
      for (std::size_t k = 0; k < nodes; ++k) {
        const std::size_t ns = l.members[k].size();
        const unsigned char* head = from.data() + jd[k];
        std::int64_t o = jd[k] + static_cast<std::int64_t>(kLen * ns * mine.size());
        for (std::size_t s = 0; s < ns; ++s)
          for (std::size_t j = 0; j < mine.size(); ++j) {
            const std::size_t x = j * un + static_cast<std::size_t>(l.members[k][s]);
            std::memcpy(&got[x], head + (s * mine.size() + j) * kLen, kLen);
            where[x] = o;
            o += got[x];
          }
      }
      std::int64_t next = 0;
      for (std::size_t j = 0; j < mine.size(); ++j) {
        out_at[j] = next;
        out_len[j] = static_cast<std::int64_t>(kLen * un);
        for (std::size_t q = 0; q < un; ++q) out_len[j] += got[j * un + q];
        next += out_len[j];
      }
      out.resize(static_cast<std::size_t>(next));
      for (std::size_t j = 0; j < mine.size(); ++j) {
        unsigned char* o = out.data() + out_at[j];
        std::memcpy(o, got.data() + j * un, kLen * un);
        o += kLen * un;
        for (std::size_t q = 0; q < un; ++q) {
          const auto g = static_cast<std::size_t>(got[j * un + q]);
          if (g) std::memcpy(o, from.data() + where[j * un + q], g);
          o += g;
        }
      }
    }
  }
  if (v1.code() == Errc::unsupported) return tell_agreed(c, d);
  if (!v1.ok()) return Outcome::of(v1);
  std::int64_t expect = go ? static_cast<std::int64_t>(kLen * un) : 0;
  for (std::size_t q = 0; go && q < un; ++q) expect += rc[q];
  std::vector<unsigned char> in(static_cast<std::size_t>(expect));
  Outcome o = last_part(c, d, part_plan(p, OpKind::scatterv, expect, 0), [&] {
    return team.scatterv(out.data(), out_len.data(), out_at.data(), in.data(), expect, Datatype::uint8, 0);
  });
  if (o.route != Outcome::Route::osmp || !go) return o;
  std::vector<std::int64_t> from_len(un);
  std::memcpy(from_len.data(), in.data(), kLen * un);
  for (std::size_t q = 0; q < un; ++q)
    if (from_len[q] != rc[q])
      return Outcome::of(Status(Errc::invalid_argument,
                                cat("alltoallv across nodes: rank ", q, " sends ", from_len[q], " bytes to rank ", c.me,
                                    ", whose receive count for it is ", rc[q], " bytes")));
  const unsigned char* b = in.data() + kLen * un;
  for (std::size_t q = 0; q < un; ++q) {
    if (rc[q]) std::memcpy(static_cast<unsigned char*>(recv) + rd[q], b, static_cast<std::size_t>(rc[q]));
    b += rc[q];
  }
  return o;
}

// Each operation's flow above; an operation without one (the primary: an
// operation added without a flow here) is the MPI's own collective across
// nodes, on every rank alike (logic.cpp).
template <OpKind K>
constexpr Flow kFlow = nullptr;
template <>
constexpr Flow kFlow<OpKind::barrier> = nodes_barrier;
template <>
constexpr Flow kFlow<OpKind::bcast> = nodes_bcast;
template <>
constexpr Flow kFlow<OpKind::reduce> = nodes_reduce;
template <>
constexpr Flow kFlow<OpKind::allreduce> = nodes_allreduce;
template <>
constexpr Flow kFlow<OpKind::gather> = nodes_gather;
template <>
constexpr Flow kFlow<OpKind::allgather> = nodes_allgather;
template <>
constexpr Flow kFlow<OpKind::scatter> = nodes_scatter;
template <>
constexpr Flow kFlow<OpKind::reduce_scatter_block> = nodes_reduce_scatter_block;
template <>
constexpr Flow kFlow<OpKind::alltoall> = nodes_alltoall;
template <>
constexpr Flow kFlow<OpKind::scan> = nodes_scan;  // exscan's too (describe: first_writes_nothing)
template <>
constexpr Flow kFlow<OpKind::exscan> = nodes_scan;
template <>
constexpr Flow kFlow<OpKind::gatherv> = nodes_gatherv;
template <>
constexpr Flow kFlow<OpKind::allgatherv> = nodes_allgatherv;
template <>
constexpr Flow kFlow<OpKind::scatterv> = nodes_scatterv;
template <>
constexpr Flow kFlow<OpKind::alltoallv> = nodes_alltoallv;
template <>
constexpr Flow kFlow<OpKind::reduce_scatter> = nodes_reduce_scatter;

}  // namespace

Flow flow_across_nodes(OpKind k) {
#define OSMP_PMPI_FLOW_(name, Name, NAME, key, rooted, reduces, form) kFlow<OpKind::name>,
  static constexpr Flow kFlows[] = {OSMP_COLLECTIVES(OSMP_PMPI_FLOW_)};
#undef OSMP_PMPI_FLOW_
  const int i = op_index(k);
  return i < 0 ? nullptr : kFlows[i];
}

}  // namespace osmp::pmpi
