// Shared by the operations: headers, the plan, the first step, chunk steps.
#pragma once

#include <algorithm>
#include <atomic>

#include "collectives/arguments.hpp"
#include "collectives/calls.hpp"
#include "collectives/engine.hpp"
#include "collectives/payloads.hpp"
#include "collectives/requests.hpp"
#include "collectives/step.hpp"
#include "collectives/task.hpp"
#include "collectives/walk.hpp"

namespace osmp {

// `n`: the team's size. The v-variants' header carries no count of their
// own: allgatherv's and reduce_scatter's counts' digest, and nothing for
// gatherv, scatterv and alltoallv, whose ranks pass different counts
// (gatherv's and scatterv's first step compares them with the root's:
// share_lengths; alltoallv's counts rows: its first step's where
// pairs_in_first, else agree_pairs, ops/flat.cpp).
// `kind` is a.kind: a constant where the operation is (Op::kKind), so that
// its description folds on the common path.
[[gnu::always_inline]] inline OpHeader header_for(const CollArgs& a, OpKind kind, int n) {
  OpHeader h;
  h.kind = static_cast<std::uint8_t>(kind);
  h.dtype = static_cast<std::uint8_t>(a.dtype);
  h.op = static_cast<std::uint8_t>(a.op);
  // A root outside the team fails validation; the header only carries it.
  h.root = static_cast<std::int16_t>(a.root >= -1 && a.root <= kMaxTeamRanks ? a.root : kMaxTeamRanks);
  h.earlier = a.earlier;
  h.count = !is_varied(kind) ? a.count : counts_step(kind) ? 0 : counts_digest(a.counts, n);
  h.declined = a.abstain == Errc::unsupported ? 1 : 0;
  return h;
}

inline Status Engine::number(const CollArgs& a, OpKind kind, OpHeader& h) {
  h = header_for(a, kind, team_.size());
  h.earlier = calls_->earlier();
  OSMP_RETURN_IF_ERROR(calls_->enter(h));
  found_ = 0;
  agreed_error_ = false;
  peek_seen_rank_ = -1;
  return {};
}

// Whether CMA's single copy carries a call whose longest block is `most`
// bytes: the plan's Rest::cma, or for gatherv, scatterv and alltoallv, whose
// longest block their counts step found, the plan's rule on it.
inline bool carried_by_cma(const Engine& e, const Plan& plan, OpKind k, std::size_t most) {
  return plan.rest == Rest::cma ||
         (describe(k).copies.cma == CmaPath::after_counts && cma_carries(k, most, e.settings()));
}

// What a call on this rank plans on (`local`: its own argument error, with
// which it takes part without data); `kind` as header_for's.
[[gnu::always_inline]] inline PlanInput plan_input(const Engine& e, const CollArgs& a, OpKind kind, StatusWord local) {
  PlanInput in{kind, static_cast<std::size_t>(a.count), size_of(a.dtype), local == 0};
  in.declines = a.abstain == Errc::unsupported;
  if (plans_on_total(kind)) in.total = counts_total(a.counts, e.shape().ranks);
  if (plans_on_longest(kind)) in.longest = counts_longest(a.counts, e.shape().ranks);
  return in;
}
// The plan of that call, a copy (the engine's kept plan changes with the
// next call of the operation that plans otherwise).
[[gnu::always_inline]] inline Plan plan_for(const Engine& e, const CollArgs& a, OpKind kind, StatusWord local) {
  return e.plan(plan_input(e, a, kind, local));
}

// The first step of every operation: headers up, verdict down, with the
// payload's data when the plan says it fits (co_await it).
template <PayloadHooks P>
StepAwait<P> first_step(Engine& e, P& p, const CollArgs& a, StatusWord local, const Plan& plan) {
  return run_step(e, p, plan.first, e.next_step(), header_for(a, a.kind, e.team().size()), local, a.root);
}

// A payload that moves nothing: barrier, and the first step of a call whose
// data follows.
class NoPayload : public Payload {};
static_assert(PayloadHooks<NoPayload>);

// Runs the plan's chunk steps; `prepare(off, len)` sets the payload to bytes
// [off, off + len) of the call's data. A coroutine: `plan`, `p` and what
// `prepare` refers to live in the awaiting operation's frame.
template <PayloadHooks P, class F>
Task chunk_steps(Engine& e, const Plan& plan, std::size_t bytes, int root, P& p, F prepare) {
  std::uint64_t first = 0;
  for (std::size_t c = 0; c < plan.chunks; ++c) {
    std::uint64_t step = e.next_step();
    if (c == 0) first = step;
    const std::size_t off = c * plan.chunk_bytes;
    prepare(off, std::min(plan.chunk_bytes, bytes - off));
    OSMP_CO_RETURN_IF_ERROR(co_await run_step(e, p, plan.chunk, step, OpHeader{}, 0, root, first));
  }
  co_return Status{};
}

// The header step of a call whose data follows (plan.rest != none).
Task header_step(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan);

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// An operation `Op` is its one-step payload and its other plans:
//   static P one_step(Engine&, const CollArgs&, StatusWord local): the
//     payload of a call whose plan is one step (plan.rest == none: small
//     calls, where the data rides with the headers);
//   static Task steps(Engine&, CollArgs, StatusWord local, Plan): the
//     coroutine of the other plans (the header step, then chunk steps or a
//     flat path).
// `local` is 0 or this rank's argument error, which it still takes part
// with. A blocking small call runs its one step in place, with no coroutine
// frame (the hot path of small calls); a started one runs the same step in
// start_operation's frame.
// An operation whose small calls may end in a first step that the plan
// does not know to be the last (alltoallv's counts rows, where its blocks
// ride) runs that step blocking without a coroutine frame as well:
//   static Status blocking_steps(Engine&, const CollArgs&, StatusWord local,
//     const OpHeader&, const Plan&): what steps() does, blocking.
template <class Op>
concept HasBlockingSteps = requires(Engine& e, const CollArgs& a, const OpHeader& h, const Plan& p) {
  { Op::blocking_steps(e, a, StatusWord{}, h, p) } -> std::same_as<Status>;
};

// Whether a step of operation K may be of one-group kind G (so that each
// operation's blocking step instantiates only the kinds it can take): one
// pass down or up as its walk goes (gatherv and scatterv with their rows),
// the prefix for scan and exscan, and the symmetric round trip for any (a
// call that declines takes its strict plan).
constexpr bool may_take(OpKind k, OneGroupKind g) {
  const Route walk = describe(k).plan.walk;
  switch (g) {
    case OneGroupKind::down: return walk == Route::down;
    case OneGroupKind::up: return walk == Route::up;
    case OneGroupKind::prefix: return walk == Route::prefix;
    default: return true;
  }
}

// The one-group step of kind G, waited for in place (block_on_step); it
// watches its header only while a wait goes past its first poll.
template <PayloadHooks P, OneGroupKind G>
[[gnu::always_inline]] inline Status one_group_step(Engine& e, P& p, const StepPlan& plan, std::uint64_t step,
                                                    const OpHeader& header, StatusWord local, int root) {
  OneGroupStep<P, G> w(e, p, plan, step, header, local, root);
  Status st = w.run();
  return inline_step_result(e, w.state(), std::move(st));
}

// One step of a blocking call of operation K, waited for in place: what a
// StepAwait does when its engine blocks, without the awaiter (the path of
// every small blocking call), for the step the plan says: the one-group
// step of the kind it runs it as (`kind`: one_group_kind of `plan`, kept
// with the plan by the engine; base/one_group.hpp), else the Walk. Always
// inlined into run_call and run_operation: GCC left it out of line for some
// payloads once the one-group step shared the Walk's steps (about 30
// instructions more per barrier, callcost.sh). A header step in a team with
// unit acks watches its header (Engine::watch_step: peek() compares it with
// the call records while a wait lasts).
template <OpKind K, PayloadHooks P>
[[gnu::always_inline]] inline Status block_on_step(Engine& e, P& p, const StepPlan& plan, OneGroupKind kind,
                                                   std::uint64_t step, const OpHeader& header, StatusWord local,
                                                   int root) {
  if constexpr (may_take(K, OneGroupKind::symmetric)) {
    if (kind == OneGroupKind::symmetric)
      return one_group_step<P, OneGroupKind::symmetric>(e, p, plan, step, header, local, root);
  }
  if constexpr (may_take(K, OneGroupKind::down)) {
    if (kind == OneGroupKind::down) return one_group_step<P, OneGroupKind::down>(e, p, plan, step, header, local, root);
  }
  if constexpr (may_take(K, OneGroupKind::up)) {
    if (kind == OneGroupKind::up) return one_group_step<P, OneGroupKind::up>(e, p, plan, step, header, local, root);
  }
  if constexpr (may_take(K, OneGroupKind::prefix) && HasPrefix<P>) {
    if (kind == OneGroupKind::prefix)
      return one_group_step<P, OneGroupKind::prefix>(e, p, plan, step, header, local, root);
  }
  const bool watch = plan.header && e.unit_acks();
  if (watch) e.watch_step(&header);
  Walk<P> w(e, p, plan, step, header, local, root, 0, /*block=*/true);
  Status st = drive(e.team(), w);
  if (watch) e.watch_step(nullptr);
  return inline_step_result(e, w.state(), std::move(st));
}
// The same for a step whose kind is not kept (the steps after a call's
// first: alltoallv's, the rows').
template <OpKind K, PayloadHooks P>
[[gnu::always_inline]] inline Status block_on_step(Engine& e, P& p, const StepPlan& plan, std::uint64_t step,
                                                   const OpHeader& header, StatusWord local, int root) {
  const OneGroupKind kind = e.one_group() ? one_group_kind(plan, e.lanes().front()) : OneGroupKind::none;
  return block_on_step<K>(e, p, plan, kind, step, header, local, root);
}

// The plans of more than one step, blocking: `a` with the header's digest
// of the call before (header_for reads it again in those steps), `plan` a
// copy (a step may plan again: the engine keeps one plan per operation).
template <class Op>
[[gnu::noinline]] Status run_steps(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header, Plan plan) {
  CollArgs args = a;
  args.earlier = header.earlier;
  if constexpr (HasBlockingSteps<Op>) {
    return Op::blocking_steps(e, args, local, header, plan);
  } else {
    return Op::steps(e, args, local, plan).run();
  }
}

// A blocking call's walk on the general path (Engine::walk, after
// begin()): the one step in place (its payload and plan taken before
// anything may plan again), else run_steps. run_call walks so too.
template <class Op>
Status run_operation(Engine& e, const CollArgs& a, StatusWord local) {
  const OpHeader header = header_for(a, Op::kKind, e.team().size());
  const Engine::Kept& kept = e.kept(plan_input(e, a, Op::kKind, local));
  const Plan& plan = kept.plan;
  if (plan.rest != Rest::none) [[unlikely]]
    return run_steps<Op>(e, a, local, header, plan);
  auto p = Op::one_step(e, a, local);
  return block_on_step<Op::kKind>(e, p, plan.first, kept.first_kind, e.next_step(), header, local, a.root);
}

template <class Op>
Task start_operation(Engine& e, CollArgs a, StatusWord local) {
  const Plan plan = plan_for(e, a, Op::kKind, local);
  if (plan.rest != Rest::none) co_return co_await Op::steps(e, a, local, plan);
  auto p = Op::one_step(e, a, local);
  co_return co_await first_step(e, p, a, local, plan);
}

// The entries of one operation (OpEntry, collectives/engine.hpp).
template <class Op>
constexpr OpEntry entry_of() {
  return {&run_operation<Op>, &start_operation<Op>, &Engine::run_call<Op>};
}

// Begin, walk and end of a call that is nearly every call (Engine::run):
// checks without side effects first (calls queued before it, a team of one
// rank, an abstention, a stopped team or bad arguments take run_aside,
// which queues or reports them); then what begin() does for such a call,
// its walk as run_operation's (one step in place, else run_steps), and
// end()'s early return, in one function per operation.
template <class Op>
Status Engine::run_call(Engine& e, const CollArgs& a) {
  CallQueue& q = *e.queue_;
  if (q.must_queue() || !e.numbered_ || a.abstain != Errc::ok || e.team_.stopped() ||
      !check_arguments(a, Op::kKind, e.team_.rank(), e.team_.size()).ok()) [[unlikely]] {
    return e.run_aside(a);
  }
  q.count_call();
  OpHeader h;
  if (Status st = e.number(a, Op::kKind, h); !st.ok()) return e.told(std::move(st));
  const Kept& kept = [&]() -> const Kept& {
    if constexpr (plans_on_total(Op::kKind) || plans_on_longest(Op::kKind)) {
      return e.kept(plan_input(e, a, Op::kKind, 0));
    } else {
      return e.kept_call<Op::kKind>(a);
    }
  }();
  const Plan& plan = kept.plan;
  Status st;
  if (plan.rest == Rest::none) [[likely]] {
    auto p = Op::one_step(e, a, 0);
    st = block_on_step<Op::kKind>(e, p, plan.first, kept.first_kind, e.next_step(), h, 0, a.root);
  } else {
    st = run_steps<Op>(e, a, 0, h, plan);
  }
  if (st.ok() && e.found_ == 0 && !e.agreed_error_) [[likely]]
    return st;
  CallStart c;
  c.user = &a;
  c.args = a;
  c.args.earlier = h.earlier;
  c.numbered = true;
  return e.told(e.end(c, std::move(st)));
}

// Single copy through the shared heap (collectives/ops/direct.cpp): a call
// whose data follows its header step says where its buffers are before that
// step (the constructor), and after it every rank reads every rank's words
// and gets the same mode(); a call whose mode is not `none` runs run(mode),
// the others their other path. This rank's buffers as the operation sees them
// (send: what it contributes; recv: where its result goes; null: none).
struct DirectBuffers {
  const std::byte* send = nullptr;
  std::size_t send_len = 0;
  std::byte* recv = nullptr;
  std::size_t recv_len = 0;
  // The input is the output's memory (reduce_scatter_block, alltoall in
  // place), which this rank overwrites while peers read: offered only
  // staged, and unstaged the output is not offered either (peers writing
  // into it would overwrite what this rank still reads).
  bool send_aliases_recv = false;
};
// Tests only (tests/sim/cma_test.cpp): called with the rank's number as
// each rank reaches its heap single copy, before it marks (may_copy), so a
// test can stop the team exactly between two ranks' marks; null in programs,
// where it costs one relaxed load per single-copy call (MiB-sized).
inline std::atomic<void (*)(int)> g_before_direct_copy{nullptr};

class DirectCall {
 public:
  // What an operation copies in the mode mode() took: its unit names one of
  // the moves below (the only part of the heap's single copy that differs
  // per operation; one without a heap path names none).
  using Moves = Task (DirectCall::*)(DirectMode);
  DirectCall(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, const DirectBuffers& mine, Moves moves);
  DirectMode mode();
  Task run(DirectMode m);

