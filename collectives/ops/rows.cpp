// The lazy gatherv (rows_in_first, plan.hpp): a team that makes one-pass
// calls (OSMP_CHECK=lazy) gathers in one pass up, as gather does. Every rank
// puts its row in its slot: the length of its block and where the block is,
// then the block itself when it is at most the plan's lengths_data bytes;
// then it returns, or, when its block did not ride, waits for the root's ack
// of the step (the root reads it from its buffer by CMA before it acks).
// The root compares every length with its counts first: a rank whose length
// differs is an error that this rank returns at once, naming both counts,
// and raises for the others (they learn it in their next call, as every
// one-pass mismatch: docs/protocol.md); nothing is copied then.
#include <algorithm>
#include <cstring>
#include <vector>

#include "collectives/ops/common.hpp"
#include "shm/cma.hpp"

namespace osmp {
namespace {

struct Row {
  std::uint64_t len = 0;      // the block's bytes
  std::uint64_t address = 0;  // where the block is in its rank (read by CMA when it does not ride)
};
static_assert(sizeof(Row) == kLengthsRowBytes);

class RowsUp : public Payload {
 public:
  // `send`: my block (null: none, or bad arguments); `recv`: the root's
  // buffer with every block (null elsewhere, or when the root declined).
  RowsUp(Engine& e, const CollArgs& a, const Plan& plan, std::size_t mine, const Blocks& blocks, const std::byte* send,
         std::byte* recv)
      : e_(e),
        a_(a),
        me_(e.team().rank()),
        cap_(lengths_data_bytes(plan)),
        mine_(mine),
        blocks_(blocks),
        send_(send),
        recv_(recv) {
    own_.len = send ? mine : 0;
    own_.address = reinterpret_cast<std::uint64_t>(send);
  }

  // Mine: the row and the block that rides; the others': the most a row
  // takes, which is beyond the line: every row is in its rank's slot.
  std::size_t up_len(const Lane& l, int u) const {
    if (u != l.g->me) return kLengthsRowBytes + cap_;
    const std::size_t rides = rides_mine() ? mine_ : 0;
    return std::max(kLengthsRowBytes + rides, kInlineBytes + 1);
  }
  std::size_t uniform_up_len() const { return kVaries; }
  const std::byte* own_up() { return reinterpret_cast<const std::byte*>(&own_); }
  void put_up(std::byte* area, const std::byte* /*mine*/, std::size_t /*len*/) {
    std::memcpy(area, &own_, sizeof own_);
    if (rides_mine() && mine_) copy_to_shared(area + sizeof own_, send_, mine_);
  }
  // The root (a flat group of single ranks: unit u is rank packed[u]).
  void combine(const Lane& l, LaneWork& w, const int* units, int count, std::byte* /*out*/) {
    if (!recv_) return;
    auto rank_of = [&](int u) { return l.packed[l.unit_off[static_cast<std::size_t>(u)]]; };
    auto row_of = [&](int u) {
      Row r;
      std::memcpy(&r, w.src[static_cast<std::size_t>(u)], sizeof r);
      return r;
    };
    for (int i = 0; i < count; ++i) {  // every length first: nothing is copied when one differs
      const int q = rank_of(units[i]);
      const std::size_t len = q == me_ ? mine_ : row_of(units[i]).len;
      if (len != blocks_.len(q)) {
        error_ = counts_error(a_, q, len, blocks_.len(q));
        word_ = make_status(Errc::invalid_argument, Field::counts, q);
        return;
      }
    }
    for (int i = 0; i < count; ++i) {
      const int u = units[i], q = rank_of(u);
      const std::size_t len = blocks_.len(q);
      std::byte* to = recv_ + blocks_.at(q);
      if (len == 0 || (q == me_ && to == send_)) continue;  // nothing, or in place
      if (q == me_) {
        std::memcpy(to, send_, len);
      } else if (len <= cap_) {
        std::memcpy(to, w.src[static_cast<std::size_t>(u)] + sizeof(Row), len);
      } else if (Status st = cma_read(e_.team().pid_of(q), to, row_of(u).address, len); !st.ok() && word_ == 0) {
        error_ = Status(st.code(), cat(to_string(a_.kind), ": single copy: rank ", me_, " reading from rank ", q,
                                       "'s buffer: ", st.message()));
        word_ = make_status(st.code(), Field::none, q);
      }
    }
  }
  StatusWord data_error() const { return word_; }

