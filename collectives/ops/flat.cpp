// The flat paths, for gathers and scatters too large for the tree's areas:
// each rank's outbox (two buffers) in the team's control segment, which every
// rank maps, and its arrive/done flags. Data goes through once per hop; the
// root's memory bandwidth bounds gather and scatter anyway. With CMA
// (Engine::use_cma), bcast, gather, allgather and scatter copy once between
// the ranks' own buffers instead.
//
// Outbox reuse: a writer fills buffer s % 2 only after its readers published
// done >= s - 2. Across operations the first step (a full round trip through
// the tree) already guarantees that every reader finished the last one.
#include <algorithm>
#include <cstring>
#include <vector>

#include "collectives/kernels.hpp"
#include "collectives/ops/common.hpp"
#include "collectives/task.hpp"
#include "shm/cma.hpp"
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

// Single copy: every rank whose buffer peers copy from or into says where it
// is (address, length in its rank line), then publishes `arrive`; the peers
// read it with process_vm_readv or write it with process_vm_writev, then
// publish `done`; the owners wait for them before returning, since their
// buffers must stay put until then.
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
  Task read(int q, void* dst, std::size_t off, std::size_t n) {
    OSMP_CO_RETURN_IF_ERROR(co_await until(e, t.rank_line(q).arrive, s, q));
    RankLine& l = t.rank_line(q);  // acquired with `arrive`
    std::uint64_t at = l.address.load(std::memory_order_relaxed);
    if (off + n > l.length.load(std::memory_order_relaxed)) {
      co_return Status(Errc::internal, cat("single copy: rank ", q, " offered fewer bytes than needed"));
    }
    co_return cma_read(t.pid_of(q), dst, at + off, n);
  }
  Task write(int q, std::size_t off, const void* src, std::size_t n) {
    OSMP_CO_RETURN_IF_ERROR(co_await until(e, t.rank_line(q).arrive, s, q));
    RankLine& l = t.rank_line(q);  // acquired with `arrive`
    std::uint64_t at = l.address.load(std::memory_order_relaxed);
    if (off + n > l.length.load(std::memory_order_relaxed)) {
      co_return Status(Errc::internal, cat("single copy: rank ", q, " offered fewer bytes than needed"));
    }
    co_return cma_write(t.pid_of(q), at + off, src, n);
  }
  void done() { publish(t.rank_line(t.rank()).done, s, sleepy()); }
  FlagAwait wait_done(int q) { return until(e, t.rank_line(q).done, s, q); }
};

}  // namespace

Task flat_gather(Engine& e, const std::byte* send, std::byte* recv, std::size_t block, int root) {
  if (e.use_cma(OpKind::gather, block)) {
    // The senders write their blocks into the root's buffer
    // (process_vm_writev), in parallel with each other and with the root's
    // copy of its own; the root waits for them all.
    Cma c(e);
    const int me = c.t.rank(), n = c.t.size();
    if (me != root) {
      OSMP_CO_RETURN_IF_ERROR(co_await c.write(root, static_cast<std::size_t>(me) * block, send, block));
      c.done();
      co_return Status{};
    }
    c.offer(recv, block * static_cast<std::size_t>(n));
    std::byte* dst = recv + static_cast<std::size_t>(me) * block;
    if (send != dst) std::memmove(dst, send, block);
    for (int q = 0; q < n; ++q)
      if (q != me) OSMP_CO_RETURN_IF_ERROR(co_await c.wait_done(q));
    co_return Status{};
  }
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t chunks = ceil_div(block, f.chunk());
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) f.first = s;
    const std::size_t off = c * f.chunk(), len = std::min(f.chunk(), block - off);
    if (me != root) {
      OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s, root));
      copy_to_shared(f.t.outbox(me, f.parity(s)), send + off, len);
      publish(f.t.rank_line(me).arrive, s, f.sleepy());  // after the data
      continue;
    }
    for (int q = 0; q < n; ++q) {
      std::byte* dst = recv + static_cast<std::size_t>(q) * block + off;
      if (q == me) {
        if (send + off != dst) std::memmove(dst, send + off, len);
        continue;
      }
      OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s));
      std::memcpy(dst, f.t.outbox(q, f.parity(s)), len);
    }
    publish(f.t.rank_line(me).done, s, f.sleepy());
  }
  co_return Status{};
}

