// The flat paths, for gathers, scatters and alltoall too large for the
// tree's areas: each rank's outbox (two buffers) in the team's control
// segment, which every rank maps, and its arrive/done flags. Data goes
// through once per hop; the root's memory bandwidth bounds gather and
// scatter anyway. Where the plan says so (carried_by_cma), gather(v), allgather(v),
// scatter(v) and alltoall copy once between the ranks' own buffers instead
// (ops/cma.cpp).
//
// Outbox reuse: a writer fills buffer s % 2 only after its readers published
// done >= s - 2. Across operations the first step (a full round trip through
// the tree, or a symmetric top where every member acquires every other's
// line of the new call) already guarantees that every reader finished the
// last one.
#include <cstring>
#include <vector>

#include "collectives/kernels.hpp"
#include "collectives/ops/common.hpp"
#include "collectives/ops/pairs.hpp"
#include "collectives/task.hpp"
#include "shm/copy.hpp"

namespace osmp {
namespace {

struct Flat {
  Engine& e;
  TeamCore& t;
  std::uint64_t first = 0;
  explicit Flat(Engine& eng) : e(eng), t(eng.team()) {}

  std::size_t chunk() const { return t.outbox_bytes(); }
  int parity(std::uint64_t s) const { return static_cast<int>(s % kBuffers); }
  bool sleepy() { return t.waiter().may_sleep(); }
  FlagAwait arrived(int q, std::uint64_t s) { return until(e, t.rank_line(q).arrive, s, q); }

  // Waits until `readers` are done with what `s` - 2 left in the outboxes.
  Task reusable(std::uint64_t s, int only = -1) {
    if (s < first + 2) co_return Status{};
    for (int q = 0; q < t.size(); ++q) {
      if (q == t.rank() || (only >= 0 && q != only)) continue;
      OSMP_CO_RETURN_IF_ERROR(co_await until(e, t.rank_line(q).done, s - 2, q));
    }
    co_return Status{};
  }
};

}  // namespace

Task flat_gather(Engine& e, bool by_cma, const std::byte* send, std::size_t mine, std::byte* recv, Blocks blocks,
                 std::size_t most, int root) {
  if (by_cma) co_return co_await cma_gather(e, send, mine, recv, blocks, root);
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t chunks = ceil_div(most, f.chunk());
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) f.first = s;
    const std::size_t off = c * f.chunk();
    if (me != root) {
      OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s, root));
      if (off < mine) copy_to_shared(f.t.outbox(me, f.parity(s)), send + off, std::min(f.chunk(), mine - off));
      publish(f.t.rank_line(me).arrive, s, f.sleepy());  // after the data
      continue;
    }
    for (int q = 0; q < n; ++q) {
      const std::size_t have = blocks.len(q);
      if (off >= have) continue;  // a block shorter than the longest: it has no piece this step
      const std::size_t len = std::min(f.chunk(), have - off);
      std::byte* dst = recv + blocks.at(q) + off;
      if (q == me) {
        if (send + off != dst) std::memmove(dst, send + off, len);
        continue;
      }
      OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s));
      std::memcpy(dst, f.t.outbox(q, f.parity(s)), len);
    }
    publish(f.t.rank_line(me).done, s, f.sleepy());  // release: after my copies; pairs with reusable()
  }
  co_return Status{};
}

Task flat_allgather(Engine& e, bool by_cma, const std::byte* send, std::byte* recv, Blocks blocks, std::size_t most) {
  if (by_cma) co_return co_await cma_allgather(e, send, recv, blocks);
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t mine = blocks.len(me);
  const std::size_t chunks = ceil_div(most, f.chunk());
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) f.first = s;
    const std::size_t off = c * f.chunk();
    OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s));
    if (off < mine) copy_to_shared(f.t.outbox(me, f.parity(s)), send + off, std::min(f.chunk(), mine - off));
    publish(f.t.rank_line(me).arrive, s, f.sleepy());  // release: after my piece; pairs with the readers' arrived()
    for (int i = 1; i <= n; ++i) {
      int q = (me + i) % n;  // start with the next rank: spreads the readers
      const std::size_t have = blocks.len(q);
      if (off >= have) continue;
      const std::size_t len = std::min(f.chunk(), have - off);
      std::byte* dst = recv + blocks.at(q) + off;
      if (q == me) {
        if (send + off != dst) std::memmove(dst, send + off, len);
        continue;
      }
      OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s));
      std::memcpy(dst, f.t.outbox(q, f.parity(s)), len);
    }
    publish(f.t.rank_line(me).done, s, f.sleepy());  // release: after my reads; pairs with reusable()
  }
  co_return Status{};
}

