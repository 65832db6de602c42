// The lazy gatherv and scatterv (rows_in_first, plan.hpp): in a team that
// makes one-pass calls (OSMP_CHECK=lazy) and may copy with CMA they make one
// pass, as gather and scatter do, whatever their size.
//
// Gatherv goes up: every rank puts its row in its line (short: its length
// and block) or slot (the length of its block, then the block itself when it
// is at most the plan's lengths_data bytes), then returns, or, when its block
// did not ride, waits for the root's ack of the step. The root compares every
// length with its counts first; then, before its ack, it copies the blocks
// that rode and writes in the slot of each rank whose block did not ride
// where that block goes in its buffer. After the ack those ranks write their
// blocks there by CMA, all at once, while the root copies its own, and
// publish their line's `part` (with the outcome), which the root waits for.
//
// Scatterv goes down: the root's release line (short) or area holds every
// rank's length and where its block is (in the rows, or in the root's
// buffer); each rank compares its own length, copies its block or reads it
// by CMA, while the root waits for the acks of those that read.
//
// A length that differs is an error that the rank that reads it returns at
// once, naming both counts, and raises for the others (they learn it in
// their next call, as every one-pass mismatch: docs/protocol.md); nothing
// is copied into its buffer then.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <vector>

#include "collectives/ops/common.hpp"
#include "shm/cma.hpp"

namespace osmp {
namespace {

struct Row {
  std::uint64_t len = 0;  // the block's bytes
  // Where the block goes in the root's buffer, when it did not ride: written
  // there by the root before its ack (0, as its rank writes the row: nowhere;
  // the root found an error).
  std::uint64_t to = 0;
};
static_assert(sizeof(Row) == kLengthsRowBytes);

// The line of rank `rank`'s unit in `step` (teams that make one-pass calls
// are one group: lane 0).
CtrlLine& line_of(Engine& e, int rank, std::uint64_t step) {
  const Lane& l = e.lanes().front();
  return mline(l, l.lroot(rank), step);
}

// A rank's mark that it got to its single copy of a step (may_copy,
// ops/common.hpp): its line's ack word.
std::uint32_t& copy_word(Engine& e, int rank, std::uint64_t step) { return line_of(e, rank, step).ack.word; }

// A short row, in the line itself (its flag's cache line: one line to move
// instead of two): a first byte of 1, then at 2 a 16-bit length each
// (gatherv: one; scatterv: every rank's), then the bytes. A first byte of 0
// says the row is in the slot (gatherv) or the release's area (scatterv).
inline constexpr std::size_t kShortAt = 2;
inline bool short_row(const std::byte* line) { return line[0] == std::byte{1}; }
inline std::size_t short_len(const std::byte* line, std::size_t i) {
  std::uint16_t len;
  std::memcpy(&len, line + kShortAt + 2 * i, sizeof len);
  return len;
}
inline void put_short_len(std::byte* line, std::size_t i, std::size_t len) {
  const auto v = static_cast<std::uint16_t>(len);
  std::memcpy(line + kShortAt + 2 * i, &v, sizeof v);
}

// What both payloads share: the call, this rank's side of it, and what it
// found (its status word for data_error, and the error this rank returns).
class RowsCall : public Payload {
 public:
  StatusWord data_error() const { return word_; }

 protected:
  // `send`, `recv`: as the operation's; `holder`: I am the root, with good
  // arguments, in a call not declined (the one that checks or writes the
  // rows); `mine`: my own block's bytes.
  RowsCall(Engine& e, const CollArgs& a, std::uint64_t step, bool holder, std::size_t mine, const Blocks& blocks,
           const std::byte* send, std::byte* recv)
      : e_(e),
        a_(a),
        step_(step),
        holder_(holder),
        me_(e.team().rank()),
        mine_(mine),
        blocks_(blocks),
        send_(send),
        recv_(recv) {}
  // What this rank found, raised naming `rank`: a count that differs
  // (Field::counts), else a failed copy.
  void found(Status st, int rank) {
    word_ = make_status(st.code(), st.code() == Errc::invalid_argument ? Field::counts : Field::none, rank);
    error_ = std::move(st);
  }

  Engine& e_;
  const CollArgs& a_;
  std::uint64_t step_;
  bool holder_;
  int me_;
  std::size_t mine_;
  const Blocks& blocks_;
  const std::byte* send_;
  std::byte* recv_;
  StatusWord word_ = 0;
  Status error_;
};

class RowsUp : public RowsCall {
 public:
  // A writer's outcome in its `part` word (0: written).
  static constexpr std::uint32_t kFailed = 1, kSkipped = 2;