  // The moves: pull or push (bcast also both; the reductions always pull).
  Task bcast(DirectMode m);
  Task gather(DirectMode m);
  Task allgather(DirectMode m);
  Task scatter(DirectMode m);
  Task alltoall(DirectMode m);
  Task reduce(DirectMode m);
  Task reduce_scatter(DirectMode m);

 private:
  std::size_t bytes() const;  // count * element size
  std::size_t need_send(int q) const;
  std::size_t need_recv(int q) const;
  // Rank q's offered buffer as mapped here, checked against the bytes the
  // operation needs from it; null when it offered none or it does not fit.
  std::byte* send_of(int q) const;
  std::byte* recv_of(int q) const;
  // A word of rank q's (its heap's offset, or a shared region's word:
  // shm/regions.hpp) as mapped here, for n bytes; null when it names none.
  std::byte* mapped(int q, std::uint64_t word, std::size_t n) const;
  // Where [p, p + n) of this rank's is, as a word its peers can map: in its
  // heap, else in a shared region every rank of the team has mapped; 0: in
  // neither.
  std::uint64_t where(const std::byte* p, std::size_t n);
  // Rank q's `arrive` / `done` of this step, settled (outlive_copier) and
  // checked for copies it did not make.
  Task arrived(int q);
  Task finished(int q);
  Task settled(Flag& f, int q);
  void arrive();
  void done();
  void publish_with(Flag& f, std::uint32_t outcome);
  // A copy of this rank's, made only when it may copy (skip_: run()).
  void copy(std::byte* dst, const std::byte* src, std::size_t n) const;
  Task finished_all(int except = -1);
  Task gather_pull();
  Task gather_push();
  Task allgather_pull();
  Task allgather_push();
  Task scatter_pull();
  Task scatter_push();
  Task alltoall_pull();
  Task alltoall_push();

