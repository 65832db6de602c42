// The collective engine of one team: a base case run in each group while
// walking the tree (docs/design.md, rule 2).
//
// Every operation is a sequence of steps; each step has a number that only
// grows (shared by every rank of the team). What a call's steps are is its
// plan (plan.hpp); a step is a walk over the lanes of this rank's path
// (walk.hpp), running a base case in each group (base/): bottom-up this rank
// is the local root of groups G0..Gm-1 (waits for its units, combines) and an
// ordinary member of Gm (publishes); top-down it gets Gm's release and
// releases Gm-1..G0 in turn. The first step of every operation carries the op
// headers up and the verdict down, so that ranks that disagree all return the
// same error and the step counters never part. Small payloads ride in that
// step; large ones follow in pipelined chunk steps through the double-buffered
// slots (up) and broadcast areas (down), or take the flat path. A call's
// progress lives in its walk object, not here: the engine holds the team's
// lanes, the step counters and scratch.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "collectives/config.hpp"
#include "collectives/frames.hpp"
#include "collectives/ops/describe.hpp"
#include "collectives/plan.hpp"
#include "collectives/protocol.hpp"
#include "collectives/types.hpp"
#include "shm/heap.hpp"
#include "team/team.hpp"

namespace osmp {

class CallQueue;
class Calls;
class Task;

struct CollArgs {
  OpKind kind = OpKind::barrier;
  const void* send = nullptr;
  void* recv = nullptr;  // bcast: the buffer
  std::int64_t count = 0;
  Datatype dtype = Datatype::uint8;
  Op op = Op::sum;
  int root = -1;  // rooted operations only
  // The v-variants (is_varied): each rank's block, counts[r] elements at
  // displs[r] (elements of dtype) of the buffer that holds every rank's
  // (gatherv, scatterv: the root's, and only there; allgatherv: every
  // rank's, the same counts everywhere); `count` is this rank's own block.
  // reduce_scatter: counts only, the same everywhere (rank r's share of the
  // input, the blocks back to back).
  // Null in every other call; they stay valid until the call completes.
  const std::int64_t* counts = nullptr;
  const std::int64_t* displs = nullptr;
  // alltoallv: counts/displs are the send side's (block q for rank q),
  // these the receive side's (block q from rank q), on every rank.
  const std::int64_t* recv_counts = nullptr;
  const std::int64_t* recv_displs = nullptr;
  // Not ok: this rank joins the call only to deliver this error to every
  // rank (Team::abstain); its buffers are neither read nor written.
  Errc abstain = Errc::ok;
  // The digest of this rank's previous call on the team (OpHeader::earlier).
  std::uint16_t earlier = 0;
};

// `a` as the operation's entry point passes it (api/team.cpp): the
// arguments the operation does not take (its description's Takes, ops/description.hpp) cleared,
// whatever the caller left in them. The routes that build a call for any
// operation (the MPI glue, osmp-tune) go through this, and run the same call
// a direct one would.
constexpr CollArgs as_called(CollArgs a) {
  const Takes& t = describe(a.kind).takes;
  if (!t.send) a.send = nullptr;
  if (!t.recv) a.recv = nullptr;
  if (!t.count) a.count = 0;
  if (!t.counts) a.counts = nullptr;
  if (!t.displs) a.displs = nullptr;
  if (!t.pairs) a.recv_counts = a.recv_displs = nullptr;
  if (!is_reduction(a.kind)) a.op = Op::sum;
  if (!is_rooted(a.kind)) a.root = -1;
  return a;
}

// One group on this rank's path, with what the engine derives from it.
struct Lane {
  Group* g = nullptr;
  BaseCase base;
  std::vector<int> unit_size;         // ranks in each unit
  std::vector<std::size_t> unit_off;  // where each unit starts in the packed order (ranks)
  std::vector<int> packed;            // the domain's ranks in packed order (units in turn)
  // Steps <= up_ok: this lane's local root has consumed the slots (known from
  // a release seen, or its ack read). Slots are reused two steps later.
  std::uint64_t up_ok = 0;
  // Where everything of this group is in our mapping, checked against the
  // segment's size once, at creation (the hot path does no bounds checks).
  std::vector<CtrlLine*> member[kBuffers];  // [parity][unit]
  std::vector<std::byte*> slot[kBuffers];   // [parity][unit]
  std::byte* bcast[kBuffers] = {};
  // The local root's lines: release[0]'s `ack` says the slots of a step were
  // consumed; the release of step s (flag, verdict, header, inline data) is
  // in rel[s % 2], so that a one-pass step may write s while members still
  // read s - 1.
  CtrlLine* release = nullptr;
  CtrlLine* rel[kBuffers] = {};
  // Teams with unit acks (Engine::unit_acks): every unit is known to have
  // finished every step up to this one (base/stage.hpp, StepState::reuse).
  std::uint64_t done_all = 0;
  int size = 0;
  int n() const { return size; }
  // The unit that acts as local root in an operation rooted at `root`.
  int lroot(int root) const {
    // A root out of range only reaches here in a call that fails anyway.
    int u = root >= 0 && static_cast<std::size_t>(root) < g->unit_of_rank.size()
                ? g->unit_of_rank[static_cast<std::size_t>(root)]
                : -1;
    return u >= 0 ? u : 0;
  }
};

// The kind of step OneGroupStep runs for a step of `s` in a one-group team
// whose lane is `l` (none: the Walk runs it; base/one_group.hpp): kept with
// the plan (Engine::plan_kind), since the plan and the lane's base case are
// fixed between reconfigurations.
inline OneGroupKind one_group_kind(const StepPlan& s, const Lane& l) {
  if (!s.header) return OneGroupKind::none;
  if (s.one_pass) {
    if (s.top == TopCase::prefix) return s.up && !s.down ? OneGroupKind::prefix : OneGroupKind::none;
    if (s.down) return !s.up ? OneGroupKind::down : OneGroupKind::none;
    return s.up && level_base(s, l.base).kind == BaseCase::Kind::flat ? OneGroupKind::up : OneGroupKind::none;
  }
  return s.up && s.down && s.top == TopCase::symmetric ? OneGroupKind::symmetric : OneGroupKind::none;
}

// What a step collects at one lane: a call's own scratch, sized to the group
// once (no allocation per call). A blocking call uses the engine's.
struct LaneWork {
  std::vector<int> order;             // the units to combine, in order
  std::vector<int> from;              // the units to wait for
  std::vector<const std::byte*> src;  // [unit] where its data is
  std::vector<const void*> ptrs;      // for the kernels: sources in order
  // What `order` and `from` hold, so that a lane whose steps collect alike
  // (every small call) fills them once (base/flat.hpp, base/fan_in.hpp).
  struct Holds {
    enum What : std::uint64_t { nothing, all_units, all_but_me, own_unit, knomial };
    // Two words, compared on every small call: what, the lane's size and
    // this rank's unit (each below 2^30); a k-nomial tree's radix and root.
    std::uint64_t a = 0, b = 0;
    Holds() = default;
    Holds(What what, int n, int me = 0, int radix = 0, int root = 0)
        : a(what | std::uint64_t{static_cast<std::uint32_t>(n)} << 4 |
            std::uint64_t{static_cast<std::uint32_t>(me)} << 34),
          b(static_cast<std::uint32_t>(radix) | std::uint64_t{static_cast<std::uint32_t>(root)} << 32) {}
    bool operator==(const Holds&) const = default;
  };
  Holds order_holds, from_holds;
  void size_to(int n) {
    order.reserve(static_cast<std::size_t>(n));
    from.reserve(static_cast<std::size_t>(n));
    src.assign(static_cast<std::size_t>(n), nullptr);
    ptrs.assign(static_cast<std::size_t>(n), nullptr);
  }
  void all_units(int n) {  // order = 0..n-1
    const Holds h{Holds::all_units, n};
    if (order_holds == h) return;
    order.resize(static_cast<std::size_t>(n));
    for (int u = 0; u < n; ++u) order[static_cast<std::size_t>(u)] = u;
    order_holds = h;
  }
};

class Engine {
 public:
  static Result<std::unique_ptr<Engine>> create(TeamCore& team, const CollectiveConfig& config);
  ~Engine();