  // `send`: my block (null: none, or bad arguments); `recv`: the root's
  // buffer with every block.
  RowsUp(Engine& e, const CollArgs& a, const Plan& plan, std::uint64_t step, bool holder, std::size_t mine,
         const Blocks& blocks, const std::byte* send, std::byte* recv)
      : RowsCall(e, a, step, holder, mine, blocks, send, recv), cap_(lengths_data_bytes(plan)) {
    own_.len = send ? mine : 0;
  }

  // Every row starts in its rank's line: short, whole there; else it says
  // the row is in the rank's slot.
  std::size_t up_len(const Lane& /*l*/, int /*u*/) const { return kInlineBytes; }
  std::size_t uniform_up_len() const { return kInlineBytes; }
  const std::byte* own_up() { return reinterpret_cast<const std::byte*>(&own_); }
  void put_up(std::byte* line, const std::byte* /*mine*/, std::size_t /*len*/) {
    const std::size_t len = own_.len;  // 0 without a block (bad arguments: the root reads my status)
    if (len + kShortAt + 2 <= kInlineBytes) {
      line[0] = std::byte{1};
      put_short_len(line, 0, len);
      if (len) std::memcpy(line + kShortAt + 2, send_, len);
      return;
    }
    line[0] = std::byte{0};
    const Lane& l = e_.lanes().front();
    std::byte* slot = up_ptr(l, kInlineBytes + 1, l.g->me, step_);
    std::memcpy(slot, &own_, sizeof own_);
    if (rides_mine()) copy_to_shared(slot + sizeof own_, send_, len);
  }
  // The root (a flat group of single ranks: unit u is rank packed[u]).
  void combine(const Lane& l, LaneWork& w, const int* units, int count, std::byte* /*out*/) {
    if (!holder_) return;
    auto rank_of = [&](int u) { return l.packed[l.unit_off[static_cast<std::size_t>(u)]]; };
    // Every length first (mine was checked against my counts already):
    // nothing is copied, and nobody told where to write, when one differs.
    for (int i = 0; i < count; ++i) {
      const int q = rank_of(units[i]);
      if (q == me_) continue;
      const std::size_t len = seen(l, w, units[i]).len;
      if (len != blocks_.len(q)) {
        found(counts_error(a_, q, len, blocks_.len(q)), q);
        return;
      }
    }
    writers_.clear();
    for (int i = 0; i < count; ++i) {
      const int u = units[i], q = rank_of(u);
      const std::size_t len = blocks_.len(q);
      std::byte* to = recv_ + blocks_.at(q);
      if (len == 0 || q == me_) continue;  // nothing, or mine (own_block())
      if (const Seen row = seen(l, w, u); row.data) {
        std::memcpy(to, row.data, len);
        continue;
      }
      // Its rank writes it there after my ack (plain: published with the ack).
      const auto at = reinterpret_cast<std::uint64_t>(to);
      std::memcpy(up_ptr(l, kInlineBytes + 1, u, step_) + offsetof(Row, to), &at, sizeof at);
      writers_.push_back(q);
    }
    if (writers_.empty()) own_block();  // else after my ack, while they write (finish())
  }
  // After the step: whether this rank has copies to make or wait for (a
  // rank whose block did not ride; the root that told ranks to write).
  bool finishing() const { return writes_mine() || !writers_.empty(); }
  // After a step that ended with `st`: a rank whose block did not ride, once
  // the step went well, waits for the root's ack, writes its block where its
  // row says by CMA, then publishes its `part` with the outcome. The root
  // copies its own block, then waits for each writer's `part`: all of them,
  // even after an error (its buffer stays put until they are done).
  Task finish(Status st) {
    const int root = a_.root;
    if (me_ != root) {
      if (!st.ok()) co_return st;
      OSMP_CO_RETURN_IF_ERROR(co_await until(e_, line_of(e_, root, step_).ack, step_, root));
      const Lane& l = e_.lanes().front();
      Row r;
      std::memcpy(&r, up_ptr(l, kInlineBytes + 1, l.g->me, step_), sizeof r);
      if (r.to == 0) co_return Status{};  // the root found an error, which it raised
      // Marked (may_copy): the root waits for my `part` now, even when I skip.
      Status stop = may_copy(e_, copy_word(e_, me_, step_), step_);
      const bool skip = !stop.ok();
      Status wrote = skip ? std::move(stop) : cma_write(e_.team().pid_of(root), r.to, send_, mine_);
      Flag& part = line_of(e_, me_, step_).part;
      const std::uint32_t outcome = skip ? kSkipped : wrote.ok() ? 0 : kFailed;
      std::atomic_ref<std::uint32_t>(part.word).store(outcome, std::memory_order_relaxed);
      publish(part, step_, e_.team().waiter().may_sleep());  // after my copy and its outcome
      if (wrote.ok() || skip) co_return wrote;               // skipped: an error raised elsewhere
      co_return Status(wrote.code(), cat(to_string(a_.kind), ": single copy: rank ", me_, " writing into rank ", root,
                                         "'s buffer: ", wrote.message()));
    }
    if (st.ok()) own_block();
    Status first = std::move(st);
    for (int q : writers_) {
      Flag& part = line_of(e_, q, step_).part;
      Status got = outlive_copier(e_, copy_word(e_, q, step_), part, step_, q, co_await until(e_, part, step_, q));
      // The outcome, stored before the release of `part` and read after its
      // acquire of exactly this step (relaxed, through atomic_ref: a later
      // step may rewrite the word).
      const std::uint32_t outcome = got.ok() && part.value.load(std::memory_order_acquire) == step_
                                        ? std::atomic_ref<std::uint32_t>(part.word).load(std::memory_order_relaxed)
                                        : 0;
      if (outcome == kSkipped) {
        got = copy_stopped(e_);  // it saw an error raised elsewhere, or the team stopped
      } else if (outcome != 0) {
        got = Status(Errc::system,
                     cat(to_string(a_.kind), ": single copy: rank ", q, " could not write its block (CMA)"));
      }
      if (first.ok()) first = std::move(got);
    }
    co_return first;
  }
  // The step's error on this rank: what the root found, in full.
  Status explain(const Status& st) const { return error_.ok() ? st : error_; }

