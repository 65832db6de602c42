// scan and exscan: rank r's result is the reduction of the inputs of ranks
// 0..r (scan) or 0..r-1 (exscan; rank 0's output is not written, as MPI
// leaves it undefined), always combined left to right in rank order:
// ((x0 op x1) op x2) ..., the same bits on every tree and path.
//
// Small calls in one step through the tree: every input gathered up (each
// level's leader concatenating its domain's), the top folding them in rank
// order into every rank's result, the results scattered down as a scatter's
// blocks; in a team that makes one-pass calls, one pass through the prefix
// top (base/prefix.hpp), where each rank folds the inputs of the ranks up to
// it and rank 0 waits for nobody. Larger ones along the chain of ranks, in outbox chunks: rank r
// takes rank r-1's running result of a chunk, combines its own input into
// it and hands it to rank r+1; the chunks pipeline down the chain. An
// exscan of two ranks where CMA covers it is one single copy of rank 0's
// input into rank 1's result, read by rank 1 (from 128 KiB half of it
// written by rank 0 meanwhile).
#include <cstring>
#include <vector>

#include "collectives/kernels.hpp"
#include "collectives/ops/common.hpp"
#include "shm/copy.hpp"

namespace osmp {
namespace {

// Up: every rank's input, in packed order; down at a lane: its domain's
// results, in packed order.
class ScanPayload : public GatherPayload {
 public:
  ScanPayload(Engine& e, std::size_t count, Datatype t, Op op, bool exclusive, const std::byte* in, std::byte* recv)
      : GatherPayload(count * size_of(t)),
        e_(e),
        count_(count),
        kernel_(Combiner::make(t, op)),
        exclusive_(exclusive),
        in_(in),
        recv_(recv) {}
  const std::byte* own_up() { return in_; }
  std::size_t down_len(const Lane& l) const { return l.packed.size() * block_; }
  // Row i of `up` is rank packed[i]'s input; row i of the result is its
  // result. The fold runs in rank order whatever the packed order is.
  const std::byte* top_down(const std::byte* up) {
    const std::vector<int>& packed = e_.top_packed();
    const std::size_t n = packed.size();
    std::byte* out = e_.scratch(3);
    if (!block_ || n == 0) return out;
    std::vector<std::size_t> row_of;  // rank -> packed position, when they differ
    if (!e_.top_in_rank_order()) {
      row_of.resize(n);
      for (std::size_t i = 0; i < n; ++i) row_of[static_cast<std::size_t>(packed[i])] = i;
    }
    auto row = [&](std::size_t rank) { return (row_of.empty() ? rank : row_of[rank]) * block_; };
    const std::byte* prev = nullptr;  // the inclusive result of the rank before
    for (std::size_t r = 0; r < n; ++r) {
      std::byte* dst = out + row(r);
      const std::byte* x = up + row(r);
      if (exclusive_) {
        // The exclusive result of r is the inclusive one of r - 1; its own
        // inclusive one (the next rank's) needs a place of its own: two
        // blocks of the staging scratch, in turn (2 blocks <= n blocks fit).
        std::byte* next = e_.staging() + (r % 2) * block_;
        if (prev) {
          std::memcpy(dst, prev, block_);
          kernel_.two(next, prev, x, count_);
        } else {
          std::memcpy(next, x, block_);
        }
        prev = next;
      } else {
        if (prev) {
          kernel_.two(dst, prev, x, count_);
        } else {
          std::memcpy(dst, x, block_);
        }
        prev = dst;
      }
    }
    return out;
  }
  void forward(const Lane* parent, const Lane& child, const std::byte* from, std::byte* out) {
    forward_part(block_, parent, child, from, out);
  }
  void deliver(int lane, const Lane* l, const std::byte* data) {
    if (exclusive_ && e_.team().rank() == 0) return;  // undefined: left as it is
    deliver_part(block_, lane, l, data, recv_);
  }
  // The one pass (base/prefix.hpp): my result from the inputs of the ranks
  // up to me (exscan: before me), folded in rank order in private scratch,
  // then copied out (the input may be the output: mine is read from my line).
  void prefix(const Lane& l, LaneWork& w) {
    const int me = e_.team().rank();
    const int last = exclusive_ ? me - 1 : me;
    if (!block_ || last < 0 || !recv_) return;
    const ByRank in(l, w, e_.top_in_rank_order());
    if (last == 0) {
      std::memcpy(recv_, in(0), block_);
      return;
    }
    std::byte* acc = e_.staging();
    kernel_.two(acc, in(0), in(1), count_);
    for (int r = 2; r <= last; ++r) kernel_.one(acc, in(r), count_);  // acc = acc op in(r)
    std::memcpy(recv_, acc, block_);
  }

