// The flat paths, for gathers, scatters and alltoall too large for the
// tree's areas: each rank's outbox (two buffers) in the team's control
// segment, which every rank maps, and its arrive/done flags. Data goes
// through once per hop; the root's memory bandwidth bounds gather and
// scatter anyway. Where Engine::use_cma says so, gather, allgather, scatter
// and alltoall copy once between the ranks' own buffers instead (ops/cma.cpp).
//
// Outbox reuse: a writer fills buffer s % 2 only after its readers published
// done >= s - 2. Across operations the first step (a full round trip through
// the tree) already guarantees that every reader finished the last one.
#include <cstring>
#include <vector>

#include "collectives/kernels.hpp"
#include "collectives/ops/common.hpp"
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

Task flat_gather(Engine& e, const std::byte* send, std::byte* recv, std::size_t block, int root) {
  if (e.use_cma(OpKind::gather, block)) co_return co_await cma_gather(e, send, recv, block, root);
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
  if (e.use_cma(OpKind::allgather, block)) co_return co_await cma_allgather(e, send, recv, block);
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

Task flat_scatter(Engine& e, const std::byte* send, std::byte* recv, std::size_t block, int root) {
  if (e.use_cma(OpKind::scatter, block)) co_return co_await cma_scatter(e, send, recv, block, root);
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

// Each step, every rank puts the same piece of each of its n blocks in its
// outbox, then takes its own piece from every rank's. In place, the pieces
// a step overwrites in `recv` went into the outbox first, and later steps
// read only later pieces.
Task flat_alltoall(Engine& e, const std::byte* send, std::byte* recv, std::size_t block) {
  if (e.use_cma(OpKind::alltoall, block)) co_return co_await cma_alltoall(e, send, recv, block);
  Flat f(e);
  const int me = f.t.rank(), n = f.t.size();
  const std::size_t un = static_cast<std::size_t>(n);
  // The piece of each block a step moves: n of them fill an outbox, each a
  // whole number of cache lines where the outbox has room.
  std::size_t piece = f.chunk() / un;
  if (piece > kCacheLine) piece = piece / kCacheLine * kCacheLine;
  if (piece == 0) co_return Status(Errc::unsupported, "alltoall: more ranks than the outbox can hold pieces for");
  const std::size_t chunks = ceil_div(block, piece);
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) f.first = s;
    const std::size_t off = c * piece, len = std::min(piece, block - off);
    OSMP_CO_RETURN_IF_ERROR(co_await f.reusable(s));
    std::byte* box = f.t.outbox(me, f.parity(s));
    for (std::size_t b = 0; b < un; ++b) {
      if (b != static_cast<std::size_t>(me)) copy_to_shared(box + b * piece, send + b * block + off, len);
    }
    publish(f.t.rank_line(me).arrive, s, f.sleepy());  // release: after my pieces; pairs with arrived()
    const std::size_t at = static_cast<std::size_t>(me) * block + off;
    if (send != recv) std::memcpy(recv + at, send + at, len);
    for (int i = 1; i < n; ++i) {
      const int q = (me + i) % n;  // start with the next rank: spreads the readers
      OSMP_CO_RETURN_IF_ERROR(co_await f.arrived(q, s));
      std::memcpy(recv + static_cast<std::size_t>(q) * block + off,
                  f.t.outbox(q, f.parity(s)) + static_cast<std::size_t>(me) * piece, len);
    }
    publish(f.t.rank_line(me).done, s, f.sleepy());  // release: after my reads; pairs with reusable()
  }
  co_return Status{};
}

Task flat_reduce_scatter(Engine& e, const std::byte* send, std::byte* recv, std::size_t count, Datatype t, Op op) {
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