  Engine& e_;
  CollArgs a_;
  DirectBuffers mine_;
  Moves moves_;
  const HeapPeers* heaps_;
  bool on_ = false;  // OSMP_DIRECT: this call offers (the same on every rank)
  int parity_ = 0;
  std::uint64_t call_step_ = 0;             // the call's header step, tagging its offers
  std::uint64_t step_ = 0;                  // the flat step of the data's flags (run())
  std::vector<std::uint64_t> send_, recv_;  // every rank's offers (mode())
  std::byte* staged_out_ = nullptr;         // the caller's output, when mine_.recv is a staged block
  // The team stopped (or an error was raised) before this rank's copies:
  // it copies nothing, its flags already say so, and it still waits, as
  // its role does, for the peers that copy into or out of its buffers.
  bool skip_ = false;
};

// Where each rank's block lies in the buffer that holds every rank's:
// `block` bytes at rank * block (the uniform operations), or counts[r]
// elements of `es` bytes at displs[r] (the v-variants, CollArgs::counts).
struct Blocks {
  std::size_t block = 0;
  const std::int64_t* counts = nullptr;
  const std::int64_t* displs = nullptr;
  std::size_t es = 1;
  // A v-variant's, on every rank (gatherv, scatterv: counts only at the root).
  bool varied = false;
  static Blocks uniform(std::size_t block) { return {block, nullptr, nullptr, 1, false}; }
  // `holder`: this rank has the counts (the root; allgatherv every rank).
  static Blocks of(const CollArgs& a, bool holder) {
    return {0, holder ? a.counts : nullptr, holder ? a.displs : nullptr, size_of(a.dtype), true};
  }
  std::size_t len(int r) const { return counts ? static_cast<std::size_t>(counts[r]) * es : block; }
  std::size_t at(int r) const {
    return counts ? static_cast<std::size_t>(displs[r]) * es : static_cast<std::size_t>(r) * block;
  }
  // The blocks of `ranks[0 .. n)` together (a lane's packed order, or part of it).
  std::size_t sum(const int* ranks, std::size_t n) const {
    if (!counts) return n * block;
    std::size_t len = 0;
    for (std::size_t i = 0; i < n; ++i) len += this->len(ranks[i]);
    return len;
  }
  // How far the blocks of n ranks reach.
  std::size_t extent(int n) const {
    std::size_t end = 0;
    for (int r = 0; r < n; ++r) end = std::max(end, len(r) ? at(r) + len(r) : 0);
    return end;
  }
};

// The flat paths for large gathers and scatters (collectives/ops/flat.cpp):
// every rank's outbox in the team's control segment, in chunks, or CMA's
// single copy where `by_cma` (carried_by_cma). `blocks` say where the blocks
// are in the buffer with every rank's (gather: the root's recv, and only
// there; allgather: every rank's; scatter: the root's send); `mine` is this
// rank's own block's length; `most` the longest block of any rank, the same
// on every rank (it sets the number of steps).
Task flat_gather(Engine& e, bool by_cma, const std::byte* send, std::size_t mine, std::byte* recv, Blocks blocks,
                 std::size_t most, int root);
Task flat_allgather(Engine& e, bool by_cma, const std::byte* send, std::byte* recv, Blocks blocks, std::size_t most);
Task flat_scatter(Engine& e, bool by_cma, const std::byte* send, Blocks blocks, std::byte* recv, std::size_t mine,
                  std::size_t most, int root);
// The error of a gatherv or scatterv whose rank q's block is `theirs` bytes
// where the root's counts say `expected`.
Status counts_error(const CollArgs& a, int q, std::size_t theirs, std::size_t expected);
// The lazy gatherv and scatterv (rows_in_first, ops/rows.cpp): the one-pass
// step with the rows (gatherv: every rank's, up; scatterv: the root's, down),
// then the single copies of the blocks that did not ride (gatherv: such a
// rank writes its block into the root's buffer after the root's ack, and the
// root waits for them; scatterv: such a rank reads its block from the root's
// buffer, and the root waits for them);
// `mine`, `blocks`, `send`, `recv` as for share_lengths.
Task gatherv_rows(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, std::size_t mine,
                  const Blocks& blocks, const std::byte* send, std::byte* recv);
// The same, blocking: without a coroutine frame for the step (HasBlockingSteps);
// the copies after it, in large calls only, in one.
Status gatherv_rows_blocking(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header, const Plan& plan,
                             std::size_t mine, const Blocks& blocks, const std::byte* send, std::byte* recv);
Task scatterv_rows(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, std::size_t mine,
                   const Blocks& blocks, const std::byte* send, std::byte* recv);
Status scatterv_rows_blocking(Engine& e, const CollArgs& a, StatusWord local, const OpHeader& header, const Plan& plan,
                              std::size_t mine, const Blocks& blocks, const std::byte* send, std::byte* recv);
// Gatherv and scatterv whose lengths are not the root's counts (share_lengths
// says so on every rank): one flat step in which every rank tells the root
// the length of its own block (`mine`, bytes) and the root compares it with
// its counts (`blocks`), then tells every rank the longest block (`most`)
// and the first rank whose count differs, which every rank returns as its
// error (none: the digests collided; the data then follows as usual).
Task agree_counts(Engine& e, const CollArgs& a, const Blocks& blocks, std::size_t mine, std::size_t& most);
// Gatherv's and scatterv's first step (the plan's: lengths_step): every
// rank's length of its own block (`mine`) and the root's counts' digest go
// up the tree; every rank gets back the longest block and whether every
// length is the root's count for it (`agreed`: then the data follows in the
// flat path; else agree_counts names the rank that differs). Every rank
// learns the same. Over single ranks at a symmetric top the rows also
// carry the blocks' first bytes (lengths_data_bytes): gatherv's from each
// rank's `send` into the root's `recv`, scatterv's from the root's `send`
// into each rank's `recv`; when every block fits: `done`, on every rank. A rank without counts
// (declined, bad arguments) takes part with its error, which fails the step.
Task share_lengths(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, std::size_t mine,
                   const Blocks& blocks, const std::byte* send, std::byte* recv, std::size_t& most, bool& agreed,
                   bool& done);
// Alltoall's two sides: `out` the send blocks (block b for rank b), `in`
// the receive blocks (block q from rank q); `most` the longest block of any
// pair (the same on every rank: it sets the steps); alltoallv: `peer_at`,
// where each peer's block for this rank lies in that peer's send buffer
// (bytes; null: at this rank's index times the block), and `first`, the
// call's first flat step (agree_pairs'; 0: the data steps' own first, where
// the first step carried the rows), from which outboxes are reused.
struct Exchange {
  Blocks out, in;
  std::size_t most = 0;
  const std::uint64_t* peer_at = nullptr;
  std::uint64_t first = 0;
  std::size_t from(int q, int me) const { return peer_at ? peer_at[q] : static_cast<std::size_t>(me) * out.block; }
};
// Alltoall: a piece of every block per step; or CMA's single copy (each rank
// reads its block of every peer's send buffer) where `by_cma`.
// `send` may be `recv` (in place: then `out` is `in`).
Task flat_alltoall(Engine& e, OpKind k, bool by_cma, const std::byte* send, std::byte* recv, const Exchange& x);
// Alltoallv's counts: one flat step in which every rank puts in its outbox,
// for each rank, the length and place of its send block and its receive
// count, then its longest block, then its blocks where they are small; every
// rank reads them, and compares each pair's send block and receive count:
// up to 16 ranks every rank reads every row (the same first difference on
// every rank); beyond, each checks its own column and a second step shares
// the findings. Every rank returns the same error for the first receiver
// (in rank order) with a difference. `x`: the sides, to which it sets
// `most`, `peer_at` (into `at`) and `first`; `done`: every block rode and
// is in `recv` (`send` may be `recv`: in place).
Task agree_pairs(Engine& e, const CollArgs& a, const std::byte* send, std::byte* recv, Exchange& x,
                 std::vector<std::uint64_t>& at, bool& done);
// Single copy between the ranks' own buffers with CMA (ops/cma.cpp), where
// the plan says so (Rest::cma, carried_by_cma): bcast (the root writes the first 1/n of each
// receiver's buffer while the receivers read the rest; cma_pair: the same
// between two ranks' own buffers, `from`'s `src` into `to`'s `dst`), gather (the senders
// write into the root's buffer), allgather and scatter (the readers read;
// gatherv and scatterv learn where their blocks lie from the root's outbox,
// or where it cannot hold an offset per rank the root copies each in turn),
// and slice-parallel reductions (each rank combines its share of every
// input, read from the peers a piece at a time, in rank order): allreduce
// (then every rank reads the others' shares of the result) and
// reduce_scatter_block (each share a rank's block; `in` == `out`: in
// place). cma_piece: the elements per piece of those reductions, which need
// at least 1 (the plan's condition: plan.hpp).
Task cma_bcast(Engine& e, std::byte* buf, std::size_t bytes, int root);
Task cma_gather(Engine& e, const std::byte* send, std::size_t mine, std::byte* recv, Blocks blocks, int root);
Task cma_allgather(Engine& e, const std::byte* send, std::byte* recv, Blocks blocks);
Task cma_pair(Engine& e, const std::byte* src, std::byte* dst, std::size_t bytes, int from, int to);
Task cma_scatter(Engine& e, const std::byte* send, Blocks blocks, std::byte* recv, std::size_t mine, int root);
Task cma_alltoall(Engine& e, const std::byte* send, std::byte* recv, const Exchange& x);
Task cma_allreduce(Engine& e, const std::byte* in, std::byte* out, std::size_t count, Datatype t, Op op);
Task cma_reduce_scatter(Engine& e, const std::byte* in, std::byte* out, Blocks blocks, Datatype t, Op op);
std::size_t cma_piece(Engine& e, Datatype t);

// A single copy into or out of a buffer whose owner waits for its copiers
// before it returns: also after an error ended that wait (an abort: a rank
// died or aborted; a stale call: an error raised elsewhere), while a copier
// may still be copying, so that the buffer outlives every copy into or out
// of it (ops/cma.cpp, ops/rows.cpp). A copier, once it got to its copy,
// calls may_copy(): it marks `word` (a word of its line the owner can read)
// with copy_mark(step), then looks for a raised error or a stopped team,
// which it returns (it does not copy then); else it copies and publishes its
// `done` flag with no wait between. The owner, its wait for that flag ended
// with `st` not ok, calls outlive_copier(): marked, it waits on for the
// flag, with only the copier's liveness checked (Waiter::outlive); unmarked,
// the copier will see the error. A seq_cst fence on each side: either the
// owner sees the mark or the copier the error (the owner read the abort or
// error word, with which its wait ended, before its fence).
constexpr std::uint32_t copy_mark(std::uint64_t step) { return 0x80000000u | static_cast<std::uint32_t>(step); }
// A copier's outcome in the word of the flag it publishes after its copies:
// 0, or this (its copies failed or did not run). A peer that got through a
// step may have its next step's mark in its `done` word already.
inline constexpr std::uint32_t kCopyFailed = 1;
Status may_copy(Engine& e, std::uint32_t& word, std::uint64_t step);
// The error of a copy that did not run (may_copy): the team's stop, or the
// error raised elsewhere.
Status copy_stopped(Engine& e);
Status outlive_copier(Engine& e, std::uint32_t& word, const Flag& done, std::uint64_t step, int peer, Status st);

// Rank r's share of `count` elements: [first, first + len), the shares
// rounded to cache lines so that no two ranks write one line.
struct Share {
  std::size_t first = 0, len = 0;
};
inline Share share_of(std::size_t count, std::size_t esize, int r, int n) {
  const std::size_t unit = std::max<std::size_t>(1, kCacheLine / std::max<std::size_t>(1, esize));
  const std::size_t units = (count + unit - 1) / unit;
  auto start = [&](int i) {
    return std::min(count, units * static_cast<std::size_t>(i) / static_cast<std::size_t>(n) * unit);
  };
  const std::size_t b = start(r), e = r + 1 == n ? count : start(r + 1);
  return {b, e - b};
}
// Scan and exscan along the chain of ranks (ops/scan.cpp); `in` may be `out`.
Task flat_scan(Engine& e, const std::byte* in, std::byte* out, std::size_t count, Datatype t, Op op, bool exclusive);
// Reduce-scatter in outbox pieces: rank r's share is block r of every
// input (`blocks`, in bytes; `most` the longest, the same on every rank).
Task flat_reduce_scatter(Engine& e, OpKind k, const std::byte* send, std::byte* recv, Blocks blocks, std::size_t most,
                         Datatype t, Op op);

}  // namespace osmp