 private:
  bool rides_mine() const { return mine_ <= cap_; }
  // A block that does not ride has a long row, in the slot (the root writes
  // `to` there): the slots hold far more than a line (kRowsDataBytes).
  bool writes_mine() const {
    return send_ && !rides_mine() && own_.len + kShortAt + 2 > kInlineBytes && me_ != a_.root;
  }
  // The root: my own block into my buffer (in place: it is there).
  void own_block() {
    std::byte* to = recv_ + blocks_.at(me_);
    if (const std::size_t len = blocks_.len(me_); len && to != send_) std::memcpy(to, send_, len);
  }
  // Unit u's row as the root sees it: its length, and its bytes where they
  // rode (else null: its rank writes them).
  struct Seen {
    std::size_t len;
    const std::byte* data;
  };
  Seen seen(const Lane& l, const LaneWork& w, int u) const {
    const std::byte* line = w.src[static_cast<std::size_t>(u)];
    if (short_row(line)) return {short_len(line, 0), line + kShortAt + 2};
    const std::byte* slot = up_ptr(l, kInlineBytes + 1, u, step_);
    Row r;
    std::memcpy(&r, slot, sizeof r);
    return {r.len, r.len <= cap_ ? slot + sizeof r : nullptr};
  }

  std::size_t cap_;
  Row own_;
  std::vector<int> writers_;  // the root: the ranks it told where to write
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
static_assert(sizeof(Entry) == kRowsEntryBytes);
constexpr std::uint64_t kByCma = ~std::uint64_t{0};

class RowsDown : public RowsCall {
 public:
  // `send`: the root's buffer with every block; `recv`: where my block
  // goes (null: none, or in place).
  RowsDown(Engine& e, const CollArgs& a, const Plan& plan, std::uint64_t step, bool holder, std::size_t mine,
           const Blocks& blocks, const std::byte* send, std::byte* recv)
      : RowsCall(e, a, step, holder, mine, blocks, send, recv),
        declined_(a.abstain != Errc::ok),
        n_(e.team().size()),
        room_(e.bcast_bytes()),
        cap_(lengths_data_bytes(plan)) {
    if (!holder) return;
    // Short: every length and block in the release line itself (nothing
    // placed, nobody reads by CMA: no per-call work beyond this sum).
    std::size_t bytes = kShortAt + 2 * static_cast<std::size_t>(n_);
    for (int q = 0; q < n_ && bytes <= kInlineBytes; ++q) bytes += q == me_ ? 0 : blocks.len(q);
    short_ = bytes <= kInlineBytes;
    if (!short_) rows_len_ = place([](int, std::uint64_t) {}, [](int) {});
  }