  // Runs one collective, blocking, after the calls started before it on
  // the team (set_queue). Collective over the team, same arguments on every
  // rank (checked: at once, or with OSMP_CHECK=lazy in one-pass calls at the
  // latest in the next call; collectives/calls.hpp). Inline (below): its
  // operation's run_call, which a caller that names the operation calls
  // itself (Ops<K>::entry.call: the C entries).
  Status run(const CollArgs& args);
  // The whole call of one operation (collectives/ops/common.hpp): what
  // run() does, the general path only where it must.
  template <class Op>
  static Status run_call(Engine& e, const CollArgs& a);
  // A call of the team's own (EngineBootstrap: a reconfiguration's
  // agreement, a new view's rendezvous), which no program made: neither
  // queued nor counted, on the general path.
  Status run_own(const CollArgs& a) { return run_general(a); }
  // The same call as a resumable object (collectives/task.hpp): run() is
  // call(args).run(). Nothing happens until it is first advanced; calls on
  // a team run one at a time, in the order they were made (collectives/requests.hpp).
  Task call(CollArgs args);
  // The walk itself, once run() or call() has checked the arguments:
  // blocking, or as a resumable object.
  Status walk(const CollArgs& args, StatusWord local);
  Task dispatch(const CollArgs& args, StatusWord local);
  // Whether the call running now waits in place (a blocking call, or a
  // non-blocking one being waited for), or returns at its first wait that
  // has not completed (osmp_test). Default: blocking.
  bool blocking() const { return blocking_; }
  // Where this engine's calls keep their coroutine frames (task.hpp).
  FrameCache& frames() { return frames_; }
  void set_blocking(bool b) { blocking_ = b; }