Task flat_scatter(Engine& e, bool by_cma, const std::byte* send, Blocks blocks, std::byte* recv, std::size_t mine,
                  std::size_t most, int root) {
  if (by_cma) co_return co_await cma_scatter(e, send, blocks, recv, mine, root);
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t chunks = ceil_div(most, f.chunk());
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) f.first = s;
    const std::size_t off = c * f.chunk();
    if (me == root) {
      OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s));
      for (int q = 0; q < n; ++q) {  // the root fills every rank's inbox (their outbox slot)
        const std::size_t have = blocks.len(q);
        if (off >= have) continue;
        const std::size_t len = std::min(f.chunk(), have - off);
        const std::byte* src = send + blocks.at(q) + off;
        if (q == me) {
          if (recv) std::memmove(recv + off, src, len);
        } else {
          copy_to_shared(f.t.outbox(q, f.parity(s)), src, len);
        }
      }
      publish(f.t.rank_line(me).arrive, s, f.sleepy());  // release: after the inboxes; pairs with arrived()
      continue;
    }
    OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(root, s));
    if (off < mine) std::memcpy(recv + off, f.t.outbox(me, f.parity(s)), std::min(f.chunk(), mine - off));
    publish(f.t.rank_line(me).done, s, f.sleepy());  // release: after my read; pairs with reusable()
  }
  co_return Status{};
}

