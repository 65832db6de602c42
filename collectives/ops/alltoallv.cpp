// alltoallv = every rank's counts row (collectives/ops/pairs.hpp: its send
// blocks' lengths and places and its receive counts, and its blocks where
// they are small), which every rank reads, checking every pair's counts and
// learning where each peer's block for it lies and how long the longest
// block is; then, unless every block rode with the rows, the exchange: the
// flat path, or CMA where the plan says for the longest block (carried_by_cma).
// Where every rank is a unit of a symmetric top the rows ride in the first
// step (pairs_in_first: small calls are that one step); else the header
// step, then the rows through the outboxes (agree_pairs, ops/flat.cpp).
#include <optional>
#include <vector>

#include "collectives/ops/common.hpp"
#include "collectives/ops/pairs.hpp"

namespace osmp {
namespace {

// The first step's payload where it carries the rows: every rank publishes
// its row at the symmetric top and reads every other's (sym_down).
class PairsPayload : public Payload {
 public:
  PairsPayload(Engine& e, Exchange& x, const std::byte* send, std::byte* recv, bool carries)
      : e_(e), x_(x), send_(send), recv_(recv), me_(e.team().rank()), n_(e.team().size()), carries_(carries) {
    std::size_t len = pairs_blocks_at(n_);
    if (const std::size_t total = carries ? pairs_carried_bytes(x, me_, n_) : 0; total <= pairs_first_cap(n_))
      len += total;
    if (len > sizeof small_) big_.assign(len, std::byte{0});
    mine_len_ = len;
    std::byte* row = own_up();
    if (carries) {
      write_pairs_row(row, x, me_, n_, send, pairs_first_cap(n_), ~std::size_t{0});
    } else {  // no counts (its own arguments were bad): the step fails; the row is never read
      std::memset(row, 0, pairs_blocks_at(n_));
    }
  }
  std::byte* own_up() { return big_.empty() ? small_ : big_.data(); }
  std::size_t uniform_up_len() const { return kVaries; }
  // Every rank is a unit of the top (the plan's condition): my row's bytes,
  // and for the others the most theirs may take (they are in slots).
  std::size_t up_len(const Lane& l, int u) const {
    return l.packed[static_cast<std::size_t>(u)] == me_ ? mine_len_ : pairs_row_bytes(n_);
  }
  std::size_t sym_len(const Lane& l, int u) const { return up_len(l, u); }
  // Every row is in w.src (unit u's is rank packed[u]'s): check every pair,
  // then take my blocks from the rows, or learn what the exchange needs.
  const std::byte* sym_down(const Lane& l, LaneWork& w, std::byte* scratch) {
    if (!carries_) return scratch;  // every rank declined (else the step failed): nothing to check or move
    const ByRank row(l, w, e_.top_in_rank_order());
    finding_ = first_pair_difference(n_, row);
    if (finding_.receiver >= 0) return scratch;
    const PairsTails tails = pairs_tails(n_, row);
    if (tails.all_carried) {
      take_pairs_blocks(x_, me_, n_, send_, recv_, row);
      done_ = true;
      return scratch;
    }
    at_.resize(static_cast<std::size_t>(n_));
    for (int q = 0; q < n_; ++q) at_[static_cast<std::size_t>(q)] = pairs_entry(row(q), me_).at;
    x_.most = tails.most;
    x_.peer_at = at_.data();
    return scratch;
  }
  // Every pair agreed and every block rode: the call is done.
  bool done() const { return done_; }
  const PairsFinding& finding() const { return finding_; }

 private:
  Engine& e_;
  Exchange& x_;
  const std::byte* send_;
  std::byte* recv_;
  int me_, n_;
  bool carries_;
  std::size_t mine_len_ = 0;
  // My row: here (written whole by the constructor; not cleared first), or
  // on the heap where its blocks make it longer.
  alignas(8) std::byte small_[512];
  std::vector<std::byte> big_;
  std::vector<std::uint64_t> at_;
  PairsFinding finding_;
  bool done_ = false;
};

static_assert(PayloadHooks<PairsPayload>);
static_assert(HasSymDown<PairsPayload>);
static_assert(HasSymLen<PairsPayload>);

// A call's two sides (in place, the blocks to send are the receive blocks).
struct Sides {
  Exchange x;
  const std::byte* send;
  std::byte* recv;
  explicit Sides(const CollArgs& a)
      : x{Blocks{0, a.counts, a.displs, size_of(a.dtype), true},
          Blocks{0, a.recv_counts, a.recv_displs, size_of(a.dtype), true}, 0},
        send(static_cast<const std::byte*>(a.send)),
        recv(static_cast<std::byte*>(a.recv)) {
    if (a.send == kInPlace) {
      x.out = x.in;
      send = recv;
    }
  }
};

// What is left after the first step carried the rows: nothing (the call's
// status), or the exchange (nullopt).
std::optional<Status> after_rows(const CollArgs& a, const PairsPayload& p) {
  if (a.abstain != Errc::ok || p.done()) return Status{};  // every rank declined; or every block rode
  if (p.finding().receiver >= 0) return pairs_error(a, p.finding());
  return std::nullopt;
}

struct Alltoallv {
  static constexpr OpKind kKind = OpKind::alltoallv;
  static bool carries(const CollArgs& a, StatusWord local) { return local == 0 && a.abstain == Errc::ok; }
  // Never run: a v-variant's plan always has data after the first step.
  static NoPayload one_step(Engine&, const CollArgs&, StatusWord) { return {}; }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    Sides s(a);
    if (pairs_in_first(kKind, plan)) {
      PairsPayload p(e, s.x, s.send, s.recv, carries(a, local));
      OSMP_CO_RETURN_IF_ERROR(co_await first_step(e, p, a, local, plan));
      if (std::optional<Status> st = after_rows(a, p)) co_return *st;
      co_return co_await flat_alltoall(e, kKind, carried_by_cma(e, plan, kKind, s.x.most), s.send, s.recv, s.x);
    }
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (a.abstain != Errc::ok) co_return Status{};  // every rank declined: no counts, nothing to move
    std::vector<std::uint64_t> at;                  // where each peer's block for me lies in its send buffer
    bool done = false;                              // the blocks rode in agree_pairs' step
    OSMP_CO_RETURN_IF_ERROR(co_await agree_pairs(e, a, s.send, s.recv, s.x, at, done));
    if (done) co_return Status{};
    co_return co_await flat_alltoall(e, kKind, carried_by_cma(e, plan, kKind, s.x.most), s.send, s.recv, s.x);
  }
  // The small blocking call: the rows' step in place (no coroutine frame).
  static Status blocking_steps(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header,
                               const Plan& plan) {
    if (!pairs_in_first(kKind, plan)) return steps(e, a, local, plan).run();
    Sides s(a);
    PairsPayload p(e, s.x, s.send, s.recv, carries(a, local));
    OSMP_RETURN_IF_ERROR(block_on_step<OpKind::alltoallv>(e, p, plan.first, e.next_step(), header, local, a.root));
    if (std::optional<Status> st = after_rows(a, p)) return *st;
    return flat_alltoall(e, kKind, carried_by_cma(e, plan, kKind, s.x.most), s.send, s.recv, s.x).run();
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::alltoallv>::entry = entry_of<Alltoallv>();

}  // namespace osmp