  // Where the rows are: the release line when short, else the area (the
  // line says which; every rank but the root looks there first).
  std::size_t down_len(const Lane& /*l*/) const {
    return short_ || me_ != a_.root ? kInlineBytes : std::max(rows_len_, kInlineBytes + 1);
  }
  const std::byte* top_down(const std::byte* /*up*/) { return send_; }
  // The root: the rows straight into the release line or the area.
  void forward(const Lane* /*parent*/, const Lane& child, const std::byte* /*from*/, std::byte* out) {
    if (!holder_) return;
    if (short_) {
      out[0] = std::byte{1};
      std::size_t off = kShortAt + 2 * static_cast<std::size_t>(n_);
      for (std::size_t q = 0; q < static_cast<std::size_t>(n_); ++q) {
        const int r = static_cast<int>(q);
        put_short_len(out, q, blocks_.len(r));
        if (r == me_ || blocks_.len(r) == 0) continue;
        std::memcpy(out + off, send_ + blocks_.at(r), blocks_.len(r));
        off += blocks_.len(r);
      }
      return;
    }
    inline_of(rel_line(child, step_))[0] = std::byte{0};  // the rows are in the area
    // Every entry by CMA, then place() puts the blocks that ride.
    for (int r = 0; r < n_; ++r) {
      const std::size_t len = blocks_.len(r);  // (a buffer may be null where every count is 0)
      const Entry en{len, kByCma, len ? reinterpret_cast<std::uint64_t>(send_ + blocks_.at(r)) : 0};
      std::memcpy(out + static_cast<std::size_t>(r) * sizeof(Entry), &en, sizeof en);
    }
    by_cma_.clear();
    place(
        [&](int r, std::uint64_t at) {
          std::memcpy(out + static_cast<std::size_t>(r) * sizeof(Entry) + offsetof(Entry, at), &at, sizeof at);
          copy_to_shared(out + at, send_ + blocks_.at(r), blocks_.len(r));
        },
        [&](int r) { by_cma_.push_back(r); });
  }
  void deliver(int lane, const Lane* l, const std::byte* data) {
    if (lane != 0 || !l || declined_) return;  // (a call every rank declined moves nothing)
    if (me_ == a_.root) {                      // my own count was checked against my counts already
      if (holder_ && recv_ && mine_) std::memcpy(recv_, send_ + blocks_.at(me_), mine_);
      return;
    }
    if (short_row(data)) {  // my block after those of the ranks before me (but the root)
      if (const std::size_t len = short_len(data, static_cast<std::size_t>(me_)); len != mine_)
        return found(counts_error(a_, me_, mine_, len));
      std::size_t off = kShortAt + 2 * static_cast<std::size_t>(n_);
      for (int q = 0; q < me_; ++q) off += q == a_.root ? 0 : short_len(data, static_cast<std::size_t>(q));
      if (mine_ && recv_) std::memcpy(recv_, data + off, mine_);
      return;
    }
    data = down_ptr(*l, kInlineBytes + 1, step_);  // the area
    Entry en;
    std::memcpy(&en, data + static_cast<std::size_t>(me_) * sizeof(Entry), sizeof en);
    if (en.len != mine_) return found(counts_error(a_, me_, mine_, en.len));
    if (mine_ == 0 || !recv_) return;
    if (en.at != kByCma) {
      const std::size_t entries = static_cast<std::size_t>(n_) * sizeof(Entry);
      if (en.at < entries || en.at > room_ || en.len > room_ - en.at) {
        return found(Status(Errc::internal, cat("scatterv: rank ", a_.root, "'s rows put my block outside the area")));
      }
      std::memcpy(recv_, data + en.at, mine_);
    } else if (Status stop = may_copy(e_, copy_word(e_, me_, step_), step_); !stop.ok()) {
      skipped_ = std::move(stop);  // raised elsewhere, or the team stopped: the call fails anyway
    } else if (Status st = cma_read(e_.team().pid_of(a_.root), recv_, en.address, mine_); !st.ok()) {
      found(Status(st.code(), cat("scatterv: single copy: rank ", me_, " reading from rank ", a_.root,
                                  "'s buffer: ", st.message())));
    }
  }
  // After the step, on the root that released the rows: whether ranks read
  // their blocks from its buffer; finish() waits for their acks (all of
  // them, even after an error: the buffer stays put until they are done).
  bool finishing() const { return !by_cma_.empty(); }
  Task finish(Status st) {
    Status first = std::move(st);
    for (int q : by_cma_) {
      const Flag& ack = line_of(e_, q, step_).ack;
      Status got = outlive_copier(e_, copy_word(e_, q, step_), ack, step_, q, co_await until(e_, ack, step_, q));
      if (first.ok()) first = std::move(got);
    }
    co_return first;
  }
  Status explain(const Status& st) const {
    if (!error_.ok()) return error_;
    return st.ok() ? skipped_ : st;
  }