Task flat_allgather(Engine& e, const std::byte* send, std::byte* recv, std::size_t block) {
  if (e.use_cma(OpKind::allgather, block)) {
    Cma c(e);
    const int me = c.t.rank(), n = c.t.size();
    c.offer(send, block);
    for (int i = 1; i <= n; ++i) {
      int q = (me + i) % n;  // start with the next rank: spreads the readers
      std::byte* dst = recv + static_cast<std::size_t>(q) * block;
      if (q == me) {
        if (send != dst) std::memmove(dst, send, block);
      } else {
        OSMP_CO_RETURN_IF_ERROR(co_await c.read(q, dst, 0, block));
      }
    }
    c.done();
    for (int q = 0; q < n; ++q)
      if (q != me) OSMP_CO_RETURN_IF_ERROR(co_await c.wait_done(q));
    co_return Status{};
  }
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t chunks = ceil_div(block, f.chunk());
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) f.first = s;
    const std::size_t off = c * f.chunk(), len = std::min(f.chunk(), block - off);
    OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s));
    copy_to_shared(f.t.outbox(me, f.parity(s)), send + off, len);
    publish(f.t.rank_line(me).arrive, s, f.sleepy());
    for (int i = 1; i <= n; ++i) {
      int q = (me + i) % n;  // start with the next rank: spreads the readers
      std::byte* dst = recv + static_cast<std::size_t>(q) * block + off;
      if (q == me) {
        if (send + off != dst) std::memmove(dst, send + off, len);
        continue;
      }
      OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s));
      std::memcpy(dst, f.t.outbox(q, f.parity(s)), len);
    }
    publish(f.t.rank_line(me).done, s, f.sleepy());
  }
  co_return Status{};
}

// Every rank offers its buffer; the root writes the first 1/n of each
// receiver's (process_vm_writev) while each receiver reads the rest from the
// root's, in parallel (n = 2: half each); each waits for those who copied
// from or into its buffer.
Task cma_bcast(Engine& e, std::byte* buf, std::size_t bytes, int root) {
  Cma c(e);
  const int me = c.t.rank(), n = c.t.size();
  const std::size_t split = bytes / static_cast<std::size_t>(n) / kCacheLine * kCacheLine;
  c.offer(buf, bytes);
  if (me == root) {
    for (int i = 1; i < n && split; ++i) {
      const int q = (me + i) % n;
      OSMP_CO_RETURN_IF_ERROR(co_await c.write(q, 0, buf, split));
    }
    c.done();
    for (int q = 0; q < n; ++q)
      if (q != me) OSMP_CO_RETURN_IF_ERROR(co_await c.wait_done(q));
    co_return Status{};
  }
  OSMP_CO_RETURN_IF_ERROR(co_await c.read(root, buf + split, split, bytes - split));
  c.done();
  if (split) OSMP_CO_RETURN_IF_ERROR(co_await c.wait_done(root));
  co_return Status{};
}