 private:
  Engine& e_;
  std::size_t count_;
  Combiner kernel_;
  bool exclusive_;
  const std::byte* in_;
  std::byte* recv_;
};

static_assert(PayloadHooks<ScanPayload>);

}  // namespace

// The chain: per chunk, rank r waits for rank r-1's running result in its
// outbox, combines its own input into it (into its own outbox, which rank
// r+1 reads) and writes its result; rank 0 starts the chain with its input.
// In place, each chunk of the input is read before the result overwrites it.
Task flat_scan(Engine& e, const std::byte* in, std::byte* out, std::size_t count, Datatype t, Op op, bool exclusive) {
  TeamCore& team = e.team();
  const int me = team.rank(), n = team.size();
  const std::size_t es = size_of(t);
  const std::size_t piece = std::max<std::size_t>(1, team.outbox_bytes() / es);
  const Combiner kernel = Combiner::make(t, op);
  const bool sleepy = team.waiter().may_sleep();
  const std::size_t chunks = ceil_div(count, piece);
  std::uint64_t first = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t s = e.next_flat_step();
    if (c == 0) first = s;
    const std::size_t off = c * piece * es, len = std::min(piece, count - c * piece);
    const int parity = static_cast<int>(s % kBuffers);
    const std::byte* prev = nullptr;
    if (me > 0) {
      // Acquire: pairs with rank me-1's release of `arrive` below, after it
      // wrote its running result into its outbox.
      OSMP_CO_RETURN_IF_ERROR(co_await until(e, team.rank_line(me - 1).arrive, s, me - 1));
      prev = team.outbox(me - 1, parity);
    }
    std::byte* box = team.outbox(me, parity);
    if (me + 1 < n) {
      // My outbox's buffer of this parity: rank me+1 is done with step s - 2
      // (acquire, pairing with its release of `done` below, after its reads).
      if (s >= first + 2) OSMP_CO_RETURN_IF_ERROR(co_await until(e, team.rank_line(me + 1).done, s - 2, me + 1));
      if (prev) {
        kernel.two(box, prev, in + off, len);
      } else {
        copy_to_shared(box, in + off, len * es);
      }
      if (exclusive) {
        if (prev) std::memcpy(out + off, prev, len * es);  // after the input was read (in place)
      } else {
        std::memcpy(out + off, box, len * es);
      }
      publish(team.rank_line(me).arrive, s, sleepy);  // release: after my outbox's chunk
    } else if (exclusive) {
      if (prev) std::memcpy(out + off, prev, len * es);
    } else if (prev && out == in) {
      // prev op x, in that order (min of -0 and +0, NaN payloads: not
      // commutative bit for bit), through my outbox, which nobody reads.
      kernel.two(box, prev, in + off, len);
      std::memcpy(out + off, box, len * es);
    } else if (prev) {
      kernel.two(out + off, prev, in + off, len);
    } else if (out + off != in + off) {
      std::memcpy(out + off, in + off, len * es);
    }
    // Release: after my reads of rank me-1's outbox, which it may then refill.
    if (me > 0) publish(team.rank_line(me).done, s, sleepy);
  }
  co_return Status{};
}

namespace {

template <OpKind K>
struct Scan {
  static constexpr OpKind kKind = K;
  static constexpr bool kExclusive = K == OpKind::exscan;
  static const std::byte* input(const CollArgs& a) {
    return static_cast<const std::byte*>(a.send == kInPlace ? a.recv : a.send);
  }
  static ScanPayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    return ScanPayload(e, local ? 0 : static_cast<std::size_t>(a.count), a.dtype, a.op, kExclusive, input(a),
                       static_cast<std::byte*>(a.recv));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    const std::size_t bytes = static_cast<std::size_t>(a.count) * size_of(a.dtype);
    if (plan.rest == Rest::cma) {
      // Two ranks: rank 1's result is rank 0's input, one single copy (rank
      // 0 writes half of it while rank 1 reads the other half, from
      // 128 KiB: ops/cma.cpp).
      co_return co_await cma_pair(e, input(a), static_cast<std::byte*>(a.recv), bytes, 0, 1);
    }
    co_return co_await flat_scan(e, input(a), static_cast<std::byte*>(a.recv), static_cast<std::size_t>(a.count),
                                 a.dtype, a.op, kExclusive);
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::scan>::entry = entry_of<Scan<OpKind::scan>>();
template <>
const OpEntry Ops<OpKind::exscan>::entry = entry_of<Scan<OpKind::exscan>>();

}  // namespace osmp