  // After the step: my block did not ride, so the root reads it from my
  // buffer until its ack.
  bool waits() const { return send_ && !rides_mine() && me_ != a_.root; }
  // The step's error on this rank: what the root found, in full.
  Status explain(Status st) const { return error_.ok() ? std::move(st) : error_; }

 private:
  bool rides_mine() const { return mine_ <= cap_; }

  Engine& e_;
  const CollArgs& a_;
  int me_;
  std::size_t cap_, mine_;
  const Blocks& blocks_;
  const std::byte* send_;
  std::byte* recv_;
  Row own_;
  StatusWord word_ = 0;
  Status error_;
};

static_assert(PayloadHooks<RowsUp>);
static_assert(HasPutUp<RowsUp>);
static_assert(HasDataError<RowsUp>);

// Scatterv's rows, in the down area of the root's release: an entry per
// rank (its block's length, where its bytes are in the area, or kByCma and
// where they are in the root's buffer), then the blocks that ride, back to
// back. A block rides when it is at most the plan's lengths_data bytes and
// still fits the area, in rank order.
struct Entry {
  std::uint64_t len = 0;
  std::uint64_t at = 0;       // offset in the area, or kByCma
  std::uint64_t address = 0;  // kByCma: where it is in the root
};
constexpr std::uint64_t kByCma = ~std::uint64_t{0};

class RowsDown : public Payload {
 public:
  // `send`: the root's buffer with every block (null elsewhere, or bad
  // arguments); `recv`: where my block goes (null: none, or in place).
  RowsDown(Engine& e, const CollArgs& a, const Plan& plan, std::size_t mine, const Blocks& blocks,
           const std::byte* send, std::byte* recv)
      : e_(e),
        a_(a),
        me_(e.team().rank()),
        declined_(a.abstain != Errc::ok),
        mine_(mine),
        blocks_(blocks),
        send_(send),
        recv_(recv) {
    const int n = e.team().size();
    if (me_ != a.root || !send) return;
    const std::size_t room = e.bcast_bytes(), cap = lengths_data_bytes(plan);
    at_.assign(static_cast<std::size_t>(n), kByCma);
    std::size_t off = static_cast<std::size_t>(n) * sizeof(Entry);
    for (int q = 0; q < n; ++q) {
      const std::size_t len = blocks.len(q);
      if (q == me_ || len == 0) continue;
      if (len <= cap && off + len <= room) {
        at_[static_cast<std::size_t>(q)] = off;
        off += len;
      } else {
        readers_.push_back(q);
      }
    }
    rows_len_ = off;
  }

  // Where the rows are: the area, whatever their length.
  std::size_t down_len(const Lane& /*l*/) const { return std::max(rows_len_, kInlineBytes + 1); }
  const std::byte* top_down(const std::byte* /*up*/) { return send_; }
  // The root: the rows straight into the area.
  void forward(const Lane* /*parent*/, const Lane& /*child*/, const std::byte* /*from*/, std::byte* out) {
    if (at_.empty()) return;
    released_ = true;
    for (std::size_t q = 0; q < at_.size(); ++q) {
      const int r = static_cast<int>(q);
      const Entry en{blocks_.len(r), at_[q], reinterpret_cast<std::uint64_t>(send_ + blocks_.at(r))};
      std::memcpy(out + q * sizeof(Entry), &en, sizeof en);
      if (at_[q] != kByCma) copy_to_shared(out + at_[q], send_ + blocks_.at(r), en.len);
    }
  }
  void deliver(int lane, const Lane* l, const std::byte* data) {
    if (lane != 0 || !l || declined_) return;  // (a call every rank declined moves nothing)
    if (me_ == a_.root) {
      if (send_ && mine_ != blocks_.len(me_)) return found(counts_error(a_, me_, mine_, blocks_.len(me_)));
      if (recv_ && send_ && mine_) std::memcpy(recv_, send_ + blocks_.at(me_), mine_);
      return;
    }
    Entry en;
    std::memcpy(&en, data + static_cast<std::size_t>(me_) * sizeof(Entry), sizeof en);
    if (en.len != mine_) return found(counts_error(a_, me_, mine_, en.len));
    if (mine_ == 0 || !recv_) return;
    if (en.at != kByCma) {
      if (en.at + en.len > e_.bcast_bytes()) {
        return found(Status(Errc::internal, cat("scatterv: rank ", a_.root, "'s rows put my block past the area")));
      }
      std::memcpy(recv_, data + en.at, mine_);
    } else if (Status st = cma_read(e_.team().pid_of(a_.root), recv_, en.address, mine_); !st.ok()) {
      found(Status(st.code(), cat("scatterv: single copy: rank ", me_, " reading from rank ", a_.root,
                                  "'s buffer: ", st.message())));
    }
  }
  StatusWord data_error() const { return word_; }