  TeamCore& team() { return team_; }
  const CollectiveConfig& config() const { return config_; }
  std::vector<Lane>& lanes() { return lanes_; }
  // Per-lane scratch of the blocking calls (one runs at a time).
  std::vector<LaneWork>& work() { return work_; }
  // The tree as the plan sees it (plan.hpp), and the plan of a call.
  const PlanShape& shape() const { return shape_; }
  // The settings the plan weighs (CMA allowed by the kernel, probed at team
  // creation, and enabled: cma_carries and cma_from read them after a
  // counts step).
  const PlanSettings& settings() const { return settings_; }
  // Every call asks: the last answer per operation is kept (a program
  // repeats its calls; make_plan is pure, and its other inputs change only
  // in set_calls()). A reference to the kept plan, which the next call of
  // the operation that plans otherwise replaces: copy it before anything
  // may plan the operation again.
  const Plan& plan(const PlanInput& in) const { return kept(in).plan; }
  // The kept plan of `in` and the kind of its first step where the team's
  // blocking step runs it (one_group_kind; none elsewhere).
  struct Kept {
    bool set = false;  // `plan` is make_plan(in, ...) for the engine's settings now
    PlanInput in;
    Plan plan;
    OneGroupKind first_kind = OneGroupKind::none;
    // The count and type of the last call that found `in` by kept_call
    // (count -1: none since `in` was kept).
    std::int64_t call_count = -1;
    Datatype call_dtype = Datatype::uint8;
  };
  const Kept& kept(const PlanInput& in) const {
    Kept& k = kept_[static_cast<std::size_t>(in.op) % kept_.size()];
    if (!k.set || !(k.in == in)) [[unlikely]]
      keep(k, in);
    return k;
  }
  // The same for a call of operation K (not a v-variant) with this rank's
  // own data and no abstention, which plans on its count and element size
  // alone: nearly every call repeats the last one's count and type, found
  // in two compares, without building its PlanInput.
  template <OpKind K>
  const Kept& kept_call(const CollArgs& a) const {
    static_assert(!plans_on_total(K) && !plans_on_longest(K));
    Kept& k = kept_[static_cast<std::size_t>(K) % kept_.size()];
    if (k.call_count == a.count && k.call_dtype == a.dtype) [[likely]]
      return k;
    kept(PlanInput{K, static_cast<std::size_t>(a.count), size_of(a.dtype)});
    k.call_count = a.count;
    k.call_dtype = a.dtype;
    return k;
  }
  // The team's numbered calls (null: none attached, every call agrees first).
  void set_calls(Calls* c);
  // The team's queue of started calls (collectives/requests.hpp), which
  // every blocking call asks first and counts itself in; bound by the team
  // (api/views.cpp) before any call runs.
  void set_queue(CallQueue& q) { queue_ = &q; }
  Calls* calls() const { return calls_; }
  // Whether this team makes one-pass calls (OSMP_CHECK=lazy, calls attached,
  // no group wider than OSMP_ONE_PASS_MAX units). Then every rank acks every
  // step in its unit's line of each lane it acted in, and a step first waits
  // until every unit of each lane it acts in finished the step two before
  // (base/stage.hpp).
  bool unit_acks() const { return settings_.one_pass; }
  // ... and the tree is one group (OneGroupStep, the prefix top, the rows).
  bool one_group() const { return settings_.one_group; }
  // What the last step of a call found on this rank that other ranks may
  // not see (a one-pass step; walk.hpp), for run() to raise.
  void note_found(StatusWord w) { found_ = w; }
  // Raises what a one-pass step found (for the call before when it is about
  // its `earlier` digest), at once: before this rank acks the step, so that a
  // rank whose StepState::reuse() acquires the ack sees the error.
  void raise_found(StatusWord w);
  // The root of the step of `s`'s parity that ran last (-1: none), which
  // StepState::reuse() reads (step s - 2's, whose ranks acted for the units
  // of each lane) before it sets step s's.
  int& root_of_step(std::uint64_t s) { return step_roots_[s % kBuffers]; }
  // An error is pending for a call this rank has reached (Calls::pending).
  // Every step asks: the word is 0 until a team's first error (relaxed, as
  // Calls polls it), so the common case is one load of a line nobody writes.
  // The word is the base view's (Calls), not this view's own team's.
  bool error_pending() const {
    return call_error_ && call_error_->load(std::memory_order_relaxed) != 0 && calls_pending();
  }
  // While a header step waits in a team with unit acks: this rank's header
  // (null: none), and what peek() finds in the other ranks' headers of the
  // call (their call records): one that differs from mine, of a rank that
  // took another plan (arguments on both sides of a threshold, another
  // operation, another root) and may wait for something I will never write.
  // Called by Calls::stale() every abort_check_ns of a wait.
  void watch_step(const OpHeader* h) { peek_header_ = h; }
  // Not const: keeps the header that differed and its rank, so that this
  // rank's call names both sides (run()).
  StatusWord peek();
  // Whether a peer whose header `theirs` differs from mine in `f` may be on
  // another plan than mine (and so wait for what I never write).
  bool another_plan(const OpHeader& theirs, Field f) const;
  // A round-trip header step's error verdict, which every rank gets (walk.hpp).
  void note_agreed_error() { agreed_error_ = true; }
  // The step counters, and moving them past every flag any rank published
  // (after an error, collectives/calls.hpp): nothing old can satisfy a new wait.
  std::uint64_t step() const { return step_; }
  std::uint64_t flat_step() const { return flat_step_; }
  void realign(std::uint64_t step, std::uint64_t flat_step);
  std::size_t slot_bytes() const { return slot_bytes_; }
  std::size_t bcast_bytes() const { return bcast_bytes_; }
  // Packed rank order of the whole team (the top domain).
  const std::vector<int>& top_packed() const { return top_packed_; }
  // Whether the packed order of the whole team is rank order.
  bool top_in_rank_order() const { return top_in_rank_order_; }
  std::byte* scratch(int i) { return scratch_.get() + static_cast<std::size_t>(i) * scratch_bytes_; }
  // Private memory where a result bound for shared memory is built first.
  std::byte* staging() { return scratch(4); }
  std::size_t scratch_bytes() const { return scratch_bytes_; }
  // Team creation finds out, collectively, what CMA can do for the team (api/views.cpp).
  void set_cma(CmaProbe probe) {
    cma_ = probe;
    cma_settings();
    kept_ = {};  // the settings change: forget the kept plans
  }
  // The team's shared heaps (team/heaps.hpp), when its ranks joined them:
  // single copy for buffers in them (collectives/ops/direct.cpp).
  void set_heaps(const HeapPeers* h) { heaps_ = h; }
  const HeapPeers* heaps() const { return config_.direct ? heaps_ : nullptr; }
  // The pids of the team's ranks, in rank order (made on first use).
  const std::vector<pid_t>& pids();
  // The parity of the next call that offers its buffers (ops/direct.cpp):
  // counted per call, restarted on every rank by realign().
  int next_offer() { return static_cast<int>(++offers_ % 2); }
  // A block of this rank's heap of at least `bytes`, kept for the next calls
  // (`which`: kStagedSend or kStagedRecv, ops/direct.cpp) until the
  // engine goes; null when the heap has no room (the call then takes
  // another path). docs/heap.md counts them against OSMP_HEAP_SIZE.
  static constexpr int kStagedSend = 0, kStagedRecv = 1;
  std::byte* stage(int which, std::size_t bytes);
  // Calls of this rank that moved their data by single copy through the heaps.
  std::uint64_t single_copies() const { return single_copies_; }
  void count_single_copy() { ++single_copies_; }