namespace {

// Gatherv's and scatterv's first step: up, every rank's row (its block's
// length; at the root also the digest of its counts), concatenated as a
// gather's blocks; at the top (the local root, or every member of a
// symmetric top) the longest block and whether the lengths, in rank order,
// have the root's digest; down, those two, the same to every rank. Where
// every rank is a unit of a symmetric top the rows also carry data
// (lengths_data_bytes): gatherv's each rank's block's first bytes, which
// the root takes; scatterv's root's every rank's, which each rank takes.
// When every block fits, the call is done with the step. The rows have a
// fixed length (kLengthsDataBytes of data, in the lines) or, packed
// (Plan::lengths_packed), each its own: the row, then gatherv's block's
// first bytes, scatterv's root's every rank's first bytes back to back
// (rank q's after those of ranks 0 .. q - 1, whose lengths every rank
// reads in their rows), each row in its rank's slot, read there (sym_down).
struct LengthsRow {
  std::uint64_t len = 0;
  std::int64_t digest = 0;  // the root's counts' (CountsDigest); 0 elsewhere
};
static_assert(sizeof(LengthsRow) == kLengthsRowBytes);

class LengthsPayload : public GatherPayload {
 public:
  // `send`, `recv`: gatherv's own block and the root's buffer with every
  // block; scatterv's root's buffer with every block and the own block
  // (null where the rank has none, or in place at the root).
  LengthsPayload(Engine& e, const CollArgs& a, const Plan& plan, std::size_t mine, const Blocks& blocks,
                 const std::byte* send, std::byte* recv)
      : GatherPayload(kLengthsRowBytes),
        e_(e),
        root_(a.root),
        me_(e.team().rank()),
        n_(e.team().size()),
        gathers_(a.kind == OpKind::gatherv),
        packed_(plan.lengths_packed),
        cap_(lengths_data_bytes(plan)),
        mine_(mine),
        blocks_(blocks),
        recv_(recv) {
    // Fixed rows carry data only for gatherv (scatterv's root's row would
    // not fit the line: its data goes only in packed rows).
    if (gathers_ && !packed_) block_ += cap_;
    std::size_t data = 0;  // packed: my row's data bytes
    if (packed_ && send && gathers_) data = std::min(mine, cap_);
    if (packed_ && send && !gathers_ && me_ == root_)
      for (int q = 0; q < n_; ++q) data += std::min(blocks.len(q), cap_);
    // A fixed row: whole, cleared first (its data may be shorter). Packed,
    // a row whose longest would not fit the line goes in the slot however
    // short it is: the readers look for it where its longest would be
    // (sym_len); it is padded to that.
    own_len_ = packed_ ? kLengthsRowBytes + data : block_;
    const std::size_t written = packed_ ? own_len_ : 0;
    if (packed_ && sym_len_of(me_) > kInlineBytes) own_len_ = std::max(own_len_, kInlineBytes + 1);
    if (own_len_ > sizeof small_) big_.resize(own_len_);
    std::byte* own_row = own_up();
    if (own_len_ > written) std::memset(own_row + written, 0, own_len_ - written);
    LengthsRow own{mine, 0};
    if (me_ == root_) {
      CountsDigest d;
      for (int q = 0; q < n_; ++q) d.add(static_cast<std::int64_t>(blocks.len(q)));
      own.digest = d.value();
    }
    std::memcpy(own_row, &own, sizeof own);
    if (!send || !cap_) return;
    std::byte* at = own_row + sizeof own;
    if (gathers_) {
      if (const std::size_t len = std::min(mine, cap_)) std::memcpy(at, send, len);
    } else if (me_ == root_) {  // packed: every rank's first bytes, back to back
      for (int q = 0; q < n_; ++q) {
        const std::size_t len = std::min(blocks.len(q), cap_);
        if (len) std::memcpy(at, send + blocks.at(q), len);
        at += len;
      }
    }
  }
  std::size_t data_cap() const { return cap_; }
  // A unit's rows (packed: a single rank's, scatterv's root's the longer).
  std::size_t up_len(const Lane& l, int u) const {
    if (packed_) return sym_len(l, u);
    return static_cast<std::size_t>(l.unit_size[static_cast<std::size_t>(u)]) * block_;
  }
  // Packed (every unit a single rank): my row's length, and the most the
  // others' may take (where to find them: in the line or the slot).
  std::size_t sym_len(const Lane& l, int u) const {
    if (!packed_) return up_len(l, u);
    const int rank = l.packed[static_cast<std::size_t>(l.unit_off[static_cast<std::size_t>(u)])];
    return rank == me_ ? own_len_ : sym_len_of(rank);
  }
  void combine(const Lane& l, LaneWork& w, const int* units, int count, std::byte* out) {
    concatenate(w, units, count, out, [&](int u) { return up_len(l, u); });
  }
  std::byte* own_up() { return big_.empty() ? small_ : big_.data(); }
  std::size_t down_len(const Lane& /*l*/) const { return sizeof(LengthsRow); }
  // Row i of `up` is rank packed[i]'s (fixed rows); the digest folds them
  // in rank order.
  const std::byte* top_down(const std::byte* up) {
    const std::vector<int>& packed = e_.top_packed();
    // rank -> its row: in rank order by arithmetic (the common case), else
    // through the packed order
    const bool direct = e_.top_in_rank_order();
    std::vector<std::size_t> index;
    if (!direct) {
      index.resize(packed.size());
      for (std::size_t i = 0; i < packed.size(); ++i) index[static_cast<std::size_t>(packed[i])] = i;
    }
    return decide([&](std::size_t rank) { return up + (direct ? rank : index[rank]) * block_; });
  }
  // The symmetric top: packed, every row in its unit's line or slot, read
  // there; else as a local root's, the rows concatenated first.
  const std::byte* sym_down(const Lane& l, LaneWork& w, std::byte* scratch) {
    if (!packed_) {
      w.all_units(l.n());
      combine(l, w, w.order.data(), l.n(), scratch);
      return top_down(scratch);
    }
    return decide(ByRank(l, w, e_.top_in_rank_order()));
  }
  // Every lane this rank takes part in gets the same row from the top.
  void deliver(int /*lane*/, const Lane* /*l*/, const std::byte* data) {
    if (data) std::memcpy(&got_, data, sizeof got_);
  }
  std::size_t most() const { return got_.len; }
  bool agreed() const { return got_.digest == 1; }

