// Single copy between the ranks' own buffers with CMA (process_vm_readv /
// process_vm_writev, shm/cma.hpp), for calls too large for the areas whose
// buffers the heaps do not carry (the plan says where: Rest::cma; the same on
// every rank: the team's probe, its settings and the agreed size).
//
// A step (one Cma): every rank whose buffer peers copy from or into says
// where it is (address and length in its rank line), then publishes
// `arrive`; the peers copy, then publish `done` with their outcome beside it
// (the flag's word: 0, or 1 when a copy failed); a rank whose buffer peers
// read or write waits for every one of them, even after an error, before it
// returns (its buffer must stay put until then), and takes a peer's failure
// as its own error. So a failed copy is an error on the ranks it concerns,
// never a hang; the team stays usable.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "collectives/kernels.hpp"
#include "collectives/ops/common.hpp"
#include "collectives/task.hpp"
#include "shm/cma.hpp"

namespace osmp {
namespace {

struct Cma {
  Engine& e;
  TeamCore& t;
  std::uint64_t s;
  explicit Cma(Engine& eng) : e(eng), t(eng.team()), s(eng.next_flat_step()) {}
  bool sleepy() { return t.waiter().may_sleep(); }
  void offer(const void* p, std::size_t n) {
    RankLine& l = t.rank_line(t.rank());
    l.address.store(reinterpret_cast<std::uint64_t>(p), std::memory_order_relaxed);
    l.length.store(n, std::memory_order_relaxed);
    publish(l.arrive, s, sleepy());  // after the address
  }
  // Rank q's offered address, once it offered, checked to hold [off, off + n).
  Task located(int q, std::size_t off, std::size_t n, std::uint64_t& at) {
    OSMP_CO_RETURN_IF_ERROR(co_await until(e, t.rank_line(q).arrive, s, q));
    const RankLine& l = t.rank_line(q);  // acquired with `arrive`
    if (off + n > l.length.load(std::memory_order_relaxed)) {
      co_return Status(Errc::internal, cat("single copy: rank ", q, " offered fewer bytes than needed"));
    }
    at = l.address.load(std::memory_order_relaxed) + off;
    co_return Status{};
  }
  // Rank q's offered buffer at `off`: read into `dst`, or written from
  // `src`. Marked first (may_copy, in my `done` word): q, whose wait for my
  // `done` may end with an error meanwhile, then waits on until I am done.
  Task read(int q, void* dst, std::size_t off, std::size_t n) {
    std::uint64_t at = 0;
    OSMP_CO_RETURN_IF_ERROR(co_await located(q, off, n, at));
    OSMP_CO_RETURN_IF_ERROR(may_copy(e, t.rank_line(t.rank()).done.word, s));
    co_return named(cma_read(t.pid_of(q), dst, at, n), "reading from", q);
  }
  Task write(int q, std::size_t off, const void* src, std::size_t n) {
    std::uint64_t at = 0;
    OSMP_CO_RETURN_IF_ERROR(co_await located(q, off, n, at));
    OSMP_CO_RETURN_IF_ERROR(may_copy(e, t.rank_line(t.rank()).done.word, s));
    co_return named(cma_write(t.pid_of(q), at, src, n), "writing into", q);
  }
  // Gatherv and scatterv: only the root knows where each rank's block lies
  // in its buffer. It puts the offsets in its outbox, one per rank, before
  // it offers the buffer (plain stores, published with `arrive`), so that
  // every rank copies its own block at once. Where the outbox cannot hold
  // them (the same on every rank), the root copies every block in turn.
  bool offsets_fit() const { return static_cast<std::size_t>(t.size()) * sizeof(std::uint64_t) <= t.outbox_bytes(); }
  std::byte* box(int q) const { return t.outbox(q, static_cast<int>(s % kBuffers)); }
  // The outbox of this step's parity is free: in a gatherv or scatterv the
  // only flat step before this one is agree_counts' (the other parity), and
  // any before it belong to earlier calls, which the call's first step (a
  // round trip) saw every rank finish.
  void put_offsets(const Blocks& b) {
    for (int q = 0; q < t.size(); ++q) {
      const std::uint64_t at = b.len(q) ? b.at(q) : 0;
      std::memcpy(box(t.rank()) + static_cast<std::size_t>(q) * sizeof at, &at, sizeof at);
    }
  }
  // Where my block lies in rank q's offered buffer: at b.at(me), or where
  // q's outbox says (`table`: put_offsets), read once q arrived (its
  // `arrive` acquired: it published the offsets before it).
  Task my_offset(int q, bool table, const Blocks& b, std::size_t& at) {
    at = b.at(t.rank());
    if (!table) co_return Status{};
    OSMP_CO_RETURN_IF_ERROR(co_await until(e, t.rank_line(q).arrive, s, q));
    std::uint64_t v = 0;
    std::memcpy(&v, box(q) + static_cast<std::size_t>(t.rank()) * sizeof v, sizeof v);
    at = v;
    co_return Status{};
  }
  // A copy's error, with the ranks on both sides.
  Status named(Status st, const char* how, int q) {
    if (st.ok()) return st;
    return Status(st.code(), cat("single copy: rank ", t.rank(), " ", how, " rank ", q, "'s buffer: ", st.message()));
  }
  // This rank's copies of the step are over, with `st` their outcome. The
  // word is stored before the release of `done` and read after its acquire
  // (wait_done): relaxed, through atomic_ref, as a later step may rewrite it.
  void done(const Status& st) {
    Flag& f = t.rank_line(t.rank()).done;
    std::atomic_ref<std::uint32_t>(f.word).store(st.ok() ? 0 : kCopyFailed, std::memory_order_relaxed);
    publish(f, s, sleepy());
  }
  // Waits for the `done` of rank `only`, or of every peer: all of them, even
  // after an error, and on past an abort or a stale call for a peer that had
  // got to its copy (outlive_copier). The first error: a wait that failed (a
  // dead peer, an abort), or a peer whose copies failed or did not run (it
  // published exactly this step with word 1; a rank that failed publishes no
  // later step of the call, and the next call's header step needs this
  // rank): the stop or the raised error where there is one, as it skipped
  // its copy for it.
  Task wait_done(int only = -1) {
    Status first;
    for (int q = 0; q < t.size(); ++q) {
      if (q == t.rank() || (only >= 0 && q != only)) continue;
      Flag& f = t.rank_line(q).done;
      Status st = outlive_copier(e, f.word, f, s, q, co_await until(e, f, s, q));
      // The word is 1 when its copies failed. A peer that got through this
      // step may be at the next one already, its mark there (may_copy).
      if (st.ok() && f.value.load(std::memory_order_acquire) == s &&
          std::atomic_ref<std::uint32_t>(f.word).load(std::memory_order_relaxed) == kCopyFailed) {
        st = t.stopped() || e.error_pending()
                 ? copy_stopped(e)
                 : Status(Errc::system, cat("single copy: rank ", q, " could not copy its part (CMA)"));
      }
      if (!st.ok() && first.ok()) first = std::move(st);
    }
    co_return first;
  }
};

// The first error of two.
Status first_of(Status a, Status b) { return a.ok() ? std::move(b) : std::move(a); }

// This rank's share `mine` of the reduction of every rank's input, in rank
// order, into `out` (element mine.first at out[0]): its own input read where
// it is, each peer's read a piece at a time into the engine's scratch (n
// pieces: one per peer and the result, which is copied out, so that `out`
// may be the input itself). Every peer offers its input at step c.s.
Task combine_share(Engine& e, Cma& c, const std::byte* in, std::byte* out, Share mine, Datatype t, Op op) {
  const int me = c.t.rank(), n = c.t.size();
  const std::size_t es = size_of(t);
  const std::size_t piece = cma_piece(e, t);
  std::byte* tmp = e.scratch(0);  // scratch(0..3): one run of 4 * scratch_bytes
  std::byte* result = tmp + static_cast<std::size_t>(n - 1) * piece * es;
  const Combiner comb = Combiner::make(t, op);
  std::vector<const void*> srcs(static_cast<std::size_t>(n));
  for (std::size_t off = 0; off < mine.len; off += piece) {
    const std::size_t k = std::min(piece, mine.len - off), at = (mine.first + off) * es;
    for (int q = 0, slot = 0; q < n; ++q) {
      if (q == me) {
        srcs[static_cast<std::size_t>(q)] = in + at;
        continue;
      }
      std::byte* into = tmp + static_cast<std::size_t>(slot++) * piece * es;
      OSMP_CO_RETURN_IF_ERROR(co_await c.read(q, into, at, k * es));
      srcs[static_cast<std::size_t>(q)] = into;
    }
    comb.all(result, srcs.data(), n, k);
    std::memcpy(out + off * es, result, k * es);
  }
  co_return Status{};
}

}  // namespace

Status copy_stopped(Engine& e) { return e.team().fail(e.team().stopped() ? WaitStatus::aborted : WaitStatus::stale); }

Status may_copy(Engine& e, std::uint32_t& word, std::uint64_t step) {
  std::atomic_ref<std::uint32_t>(word).store(copy_mark(step), std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with outlive_copier's
  if (e.team().stopped() || e.error_pending()) return copy_stopped(e);
  return Status{};
}

Status outlive_copier(Engine& e, std::uint32_t& word, const Flag& done, std::uint64_t step, int peer, Status st) {
  if (st.ok()) return st;
  std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with may_copy's
  if (std::atomic_ref<std::uint32_t>(word).load(std::memory_order_relaxed) != copy_mark(step)) return st;
  // Marked: the copier copies or skips, then publishes `done`, no wait between.
  const WaitStatus ws = e.team().waiter().outlive(done, step, peer);
  return ws == WaitStatus::ok ? std::move(st) : e.team().fail(ws);
}

std::size_t cma_piece(Engine& e, Datatype t) { return cma_piece(e.shape(), size_of(t)); }

namespace {

// A pair's copy is split from this many bytes; below, the reader copies it
// all (2 processes, exscan, one host: split 4.8-4.9 us at 32 KiB against
// 3.7-5.3 whole over runs, the same at 64 KiB; from 128 KiB to 4 MiB split
// 0.6-0.8x whole: 8.7-10.7 against 13.3-14.2 at 128 KiB, 96-121 against
// 157-191 at 1 MiB).
inline constexpr std::size_t kPairSplitBytes = std::size_t{128} << 10;

// The root's `src` into each receiver's `dst` (`to`: only that rank, the
// others only take the step; -1: every other rank), in parallel: the root
// writes the first 1/k of each receiver's buffer (k: the ranks that copy)
// while each receiver reads the rest from the root's (a pair: half each,
// from kPairSplitBytes).
Task split_copy(Engine& e, const std::byte* src, std::byte* dst, std::size_t bytes, int root, int to) {
  Cma c(e);
  const int me = c.t.rank(), n = c.t.size();
  const std::size_t k = to >= 0 ? 2 : static_cast<std::size_t>(n);
  const std::size_t split = to >= 0 && bytes < kPairSplitBytes ? 0 : bytes / k / kCacheLine * kCacheLine;
  if (me == root) {
    c.offer(src, bytes);
    Status st;
    for (int i = 1; i < n && split && st.ok(); ++i) {
      const int q = (me + i) % n;
      if (to < 0 || q == to) st = co_await c.write(q, 0, src, split);
    }
    c.done(st);
    Status theirs = co_await c.wait_done(to);  // they read my buffer: it stays put until then
    co_return first_of(std::move(st), std::move(theirs));
  }
  if (to >= 0 && me != to) co_return Status{};
  c.offer(dst, bytes);
  Status st = co_await c.read(root, dst + split, split, bytes - split);
  c.done(st);
  // The root writes into this buffer: wait for it whatever happened here.
  Status theirs;
  if (split) theirs = co_await c.wait_done(root);
  co_return first_of(std::move(st), std::move(theirs));
}

}  // namespace

Task cma_bcast(Engine& e, std::byte* buf, std::size_t bytes, int root) {
  return split_copy(e, buf, buf, bytes, root, -1);
}

// The senders write their blocks into the root's buffer, in parallel with
// each other and with the root's copy of its own (offered first: they need
// not wait for that copy). Gatherv: the root's outbox says where each block
// goes (Cma::put_offsets); where it cannot, the root reads each block from
// its sender's buffer in turn.
Task cma_gather(Engine& e, const std::byte* send, std::size_t mine, std::byte* recv, Blocks blocks, int root) {
  Cma c(e);
  const int me = c.t.rank(), n = c.t.size();
  const bool table = blocks.varied && c.offsets_fit(), reads = blocks.varied && !table;
  if (me != root) {
    if (reads) {
      c.offer(send, mine);
      co_return co_await c.wait_done(root);  // the root reads my buffer: it stays put until then
    }
    std::size_t at = 0;
    Status st = co_await c.my_offset(root, table, blocks, at);
    if (st.ok() && mine) st = co_await c.write(root, at, send, mine);
    c.done(st);
    co_return st;
  }
  auto own = [&] {
    std::byte* dst = recv + blocks.at(me);
    if (blocks.len(me) && send != dst) std::memmove(dst, send, blocks.len(me));
  };
  if (!reads) {
    if (table) c.put_offsets(blocks);
    c.offer(recv, blocks.extent(n));
    own();  // while the senders write theirs: disjoint parts of recv
    co_return co_await c.wait_done();
  }
  own();
  Status st;
  for (int q = 0; q < n && st.ok(); ++q) {
    if (q != me && blocks.len(q)) st = co_await c.read(q, recv + blocks.at(q), 0, blocks.len(q));
  }
  c.done(st);
  co_return st;
}

// Every rank reads every other's block.
Task cma_allgather(Engine& e, const std::byte* send, std::byte* recv, Blocks blocks) {
  Cma c(e);
  const int me = c.t.rank(), n = c.t.size();
  c.offer(send, blocks.len(me));
  Status st;
  for (int i = 1; i <= n && st.ok(); ++i) {
    const int q = (me + i) % n;  // start with the next rank: spreads the readers
    std::byte* dst = recv + blocks.at(q);
    const std::size_t len = blocks.len(q);
    if (q == me) {
      if (send != dst && len) std::memmove(dst, send, len);
    } else if (len) {
      st = co_await c.read(q, dst, 0, len);
    }
  }
  c.done(st);
  Status theirs = co_await c.wait_done();
  co_return first_of(std::move(st), std::move(theirs));
}

// Rank `from`'s buffer `src` into rank `to`'s `dst`, half written by `from`,
// half read by `to`; the other ranks only take the step (exscan of two
// ranks: rank 1's result is rank 0's input).
Task cma_pair(Engine& e, const std::byte* src, std::byte* dst, std::size_t bytes, int from, int to) {
  return split_copy(e, src, dst, bytes, from, to);
}

// Every receiver reads its block from the root's buffer, in parallel with
// the root's copy of its own (offered first: they need not wait for that
// copy). Scatterv: the root's outbox says where each block is
// (Cma::put_offsets); where it cannot, the root writes them into the
// receivers' buffers in turn.
Task cma_scatter(Engine& e, const std::byte* send, Blocks blocks, std::byte* recv, std::size_t mine, int root) {
  Cma c(e);
  const int me = c.t.rank(), n = c.t.size();
  const bool table = blocks.varied && c.offsets_fit(), writes = blocks.varied && !table;
  if (me == root) {
    auto own = [&] {  // my block to my own recv (null in place)
      if (recv && blocks.len(me)) std::memmove(recv, send + blocks.at(me), blocks.len(me));
    };
    if (!writes) {
      if (table) c.put_offsets(blocks);
      c.offer(send, blocks.extent(n));
      own();  // while the receivers read theirs from send
      co_return co_await c.wait_done();
    }
    own();
    Status st;
    for (int q = 0; q < n && st.ok(); ++q) {
      if (q != me && blocks.len(q)) st = co_await c.write(q, 0, send + blocks.at(q), blocks.len(q));
    }
    c.done(st);
    co_return st;
  }
  if (writes) {
    c.offer(recv, mine);
    co_return co_await c.wait_done(root);  // the root writes into my buffer
  }
  std::size_t at = 0;
  Status st = co_await c.my_offset(root, table, blocks, at);
  if (st.ok() && mine) st = co_await c.read(root, recv, at, mine);
  c.done(st);
  co_return st;
}

// Every rank reads its block of every other's send buffer, starting with
// the next rank's. In place, peers read the buffer this rank writes: it
// offers a private copy of it instead (every block's extent).
Task cma_alltoall(Engine& e, const std::byte* send, std::byte* recv, const Exchange& x) {
  Cma c(e);
  const int me = c.t.rank(), n = c.t.size();
  std::size_t row = 0;  // how far the send blocks reach
  for (int b = 0; b < n; ++b) row = std::max(row, x.out.len(b) ? x.out.at(b) + x.out.len(b) : 0);
  std::unique_ptr<std::byte[]> copy;
  if (send == recv) {
    copy.reset(new (std::nothrow) std::byte[row]);
    if (!copy) {
      // Nothing to offer: the peers' reads of this rank fail, and they say
      // so in their `done`, which this rank still waits for.
      c.offer(nullptr, 0);
      const Status st(Errc::no_space, cat("alltoall: rank ", me, " could not allocate ", row,
                                          " bytes for a private copy of its buffer (in place)"));
      c.done(st);
      (void)co_await c.wait_done();
      co_return st;
    }
    std::memcpy(copy.get(), send, row);
    send = copy.get();
  }
  c.offer(send, row);
  if (x.in.len(me)) std::memcpy(recv + x.in.at(me), send + x.out.at(me), x.in.len(me));  // distinct buffers here
  Status st;
  for (int i = 1; i < n && st.ok(); ++i) {
    const int q = (me + i) % n;
    if (x.in.len(q)) st = co_await c.read(q, recv + x.in.at(q), x.from(q, me), x.in.len(q));
  }
  c.done(st);
  // Every peer reads my send buffer (or the copy, which lives in this frame).
  Status theirs = co_await c.wait_done();
  co_return first_of(std::move(st), std::move(theirs));
}

// Two steps: every rank offers its input and combines its share of the
// vector into its output; once every rank is done reading (an input in
// place is the output, whose other shares peers are still reading), every
// rank offers its output and reads the others' shares of the result. Every
// rank waits for every other in the first step, so all see a failure there
// and none starts the second.
Task cma_allreduce(Engine& e, const std::byte* in, std::byte* out, std::size_t count, Datatype t, Op op) {
  const std::size_t es = size_of(t);
  const int me = e.team().rank(), n = e.team().size();
  {
    Cma c(e);
    c.offer(in, count * es);
    const Share mine = share_of(count, es, me, n);
    Status st = co_await combine_share(e, c, in, out + mine.first * es, mine, t, op);
    c.done(st);
    Status theirs = co_await c.wait_done();
    OSMP_CO_RETURN_IF_ERROR(first_of(std::move(st), std::move(theirs)));
  }
  Cma c(e);
  c.offer(out, count * es);
  Status st;
  for (int i = 1; i < n && st.ok(); ++i) {
    const int q = (me + i) % n;
    const Share s = share_of(count, es, q, n);
    if (s.len) st = co_await c.read(q, out + s.first * es, s.first * es, s.len * es);
  }
  c.done(st);
  Status theirs = co_await c.wait_done();
  co_return first_of(std::move(st), std::move(theirs));
}

// Rank r's share is block r of every input. In place (`in` is `out`, and
// the result belongs at the start, which the rank whose block is there
// reads), rank r builds its result in block r of its own buffer, which no
// peer reads, and moves it to the start once every peer is done.
Task cma_reduce_scatter(Engine& e, const std::byte* in, std::byte* out, Blocks blocks, Datatype t, Op op) {
  const std::size_t es = size_of(t);
  const int me = e.team().rank(), n = e.team().size();
  std::byte* build = in == out ? out + blocks.at(me) : out;
  Cma c(e);
  c.offer(in, blocks.extent(n));
  Status st = co_await combine_share(e, c, in, build, Share{blocks.at(me) / es, blocks.len(me) / es}, t, op);
  c.done(st);
  Status theirs = co_await c.wait_done();
  OSMP_CO_RETURN_IF_ERROR(first_of(std::move(st), std::move(theirs)));
  if (build != out && blocks.len(me)) std::memmove(out, build, blocks.len(me));
  co_return Status{};
}

}  // namespace osmp