namespace {

// This rank's share `mine` of the reduction of every rank's input, in rank
// order, into `out` (element mine.first at out[0]): its own input read where it is, each peer's read
// with process_vm_readv a piece at a time into the engine's scratch (n
// pieces: one per peer and the result, which is copied out, so that `out`
// may be the input itself). Every peer has offered its input at step c.s.
Task combine_share(Engine& e, Cma& c, const std::byte* in, std::byte* out, Share mine, Datatype t, Op op) {
  const int me = c.t.rank(), n = c.t.size();
  const std::size_t es = size_of(t);
  const std::size_t piece = std::max<std::size_t>(1, 4 * e.scratch_bytes() / static_cast<std::size_t>(n) / es);
  std::byte* tmp = e.scratch(0);  // scratch(0..3) are one run of 4 * scratch_bytes
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

// Waits for every peer's `done` of c's step: they finished with this rank's buffer.
Task all_done(Cma& c) {
  for (int q = 0; q < c.t.size(); ++q)
    if (q != c.t.rank()) OSMP_CO_RETURN_IF_ERROR(co_await c.wait_done(q));
  co_return Status{};
}

}  // namespace

// Two steps: every rank offers its input and combines its share of the
// vector into its output; once every rank is done reading (an input in
// place is the output, whose other shares peers are still reading), every
// rank offers its output and reads the others' shares of the result.
Task cma_allreduce(Engine& e, const std::byte* in, std::byte* out, std::size_t count, Datatype t, Op op) {
  const std::size_t es = size_of(t);
  const int me = e.team().rank(), n = e.team().size();
  {
    Cma c(e);
    c.offer(in, count * es);
    const Share mine = share_of(count, es, me, n);
    OSMP_CO_RETURN_IF_ERROR(co_await combine_share(e, c, in, out + mine.first * es, mine, t, op));
    c.done();
    OSMP_CO_RETURN_IF_ERROR(co_await all_done(c));
  }
  Cma c(e);
  c.offer(out, count * es);
  for (int i = 1; i < n; ++i) {
    const int q = (me + i) % n;
    const Share s = share_of(count, es, q, n);
    if (s.len) OSMP_CO_RETURN_IF_ERROR(co_await c.read(q, out + s.first * es, s.first * es, s.len * es));
  }
  c.done();
  co_return co_await all_done(c);
}

// Rank r's share is block r of every input. In place (`in` is `out`, and
// the result belongs in block 0, which rank 0 reads), rank r builds its
// result in block r of its own buffer, which no peer reads, and moves it to
// block 0 once every peer is done.
Task cma_reduce_scatter(Engine& e, const std::byte* in, std::byte* out, std::size_t count, Datatype t, Op op) {
  const std::size_t es = size_of(t), block = count * es;
  const int me = e.team().rank(), n = e.team().size();
  const bool in_place = in == out;
  std::byte* build = in_place ? out + static_cast<std::size_t>(me) * block : out;
  Cma c(e);
  c.offer(in, block * static_cast<std::size_t>(n));
  OSMP_CO_RETURN_IF_ERROR(co_await combine_share(e, c, in, build, Share{static_cast<std::size_t>(me) * count, count}, t, op));
  c.done();
  OSMP_CO_RETURN_IF_ERROR(co_await all_done(c));
  if (build != out) std::memmove(out, build, block);
  co_return Status{};
}

Task flat_scatter(Engine& e, const std::byte* send, std::byte* recv, std::size_t block, int root) {
  if (e.use_cma(OpKind::scatter, block)) {
    Cma c(e);
    const int me = c.t.rank(), n = c.t.size();
    if (me == root) {
      c.offer(send, block * static_cast<std::size_t>(n));
      if (recv) std::memmove(recv, send + static_cast<std::size_t>(me) * block, block);
      for (int q = 0; q < n; ++q)
        if (q != me) OSMP_CO_RETURN_IF_ERROR(co_await c.wait_done(q));
      co_return Status{};
    }
    OSMP_CO_RETURN_IF_ERROR(co_await c.read(root, recv, static_cast<std::size_t>(me) * block, block));
    c.done();
    co_return Status{};
  }
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t chunks = ceil_div(block, f.chunk());
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) f.first = s;
    const std::size_t off = c * f.chunk(), len = std::min(f.chunk(), block - off);
    if (me == root) {
      OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s));
      for (int q = 0; q < n; ++q) {  // the root fills every rank's inbox (their outbox slot)
        const std::byte* src = send + static_cast<std::size_t>(q) * block + off;
        if (q == me) {
          if (recv) std::memmove(recv + off, src, len);
        } else {
          copy_to_shared(f.t.outbox(q, f.parity(s)), src, len);
        }
      }
      publish(f.t.rank_line(me).arrive, s, f.sleepy());
      continue;
    }
    OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(root, s));
    std::memcpy(recv + off, f.t.outbox(me, f.parity(s)), len);
    publish(f.t.rank_line(me).done, s, f.sleepy());
  }
  co_return Status{};
}

Task flat_reduce_scatter(Engine& e, const std::byte* send, std::byte* recv, std::size_t count, Datatype t,
                           Op op) {
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t es = size_of(t);
  // Each step moves a piece of every block: n pieces fill an outbox.
  const std::size_t piece = std::max<std::size_t>(1, f.chunk() / (static_cast<std::size_t>(n) * es));
  if (piece * static_cast<std::size_t>(n) * es > f.chunk()) {
    co_return Status(Errc::unsupported, "reduce_scatter_block: more ranks than the outbox can hold pieces for");
  }
  const std::size_t chunks = ceil_div(count, piece);
  std::vector<const void*> src(static_cast<std::size_t>(n));
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) f.first = s;
    const std::size_t off = c * piece, len = std::min(piece, count - off);
    OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s));
    std::byte* box = f.t.outbox(me, f.parity(s));
    for (int b = 0; b < n; ++b) {
      copy_to_shared(box + static_cast<std::size_t>(b) * piece * es,
                     send + (static_cast<std::size_t>(b) * count + off) * es, len * es);
    }
    publish(f.t.rank_line(me).arrive, s, f.sleepy());
    for (int q = 0; q < n; ++q) {
      if (q != me) OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s));
      src[static_cast<std::size_t>(q)] = f.t.outbox(q, f.parity(s)) + static_cast<std::size_t>(me) * piece * es;
    }
    combine_all(recv + off * es, src.data(), n, len, t, op);  // rank order: reproducible
    publish(f.t.rank_line(me).done, s, f.sleepy());
  }
  co_return Status{};
}

}  // namespace osmp