 private:
  void found(Status st) { RowsCall::found(std::move(st), me_); }

  // The root, rows not short: where the blocks that ride go in the area,
  // in rank order after the entries (each at most the plan's lengths_data
  // bytes, while they fit), each handed to ride(rank, offset); the others
  // (read from the root's buffer by CMA) to by_cma(rank). Returns the rows'
  // bytes. The one rule for the constructor and forward().
  template <class Ride, class ByCma>
  std::size_t place(Ride&& ride, ByCma&& by_cma) const {
    std::size_t off = static_cast<std::size_t>(n_) * sizeof(Entry);
    for (int q = 0; q < n_; ++q) {
      const std::size_t len = blocks_.len(q);
      if (q == me_ || len == 0) continue;
      if (len <= cap_ && off + len <= room_) {
        ride(q, off);
        off += len;
      } else {
        by_cma(q);
      }
    }
    return off;
  }

  bool declined_;
  int n_;
  std::size_t room_, cap_;
  std::size_t rows_len_ = 0;
  bool short_ = false;       // the root: every row in the release line
  std::vector<int> by_cma_;  // the root: the ranks that read their blocks from its buffer (forward())
  Status skipped_;           // my block not read: an error was raised meanwhile
};

static_assert(PayloadHooks<RowsDown>);
static_assert(HasForward<RowsDown>);
static_assert(HasDataError<RowsDown>);

}  // namespace

Status counts_error(const CollArgs& a, int q, std::size_t theirs, std::size_t expected) {
  const std::size_t es = size_of(a.dtype);
  return Status(Errc::invalid_argument,
                cat(to_string(a.kind), ": rank ", q, " passed count ", theirs / es, ", the root's counts say ",
                    expected / es, " (rank ", a.root, " is the root)"));
}

namespace {

bool holds(Engine& e, const CollArgs& a, StatusWord local) {
  return e.team().rank() == a.root && local == 0 && a.abstain == Errc::ok;
}

// The step, then the single copies after it and their waits, each outlived
// (outlive_copier): a rank whose buffer others copy from or into waits for
// them even when its step failed.
template <class P>
Task rows_call(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, std::size_t mine, const Blocks& blocks,
               const std::byte* send, std::byte* recv) {
  const std::uint64_t step = e.next_step();
  P p(e, a, plan, step, holds(e, a, local), mine, blocks, local ? nullptr : send, local ? nullptr : recv);
  Status st = co_await run_step(e, p, plan.first, step, header_for(a, a.kind, e.team().size()), local, a.root);
  if (p.finishing()) st = co_await p.finish(std::move(st));
  co_return p.explain(st);
}

// K: gatherv (RowsUp) or scatterv (RowsDown), the one-group kinds their step may take.
template <class P, OpKind K>
Status rows_call_blocking(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header, const Plan& plan,
                          std::size_t mine, const Blocks& blocks, const std::byte* send, std::byte* recv) {
  const std::uint64_t step = e.next_step();
  P p(e, a, plan, step, holds(e, a, local), mine, blocks, local ? nullptr : send, local ? nullptr : recv);
  Status st = block_on_step<K>(e, p, plan.first, step, header, local, a.root);
  if (p.finishing()) st = p.finish(std::move(st)).run();  // large calls only: a frame for the copies
  return p.explain(st);
}

}  // namespace

Task gatherv_rows(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, std::size_t mine,
                  const Blocks& blocks, const std::byte* send, std::byte* recv) {
  return rows_call<RowsUp>(e, a, local, plan, mine, blocks, send, recv);
}
Status gatherv_rows_blocking(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header, const Plan& plan,
                             std::size_t mine, const Blocks& blocks, const std::byte* send, std::byte* recv) {
  return rows_call_blocking<RowsUp, OpKind::gatherv>(e, a, local, header, plan, mine, blocks, send, recv);
}
Task scatterv_rows(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, std::size_t mine,
                   const Blocks& blocks, const std::byte* send, std::byte* recv) {
  return rows_call<RowsDown>(e, a, local, plan, mine, blocks, send, recv);
}
Status scatterv_rows_blocking(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header, const Plan& plan,
                              std::size_t mine, const Blocks& blocks, const std::byte* send, std::byte* recv) {
  return rows_call_blocking<RowsDown, OpKind::scatterv>(e, a, local, header, plan, mine, blocks, send, recv);
}

}  // namespace osmp