 private:
  std::size_t sym_len_of(int rank) const {
    return kLengthsRowBytes + (gathers_ ? cap_ : rank == root_ ? cap_ * static_cast<std::size_t>(n_) : 0);
  }
  static LengthsRow row_in(const std::byte* at) {
    LengthsRow r;
    std::memcpy(&r, at, sizeof r);
    return r;
  }
  // From every rank's row (`row_at(rank)`): the longest block and whether
  // the lengths are the root's counts (what goes down); where every block
  // is in the rows, the root's (gatherv) or my (scatterv) copies.
  template <class RowAt>
  const std::byte* decide(RowAt row_at) {
    const auto n = static_cast<std::size_t>(n_), root = static_cast<std::size_t>(root_);
    CountsDigest d;
    std::uint64_t most = 0;
    for (std::size_t r = 0; r < n; ++r) {
      const std::uint64_t len = row_in(row_at(r)).len;
      d.add(static_cast<std::int64_t>(len));
      most = std::max(most, len);
    }
    top_ = {most, d.value() == row_in(row_at(root)).digest ? 1 : 0};
    if (!recv_ || top_.digest != 1 || most > cap_) return reinterpret_cast<const std::byte*>(&top_);
    if (gathers_) {  // the root: every block is in the rows
      for (std::size_t r = 0; r < n; ++r) {
        const int q = static_cast<int>(r);
        if (const std::size_t len = blocks_.len(q))
          std::memcpy(recv_ + blocks_.at(q), row_at(r) + sizeof(LengthsRow), len);
      }
    } else if (mine_) {  // my block, in the root's (packed) row after those of ranks 0 .. me - 1
      std::size_t off = 0;
      for (std::size_t r = 0; r < static_cast<std::size_t>(me_); ++r) off += row_in(row_at(r)).len;
      std::memcpy(recv_, row_at(root) + sizeof(LengthsRow) + off, mine_);
    }
    return reinterpret_cast<const std::byte*>(&top_);
  }

  Engine& e_;
  int root_, me_, n_;
  bool gathers_, packed_;
  std::size_t cap_, mine_;
  std::size_t own_len_ = 0;
  const Blocks& blocks_;
  std::byte* recv_;
  // My row: in place, or (scatterv's root with data, packed rows) on the heap.
  alignas(8) std::byte small_[kLengthsRowBytes + kLengthsSlotDataBytes];  // written where read (not cleared)
  std::vector<std::byte> big_;
  LengthsRow top_, got_;  // {longest block, 1 when the lengths are the root's counts}
};

static_assert(PayloadHooks<LengthsPayload>);
static_assert(HasSymDown<LengthsPayload>);
static_assert(HasSymLen<LengthsPayload>);

}  // namespace

Task share_lengths(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, std::size_t mine,
                   const Blocks& blocks, const std::byte* send, std::byte* recv, std::size_t& most, bool& agreed,
                   bool& done) {
  LengthsPayload p(e, a, plan, mine, blocks, local ? nullptr : send, local ? nullptr : recv);
  OSMP_CO_RETURN_IF_ERROR(co_await first_step(e, p, a, local, plan));
  most = p.most();
  agreed = p.agreed();
  done = agreed && most <= p.data_cap();
  co_return Status{};
}

// What the root of a gatherv or scatterv tells every rank in agree_counts,
// in its outbox: the longest block, and the first rank whose own count
// differs from the root's entry for it (rank + 1; 0: none) with both.
struct CountsVerdict {
  std::uint64_t most = 0, bad = 0, theirs = 0, expected = 0;
};

Task agree_counts(Engine& e, const CollArgs& a, const Blocks& blocks, std::size_t mine, std::size_t& most) {
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size(), root = a.root;
  const std::uint64_t s = e.next_flat_step();
  CountsVerdict v;
  if (me != root) {
    // release (arrive): the length is stored before; pairs with the root's
    // acquire in arrived().
    f.t.rank_line(me).length.store(mine, std::memory_order_relaxed);
    publish(f.t.rank_line(me).arrive, s, f.sleepy());
    OSMP_CO_RETURN_IF_ERROR(co_await until(e, f.t.rank_line(root).done, s, root));
    // acquired with the root's `done`, which it published after writing this
    std::memcpy(&v, f.t.outbox(root, f.parity(s)), sizeof v);
  } else {
    v.most = blocks.len(me);
    for (int q = 0; q < n; ++q) {
      if (q == me) continue;
      OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s));
      const std::uint64_t theirs = f.t.rank_line(q).length.load(std::memory_order_relaxed);
      const std::size_t expected = blocks.len(q);
      v.most = std::max<std::uint64_t>(v.most, std::max<std::uint64_t>(theirs, expected));
      if (theirs != expected && !v.bad) v = {v.most, static_cast<std::uint64_t>(q) + 1, theirs, expected};
    }
    std::memcpy(f.t.outbox(me, f.parity(s)), &v, sizeof v);
    // release: after the verdict; pairs with the ranks' until()
    publish(f.t.rank_line(me).done, s, f.sleepy());
  }
  most = v.most;
  if (!v.bad) co_return Status{};
  co_return counts_error(a, static_cast<int>(v.bad - 1), v.theirs, v.expected);
}