  // After the step, on the root that released the rows: the ranks that read
  // their blocks from its buffer, which it waits for.
  const std::vector<int>& readers() const { return released_ ? readers_ : none_; }
  Status explain(Status st) const { return error_.ok() ? std::move(st) : error_; }

 private:
  void found(Status st) {
    word_ = make_status(st.code(), st.code() == Errc::invalid_argument ? Field::counts : Field::none, me_);
    error_ = std::move(st);
  }

  Engine& e_;
  const CollArgs& a_;
  int me_;
  bool declined_;
  std::size_t mine_;
  const Blocks& blocks_;
  const std::byte* send_;
  std::byte* recv_;
  std::vector<std::uint64_t> at_;  // the root: where each rank's block goes in the area
  std::vector<int> readers_, none_;
  std::size_t rows_len_ = 0;
  bool released_ = false;
  StatusWord word_ = 0;
  Status error_;
};

static_assert(PayloadHooks<RowsDown>);
static_assert(HasForward<RowsDown>);
static_assert(HasDataError<RowsDown>);

// The ack of rank `rank`'s unit of `step` (teams that make one-pass calls
// are one group: lane 0).
const Flag& ack_of(Engine& e, int rank, std::uint64_t step) {
  const Lane& l = e.lanes().front();
  return mline(l, l.lroot(rank), step).ack;
}

// Blocking: waits for `f` to reach `step` (FlagAwait in place).
Status wait_blocking(Engine& e, const Flag& f, std::uint64_t step, int peer) {
  FlagAwait w(e, f, step, peer);
  w.advance(true);
  return w.await_resume();
}

}  // namespace

Status counts_error(const CollArgs& a, int q, std::size_t theirs, std::size_t expected) {
  const std::size_t es = size_of(a.dtype);
  return Status(Errc::invalid_argument,
                cat(to_string(a.kind), ": rank ", q, " passed count ", theirs / es, ", the root's counts say ",
                    expected / es, " (rank ", a.root, " is the root)"));
}

Task gatherv_rows(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, std::size_t mine,
                  const Blocks& blocks, const std::byte* send, std::byte* recv) {
  RowsUp p(e, a, plan, mine, blocks, local ? nullptr : send, local ? nullptr : recv);
  const std::uint64_t step = e.next_step();
  Status st = co_await run_step(e, p, plan.first, step, header_for(a, e.team().size()), local, a.root);
  if (!st.ok()) co_return p.explain(std::move(st));
  if (p.waits()) co_return co_await until(e, ack_of(e, a.root, step), step, a.root);
  co_return Status{};
}

Status gatherv_rows_blocking(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header, const Plan& plan,
                             std::size_t mine, const Blocks& blocks, const std::byte* send, std::byte* recv) {
  RowsUp p(e, a, plan, mine, blocks, local ? nullptr : send, local ? nullptr : recv);
  const std::uint64_t step = e.next_step();
  Status st = block_on_step(e, p, plan.first, step, header, local, a.root);
  if (!st.ok()) return p.explain(std::move(st));
  if (!p.waits()) return {};
  return wait_blocking(e, ack_of(e, a.root, step), step, a.root);
}

Task scatterv_rows(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, std::size_t mine,
                   const Blocks& blocks, const std::byte* send, std::byte* recv) {
  RowsDown p(e, a, plan, mine, blocks, local ? nullptr : send, local ? nullptr : recv);
  const std::uint64_t step = e.next_step();
  Status st = co_await run_step(e, p, plan.first, step, header_for(a, e.team().size()), local, a.root);
  // The ranks reading from my buffer, even after an error here: it stays put until they are done.
  for (int q : p.readers()) {
    Status w = co_await until(e, ack_of(e, q, step), step, q);
    if (st.ok()) st = std::move(w);
  }
  co_return p.explain(std::move(st));
}

Status scatterv_rows_blocking(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header, const Plan& plan,
                              std::size_t mine, const Blocks& blocks, const std::byte* send, std::byte* recv) {
  RowsDown p(e, a, plan, mine, blocks, local ? nullptr : send, local ? nullptr : recv);
  const std::uint64_t step = e.next_step();
  Status st = block_on_step(e, p, plan.first, step, header, local, a.root);
  for (int q : p.readers()) {
    Status w = wait_blocking(e, ack_of(e, q, step), step, q);
    if (st.ok()) st = std::move(w);
  }
  return p.explain(std::move(st));
}

}  // namespace osmp