  // The next step of the tree: every tree step passes through every group,
  // so each group sees an unbroken sequence (slot_free() relies on it).
  std::uint64_t next_step() { return ++step_; }
  // The next step of the flat paths, counted apart (the control segment's flags).
  std::uint64_t next_flat_step() { return ++flat_step_; }

 private:
  Engine(TeamCore& t, CollectiveConfig c) : team_(t), config_(std::move(c)) {}
  Status validate(const CollArgs& a) const;
  bool calls_pending() const;
  // run() of any call: begin, walk, end.
  Status run_general(const CollArgs& a);
  // A blocking call that run_call does not run itself: after the calls
  // queued before it (CallQueue::must_queue), else run_general; counted in
  // the queue, its error told (told).
  [[gnu::cold]] Status run_aside(const CollArgs& a);
  // `st`, told to the team's queue when it is an error (a dead peer or an
  // abort seen here stops the team's other views: Views::propagate_stop).
  [[gnu::cold]] Status told(Status st);
  // Numbers a call in the team's Calls (numbered_ teams): `h` is its header,
  // with the digest of the call before, entered in this rank's record; what
  // end() reads starts afresh. Not ok: the call must not run (Calls::enter).
  // In ops/common.hpp, beside header_for(); `kind` as its.
  Status number(const CollArgs& a, OpKind kind, OpHeader& h);
  // A call around its walk: begin() checks and numbers it, end() turns the
  // walk's status into the call's (every error path: verdicts explained,
  // errors raised or learned). run() and call() are begin, walk, end.
  struct CallStart {
    const CollArgs* user = nullptr;  // as the caller passed it (alive until end())
    CollArgs args;                   // what walks the tree (an abstainer's header only), with its `earlier` digest
    StatusWord local = 0;            // this rank's own error, which it walks with
    Status mine;                     // this rank's argument check
    bool numbered = false;           // entered in the team's Calls
    Status early;                    // the status of a call that ends before it walks
    bool ends(Status st) {           // the call ends here, with `st`
      early = std::move(st);
      return false;
    }
  };
  // False: the call ends before it walks, with c.early.
  bool begin(const CollArgs& a, CallStart& c);
  Status end(CallStart& c, Status walk);
  Status walked(CallStart& c, Status walk);
  bool one_pass(const CollArgs& a) const;
  // Whether a mismatch verdict of this call is explained by exchanging the
  // headers (not in one-pass calls, nor when it is about the call before).
  bool explains(const CollArgs& a) const;
  Status explain_mismatch(const CollArgs& a, Status verdict);
  TeamCore& team_;
  CollectiveConfig config_;
  std::vector<Lane> lanes_;
  std::vector<LaneWork> work_;
  PlanShape shape_;
  PlanSettings settings_;
  void keep(Kept& k, const PlanInput& in) const;
  mutable std::array<Kept, static_cast<std::size_t>(OSMP_COLL_COUNT) + 1> kept_{};  // by OpKind (barrier is 1)
  Calls* calls_ = nullptr;
  CallQueue* queue_ = nullptr;                              // set_queue
  bool numbered_ = false;                                   // calls_ && a team of several: calls are entered in calls_
  const std::atomic<std::uint64_t>* call_error_ = nullptr;  // calls_'s error word (set_calls)
  StatusWord found_ = 0;
  int step_roots_[kBuffers] = {-1, -1};
  const OpHeader* peek_header_ = nullptr;
  OpHeader peek_mine_{}, peek_seen_{};  // what peek() found in this call
  int peek_seen_rank_ = -1;             // -1: nothing
  bool agreed_error_ = false;           // the last call's error verdict reached every rank
  std::vector<int> top_packed_;
  bool top_in_rank_order_ = false;
  std::size_t slot_bytes_ = 0, bcast_bytes_ = 0, scratch_bytes_ = 0;
  std::unique_ptr<std::byte[]> scratch_;
  std::vector<pid_t> pids_;  // pids()
  std::uint64_t step_ = 0;
  std::uint64_t flat_step_ = 0;
  CmaProbe cma_;
  // The plans' CMA from the probe and OSMP_CMA: the team may copy with it at
  // all where the kernel lets every rank read every other's memory and
  // OSMP_CMA is not 0; its size range applies where OSMP_CMA is 1, or auto
  // and the copy pays here.
  void cma_settings() {
    using Cma = CollectiveConfig::Cma;
    settings_.cma = cma_.works && config_.cma != Cma::off;
    settings_.cma_sized = config_.cma == Cma::on || cma_.pays;
  }
  const HeapPeers* heaps_ = nullptr;
  std::uint64_t offers_ = 0;
  std::uint64_t single_copies_ = 0;
  struct Staged {
    std::byte* p = nullptr;
    std::size_t bytes = 0;
  };
  std::array<Staged, 2> staged_{};  // in heaps_->own(), freed with the engine
  bool blocking_ = true;
  FrameCache frames_;
};

// The entries of one operation (collectives/ops/common.hpp's entry_of; each
// unit defines its own, engine.cpp lists them).
struct OpEntry {
  Status (*run)(Engine&, const CollArgs&, StatusWord);  // the walk, blocking
  Task (*start)(Engine&, CollArgs, StatusWord);         // the walk, resumable
  Status (*call)(Engine&, const CollArgs&);             // a whole blocking call (Engine::run_call)
};
// Each operation's entries, defined by its unit (collectives/ops/<op>.cpp:
// `template <> const OpEntry Ops<OpKind::bcast>::entry = entry_of<Bcast>();`);
// one declared here for every row of osmp_ops.h, so that an operation
// without its unit does not link.
template <OpKind K>
struct Ops {
  static const OpEntry entry;
};
#define OSMP_OP_ENTRY_(name, Name, NAME, key, rooted, reduces, form) \
  template <>                                                        \
  const OpEntry Ops<OpKind::name>::entry;
OSMP_COLLECTIVES(OSMP_OP_ENTRY_)
#undef OSMP_OP_ENTRY_
// By op_index, in osmp_ops.h's order.
extern const OpEntry* const kOpEntries[kOpKindCount];

inline Status Engine::run(const CollArgs& a) {
  const int i = op_index(a.kind);
  if (i < 0) [[unlikely]]
    return run_aside(a);  // reports the unknown operation
  return kOpEntries[i]->call(*this, a);
}

}  // namespace osmp