// Each step, every rank puts the same piece of each of its n blocks in its
// outbox, then takes its own piece from every rank's. In place, the pieces
// a step overwrites in `recv` went into the outbox first, and later steps
// read only later pieces.
Task flat_alltoall(Engine& e, OpKind k, bool by_cma, const std::byte* send, std::byte* recv, const Exchange& x) {
  if (by_cma) co_return co_await cma_alltoall(e, send, recv, x);
  Flat f(e);
  f.first = x.first;
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t un = static_cast<std::size_t>(n);
  // The piece of each block a step moves: n of them fill an outbox, each a
  // whole number of cache lines where the outbox has room.
  std::size_t piece = f.chunk() / un;
  if (piece > kCacheLine) piece = piece / kCacheLine * kCacheLine;
  if (piece == 0) {
    co_return Status(Errc::unsupported, cat(to_string(k), ": more ranks than the outbox can hold pieces for"));
  }
  const std::size_t chunks = ceil_div(x.most, piece);
  const std::byte* own = send + x.out.at(me);
  std::byte* own_to = recv + x.in.at(me);
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (f.first == 0) f.first = s;
    const std::size_t off = c * piece;
    OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s));
    std::byte* box = f.t.outbox(me, f.parity(s));
    for (int b = 0; b < n; ++b) {
      const std::size_t have = x.out.len(b);
      if (b != me && off < have) {
        copy_to_shared(box + static_cast<std::size_t>(b) * piece, send + x.out.at(b) + off,
                       std::min(piece, have - off));
      }
    }
    publish(f.t.rank_line(me).arrive, s, f.sleepy());  // release: after my pieces; pairs with arrived()
    if (own != own_to && off < x.in.len(me)) std::memcpy(own_to + off, own + off, std::min(piece, x.in.len(me) - off));
    for (int i = 1; i < n; ++i) {
      const int q = (me + i) % n;  // start with the next rank: spreads the readers
      const std::size_t want = x.in.len(q);
      OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s));
      if (off < want) {
        std::memcpy(recv + x.in.at(q) + off, f.t.outbox(q, f.parity(s)) + static_cast<std::size_t>(me) * piece,
                    std::min(piece, want - off));
      }
    }
    publish(f.t.rank_line(me).done, s, f.sleepy());  // release: after my reads; pairs with reusable()
  }
  co_return Status{};
}

namespace {
// agree_pairs' second step (teams beyond kPairsAllRowsMax): what each rank
// found in its own column (sender + 1; 0: none).
struct PairVerdict {
  std::uint64_t bad = 0, sent = 0, expected = 0;
};
}  // namespace

Task agree_pairs(Engine& e, const CollArgs& a, const std::byte* send, std::byte* recv, Exchange& x,
                 std::vector<std::uint64_t>& at, bool& done) {
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t un = static_cast<std::size_t>(n);
  if (pairs_blocks_at(n) > f.chunk()) {
    co_return Status(Errc::unsupported, cat("alltoallv: more ranks (", n, ") than the outbox holds counts for"));
  }
  const std::uint64_t s1 = e.next_flat_step();
  f.first = s1;
  x.first = s1;
  auto row = [&](int q) { return f.t.outbox(q, f.parity(s1)); };
  // My blocks ride in my outbox where CMA would not carry them.
  write_pairs_row(row(me), x, me, n, send, f.chunk() - pairs_blocks_at(n), cma_from(OpKind::alltoallv, e.settings()));
  publish(f.t.rank_line(me).arrive, s1, f.sleepy());  // release: after my row; pairs with arrived()
  at.assign(un, 0);
  PairVerdict found;  // in my own column
  for (int q = 0; q < n; ++q) {
    if (q != me) OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s1));
    const PairEntry theirs = pairs_entry(row(q), me);
    at[static_cast<std::size_t>(q)] = theirs.at;
    if (theirs.len != x.in.len(q) && !found.bad) found = {static_cast<std::uint64_t>(q) + 1, theirs.len, x.in.len(q)};
  }
  const PairsTails tails = pairs_tails(n, row);
  x.most = tails.most;
  x.peer_at = at.data();
  PairsFinding first;
  std::uint64_t last = s1;  // this call's last flat step so far
  if (n <= kPairsAllRowsMax) {
    // Every rank reads every column: the same first difference everywhere.
    first = first_pair_difference(n, row);
  } else {
    // Each rank's own column, then the findings shared in a second step.
    // My `done` of the rows' step waits for that step's: nobody writes the
    // rows' outboxes again before it (the data steps wait for it, and the
    // next call's first step for me), so the blocks are still there to take.
    const std::uint64_t s2 = last = e.next_flat_step();
    std::memcpy(f.t.outbox(me, f.parity(s2)), &found, sizeof found);
    publish(f.t.rank_line(me).arrive, s2, f.sleepy());  // release: after my finding in the outbox; pairs with arrived()
    for (int q = 0; q < n; ++q) {
      PairVerdict v = found;
      if (q != me) {
        OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s2));
        std::memcpy(&v, f.t.outbox(q, f.parity(s2)), sizeof v);
      }
      if (v.bad && first.receiver < 0) first = {q, static_cast<int>(v.bad - 1), v.sent, v.expected};
    }
  }
  // Every block rode and no pair differs: take mine from every row (only
  // then: a call that fails leaves the receive buffer as it was).
  done = tails.all_carried && first.receiver < 0;
  if (done) take_pairs_blocks(x, me, n, send, recv, row);
  // release: after my reads of the rows (and the findings); pairs with reusable()
  publish(f.t.rank_line(me).done, last, f.sleepy());
  if (first.receiver < 0) co_return Status{};
  done = false;
  co_return pairs_error(a, first);
}

Task flat_reduce_scatter(Engine& e, OpKind k, const std::byte* send, std::byte* recv, Blocks blocks, std::size_t most,
                         Datatype t, Op op) {
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t es = size_of(t);
  // Each step moves a piece of every block: n pieces fill an outbox. In
  // place, the result's piece overwrites only input this step or earlier
  // ones already put in the outbox (every block starts at or after it).
  const std::size_t piece = std::max<std::size_t>(1, f.chunk() / (static_cast<std::size_t>(n) * es));
  if (piece * static_cast<std::size_t>(n) * es > f.chunk()) {
    co_return Status(Errc::unsupported, cat(to_string(k), ": more ranks than the outbox can hold pieces for"));
  }
  const std::size_t chunks = ceil_div(most / es, piece);
  const std::size_t mine = blocks.len(me) / es;
  std::vector<const void*> src(static_cast<std::size_t>(n));
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) f.first = s;
    const std::size_t off = c * piece;
    OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s));
    std::byte* box = f.t.outbox(me, f.parity(s));
    for (int b = 0; b < n; ++b) {
      const std::size_t have = blocks.len(b) / es;
      if (off < have) {
        copy_to_shared(box + static_cast<std::size_t>(b) * piece * es, send + blocks.at(b) + off * es,
                       std::min(piece, have - off) * es);
      }
    }
    publish(f.t.rank_line(me).arrive, s, f.sleepy());  // release: after my pieces; pairs with arrived()
    for (int q = 0; q < n; ++q) {
      if (q != me) OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s));
      src[static_cast<std::size_t>(q)] = f.t.outbox(q, f.parity(s)) + static_cast<std::size_t>(me) * piece * es;
    }
    if (off < mine) combine_all(recv + off * es, src.data(), n, std::min(piece, mine - off), t, op);  // rank order
    publish(f.t.rank_line(me).done, s, f.sleepy());  // release: after my reads; pairs with reusable()
  }
  co_return Status{};
}

}  // namespace osmp
