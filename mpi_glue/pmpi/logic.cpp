// MPI's collectives on osmp, shared by the PMPI interposer (interpose.cpp)
// and the Open MPI component (mpi_glue/ompi_coll). On one node the whole
// call runs on osmp; across nodes osmp runs inside each node and the MPI
// among node leaders (nodes.cpp).
//
// The route rule: whether a call runs on osmp or on the MPI's own
// collective is decided the same way on every rank of the communicator.
//   1. Per communicator, once, when its state is built (state.cpp,
//      collective): intercommunicators and single processes go to the MPI;
//      osmp runs the operations every rank's OSMP_PMPI / OSMP_PMPI_OPS allow
//      (agreed), and only if the team could be made on every node (agreed).
//   2. Per call, from what MPI requires to be the same on every rank: the
//      operation, the root, a reduction's op and type signature (a builtin
//      osmp has, repeated: osmp; user ops, MINLOC/MAXLOC pairs, other types:
//      the MPI) and the bytes per rank (over 2 GiB in one buffer: the MPI).
//      What differs between ranks never decides: type maps, MPI_IN_PLACE,
//      MPI_BOTTOM, the root's buffers. Every buffer becomes the byte stream
//      its type signature describes (types.hpp).
//   3. Every rank checks its own arguments, then joins osmp's call with its
//      header, or abstains from it with its reason (Team::abstain: "to the
//      MPI" for 2, or its own error). The header exchange every osmp call
//      makes anyway gives every rank the same verdict: all go to the MPI
//      when a rank said so, all fail when a rank erred or the headers differ
//      (an MPI error through the communicator's handler, errors.hpp).
//      Across nodes each node's part agrees in the node; strictly the
//      leaders carry their nodes' verdicts in the exchange that moves the
//      data (agree.hpp), lazily (the default) each node keeps its own and
//      the leaders run only the MPI's collective (parts.hpp, leaders_part).
// A legal program so takes one route on every rank without exchanging
// anything for it; an erroneous one gets errors, never a hang (across nodes
// lazily: where the MPI itself would not hang, nodes.cpp).
#include <mpi.h>

#include "mpi_glue/pmpi/logic.h"

#include <climits>
#include <cstdint>
#include <cstring>

#include "collectives/ops/describe.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"
#include "mpi_glue/pmpi/agree.hpp"
#include "mpi_glue/pmpi/call.hpp"
#include "mpi_glue/pmpi/errors.hpp"
#include "mpi_glue/pmpi/state.hpp"
#include "mpi_glue/pmpi/types.hpp"
#include "shm/wait.hpp"

namespace osmp::pmpi {

const VBlocks Prepared::kNoBlocks{};

namespace {
// This thread's VBlocks of its last calls (reused_vblocks, VBlocksBack):
// trivially destructible, so that a Prepared destroyed late (a pending
// call's, at exit) never meets a destroyed list; MPI_Finalize frees the
// finalizing thread's (drop_kept_vblocks), another thread's few stay with
// it until the process exits.
constexpr int kKeptVBlocks = 4;
constexpr std::size_t kKeptScratch = std::size_t{1} << 20;
struct KeptVBlocks {
  VBlocks* free[kKeptVBlocks];
  int n;
};
constinit thread_local KeptVBlocks t_vblocks{{}, 0};

void drop_kept_vblocks() {
  while (t_vblocks.n > 0) delete t_vblocks.free[--t_vblocks.n];
}
}  // namespace

std::unique_ptr<VBlocks> reused_vblocks() {
  KeptVBlocks& kept = t_vblocks;
  if (kept.n == 0) return std::make_unique<VBlocks>();
  return std::unique_ptr<VBlocks>(kept.free[--kept.n]);
}

void VBlocksBack::operator()(VBlocks* v) const noexcept {
  KeptVBlocks& kept = t_vblocks;
  if (kept.n >= kKeptVBlocks) {
    delete v;
    return;
  }
  v->blocks.trim(kKeptScratch);
  v->send_blocks.trim(kKeptScratch);
  kept.free[kept.n++] = v;
}

void Call::find_state(bool nonblocking) {
  if (comm == MPI_COMM_NULL) return;
  if (int finalized = 0; PMPI_Finalized(&finalized), finalized) return;
  if (nonblocking) {
    // A non-blocking call never builds the state: that takes blocking
    // exchanges over comm, which would make this rank wait inside a call
    // MPI lets return at once (its peers may first wait for this rank
    // elsewhere), and, through the component, Open MPI's own communicator
    // creation issues non-blocking calls on the parent. Whether a state
    // exists is the same on every rank: it is built by the same (blocking)
    // collective of the communicator everywhere.
    CommState* existing = existing_state(comm);
    if (!existing) {
      declined(cat(name, ": no blocking collective on this communicator yet (its osmp state is built by one)"));
      count(false);
      return;
    }
    take_state(existing);
    return;
  }
  take_state(&state_of(comm));
}

namespace {

// A call's plan to begin with (`p` fresh, in the call's Prepared): its
// operation and root, or why the root is refused.
void start(Plan& p, const Call& c, OpKind kind, int root) {
  p.kind = kind;
  if (is_rooted(kind)) {
    p.root = root;
    if (root < 0 || root >= c.n) {
      p.fail(MPI_ERR_ROOT, cat("root ", root, " is not a rank of the communicator (0..", c.n - 1, ")"));
      p.root = 0;  // a root every part of the call can use
    }
  }
}

// A buffer argument as a byte stream into `s` (which stays empty when its
// count or type is refused), once its count and type are checked.
void set_stream(Stream& s, Plan& p, const Call& c, const void* buf, std::int64_t count, MPI_Datatype t,
                const TypeInfo* known = nullptr) {
  if (count < 0) {
    p.fail(MPI_ERR_COUNT, cat("count ", count, " is negative"));
    return;
  }
  if (t == MPI_DATATYPE_NULL) {
    p.fail(MPI_ERR_TYPE, "the datatype is MPI_DATATYPE_NULL");
    return;
  }
  s.assign(buf, count, t, c.comm, known ? *known : describe(t));
}

// Bytes per rank, and the largest buffer the call moves (as every rank sees it).
void set_bytes(Plan& p, std::int64_t per_rank, std::int64_t largest) {
  p.count = per_rank;
  p.dtype = Datatype::uint8;
  if (largest > INT_MAX) p.refuse("more than 2 GiB in one buffer");
}

void* block_of(void* buf, int index, int count, MPI_Datatype t) {
  return element(buf, static_cast<std::int64_t>(index) * count, describe(t));
}

// The end of a call on this rank: its own error first, then the common route.
template <class F>
int finish(const Call& c, const Plan& p, const Outcome& o, F&& mpi) {
  if (p.failed()) return deliver(c.comm, c.name, p.mpi_class, p.what);
  switch (o.route) {
    case Outcome::Route::osmp:
      count(true);
      // OSMP_VERBOSE=3 (coll_osmp_verbose 2): the path of every call.
      if (log_level() >= LogLevel::debug) [[unlikely]]
        log(LogLevel::debug, "osmp_pmpi: ", to_string(c.kind),
            c.nodes() ? ": osmp per node + the MPI among leaders" : ": osmp");
      return MPI_SUCCESS;
    case Outcome::Route::mpi:
      declined(cat(to_string(c.kind), ": ", p.refuses() ? p.what : "another rank hands the call to the MPI"));
      count(false);
      return mpi();
    case Outcome::Route::error: break;
  }
  return deliver(c.comm, c.name, class_of(o.error.code()), o.error.message());
}

// A call on one process: the copy it implies (its description's Alone, as
// the engine's team of one makes it; none in place; the v-variants' block
// at its displacement, in bytes here).
Outcome alone(const Prepared& x) {
  const Plan& p = x.p;
  if (p.why != Errc::ok) return Outcome::of(Status(p.why, p.what));
  const auto* send = static_cast<const unsigned char*>(x.send);
  auto* recv = static_cast<unsigned char*>(x.recv);
  const Alone copy = describe(p.kind).alone;
  if (copy == Alone::nothing) return {};  // barrier, bcast, exscan (rank 0's output is undefined)
  if (copy == Alone::own_pair) {          // alltoallv: its own block, from one side to the other
    if (send == kInPlace) return {};
    if (x.v().send_blocks.bytes(0) != x.v().blocks.bytes(0)) {
      return Outcome::of(
          Status(Errc::invalid_argument, cat(to_string(p.kind), ": sends itself ", x.v().send_blocks.bytes(0),
                                             " bytes but receives ", x.v().blocks.bytes(0))));
    }
    if (x.v().blocks.bytes(0)) {
      std::memmove(recv + x.v().blocks.displs()[0], send + x.v().send_blocks.displs()[0],
                   static_cast<std::size_t>(x.v().blocks.bytes(0)));
    }
    return {};
  }
  if (copy == Alone::whole_share) {  // reduce_scatter: its share is the whole input
    if (send != kInPlace && p.bytes()) std::memmove(recv, send, static_cast<std::size_t>(p.bytes()));
    return {};
  }
  if (!send || send == kInPlace || !recv || recv == kInPlace || !p.bytes()) return {};
  if (copy == Alone::own_block_in) send += x.v().blocks.displs()[0];
  if (copy == Alone::own_block_out) recv += x.v().blocks.displs()[0];
  std::memmove(recv, send, static_cast<std::size_t>(p.bytes()));
  return {};
}

// Send and receive arguments that name exactly the bytes in place would
// use, with the same layout (the caller passes where in place puts this
// rank's data and checks the counts and types), mean what MPI_IN_PLACE
// means: Open MPI calls its collective components so (its communicator
// creation issues MPI_Iallreduce(&ok, &ok, ...); its basic allgatherv
// gathers each rank's own block from where it lies in the receive buffer),
// and some programs pass count 1 so, which Open MPI accepts. Overlapping
// buffers that differ stay an error.
bool same_as_in_place(const void* s, const void* r) { return s == r && s != nullptr && s != MPI_IN_PLACE; }
// The gathers and scatters: `own` is block `index` (`count` of `t` each) of
// `all`, where in place leaves this rank's block.
bool own_block_is(const void* own, const void* all, int index, int count, MPI_Datatype t) {
  if (!own || !all || own == MPI_IN_PLACE || t == MPI_DATATYPE_NULL) return false;
  return same_as_in_place(own, block_of(const_cast<void*>(all), index, count, t));
}

// A reduction's plan and streams: osmp's element type and count when the
// signature is one builtin osmp reduces, repeated; else "to the MPI".
void reduction_type(Prepared& x, std::int64_t count, const TypeInfo& ti, MPI_Op op) {
  const auto o = op_of(op);
  x.p.count = count * ti.size;  // bytes, for the header of a call handed to the MPI
  if (!o) return x.p.refuse("a user-defined op, MINLOC/MAXLOC or another op osmp lacks");
  if (!ti.base) return x.p.refuse("a datatype that is not one builtin osmp reduces, repeated");
  if (!defined_for(*o, *ti.base)) return x.p.refuse(cat("'", to_string(*o), "' on ", to_string(*ti.base)));
  x.p.dtype = *ti.base;
  x.p.op = *o;
  x.p.count = count * (ti.size / static_cast<std::int64_t>(size_of(*ti.base)));
}
// The reductions of one count and type (reduce, allreduce,
// reduce_scatter_block, scan, exscan): the input is a block (every rank's:
// reduce_scatter_block), the output where the description's Buffers write
// one (reduce: the root; exscan: not rank 0, whose recvbuf may be NULL; in
// place, its input is read from recvbuf).
template <OpKind K>
Prepared prepare_reduction(const Call& c, const void* s, void* r, int count, MPI_Datatype t, MPI_Op op, int root) {
  Prepared x;
  start(x.p, c, K, root);
  constexpr const Buffers& b = osmp::describe(K).buffers;
  const bool is_root = c.me == x.p.root;
  const bool wants_out = b.recv.at(is_root) != Amount::none && !(b.first_writes_nothing && c.me == 0);
  const std::int64_t in_factor = b.send.at(is_root) == Amount::all ? c.n : 1;
  // The very buffer as input and output, of the one count and type, is in
  // place (same_as_in_place); buffers that merely overlap stay an error.
  const bool in_place = s == MPI_IN_PLACE || (wants_out && same_as_in_place(s, r));
  if (in_place && !b.send_in_place.at(is_root)) x.p.fail(MPI_ERR_BUFFER, "only the root may pass MPI_IN_PLACE");
  if (op == MPI_OP_NULL) x.p.fail(MPI_ERR_OP, "the op is MPI_OP_NULL");
  const TypeInfo ti = t == MPI_DATATYPE_NULL ? TypeInfo{} : describe(t);
  set_stream(x.in, x.p, c, in_place ? r : s, count * in_factor, t, &ti);
  if (wants_out) set_stream(x.out, x.p, c, r, count, t, &ti);
  x.commit = wants_out;
  if (x.p.why != Errc::ok) return x;
  reduction_type(x, count, ti, op);
  if (x.in.bytes() > INT_MAX) x.p.refuse("more than 2 GiB in one buffer");
  if (x.p.why != Errc::ok) return x;
  x.send = in_place && wants_out && x.out.raw() ? kInPlace : x.in.in();
  x.recv = wants_out ? x.out.out() : nullptr;
  return x;
}

// Each form of osmp_ops.h has its prepare_<form>, with the MPI arguments
// of that form (entries.h): what differs between the operations of one form
// is read from their descriptions (ops/describe.hpp).
template <OpKind K>
Prepared prepare_none(const Call& c) {
  Prepared x;
  start(x.p, c, K, -1);
  return x;
}

// One buffer: the root's input, the others' output (bcast).
template <OpKind K>
Prepared prepare_buffer(const Call& c, void* buf, int count, MPI_Datatype t, int root) {
  Prepared x;
  start(x.p, c, K, root);
  set_stream(x.out, x.p, c, buf, count, t);
  set_bytes(x.p, x.out.bytes(), x.out.bytes());
  const bool is_root = c.me == x.p.root;
  x.recv = x.p.why != Errc::ok ? nullptr : is_root ? const_cast<void*>(x.out.in()) : x.out.out();
  x.commit = !is_root;
  return x;
}

// gather (`root`) and allgather (every rank receives).
template <OpKind K>
Prepared prepare_uniform_gathered(const Call& c, const void* s, int sc, MPI_Datatype st, void* r, int rc,
                                  MPI_Datatype rt, int root) {
  constexpr OpKind kind = K;
  Prepared x;
  start(x.p, c, kind, root);
  Plan& p = x.p;
  const bool receives = osmp::describe(kind).buffers.recv.at(c.me == p.root) != Amount::none;
  const bool in_place = receives && (s == MPI_IN_PLACE || (sc == rc && st == rt && own_block_is(s, r, c.me, rc, rt)));
  if (receives) set_stream(x.out, p, c, r, static_cast<std::int64_t>(rc) * c.n, rt);
  if (in_place) {
    set_stream(x.in, p, c, block_of(r, c.me, rc, rt), rc, rt);
  } else {
    set_stream(x.in, p, c, s, sc, st);
  }
  if (receives && x.out.bytes() != x.in.bytes() * c.n) {
    p.fail(MPI_ERR_TRUNCATE, cat(is_rooted(kind) ? "the root sends " : "sends ", x.in.bytes(), " bytes but receives ",
                                 x.out.bytes() / c.n, " per rank"));
  }
  set_bytes(p, x.in.bytes(), x.in.bytes() * c.n);
  const bool go = p.why == Errc::ok;
  x.send = !go ? nullptr : in_place && !c.nodes() && x.out.raw() ? kInPlace : x.in.in();
  x.recv = go && receives ? x.out.out() : nullptr;
  x.commit = receives;
  return x;
}

template <OpKind K>
Prepared prepare_uniform_scattered(const Call& c, const void* s, int sc, MPI_Datatype st, void* r, int rc,
                                   MPI_Datatype rt, int root) {
  Prepared x;
  start(x.p, c, K, root);
  Plan& p = x.p;
  const bool is_root = c.me == p.root;
  const bool in_place = is_root && (r == MPI_IN_PLACE || (sc == rc && st == rt && own_block_is(r, s, c.me, sc, st)));
  if (is_root) set_stream(x.in, p, c, s, static_cast<std::int64_t>(sc) * c.n, st);
  if (!in_place) set_stream(x.out, p, c, r, rc, rt);
  const std::int64_t b = in_place ? x.in.bytes() / c.n : x.out.bytes();
  if (is_root && x.in.bytes() != b * c.n)
    p.fail(MPI_ERR_TRUNCATE, cat("the root sends ", x.in.bytes() / c.n, " bytes per rank but receives ", b));
  set_bytes(p, b, b * c.n);
  const bool go = p.why == Errc::ok;
  x.send = go && is_root ? x.in.in() : nullptr;
  x.recv = !go ? nullptr : in_place ? const_cast<void*>(kInPlace) : x.out.out();
  x.commit = !in_place;
  return x;
}

// alltoall: n blocks each way, the send type's bytes per block those of the
// receive type's. In place, the blocks to send are in recv, with its type.
// Across nodes the leaders move whole nodes' blocks in one buffer: more
// than 2 GiB there goes to the MPI (the same on every rank).
template <OpKind K>
Prepared prepare_uniform_pairs(const Call& c, const void* s, int sc, MPI_Datatype st, void* r, int rc,
                               MPI_Datatype rt) {
  Prepared x;
  start(x.p, c, K, -1);
  Plan& p = x.p;
  const bool in_place = s == MPI_IN_PLACE || (same_as_in_place(s, r) && sc == rc && st == rt);
  const std::int64_t n = c.n;
  set_stream(x.out, p, c, r, static_cast<std::int64_t>(rc) * n, rt);
  if (in_place) {
    set_stream(x.in, p, c, r, static_cast<std::int64_t>(rc) * n, rt);
  } else {
    set_stream(x.in, p, c, s, sc * n, st);
  }
  if (x.out.bytes() != x.in.bytes()) {
    p.fail(MPI_ERR_TRUNCATE,
           cat("sends ", x.in.bytes() / n, " bytes to each rank but receives ", x.out.bytes() / n, " from each"));
  }
  set_bytes(p, x.out.bytes() / n, x.out.bytes());
  if (c.nodes() && x.out.bytes() * n > INT_MAX) p.refuse("more than 2 GiB through the node leaders");
  const bool go = p.why == Errc::ok;
  x.send = !go ? nullptr : in_place && x.out.raw() ? kInPlace : x.in.in();
  x.recv = go ? x.out.out() : nullptr;
  x.commit = true;
  return x;
}

// The uniform blocks of a count and a type on each side, as the
// description's Buffers lie: every rank's blocks on both sides (alltoall),
// the root's blocks out to each rank's own (scatter), or each rank's own
// block into every rank's (gather, allgather).
template <OpKind K>
Prepared prepare_uniform(const Call& c, const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt,
                         int root) {
  constexpr const Buffers& b = osmp::describe(K).buffers;
  if constexpr (b.send.root != Amount::all) {
    return prepare_uniform_gathered<K>(c, s, sc, st, r, rc, rt, root);
  } else if constexpr (b.recv.root == Amount::all) {
    (void)root;
    return prepare_uniform_pairs<K>(c, s, sc, st, r, rc, rt);
  } else {
    return prepare_uniform_scattered<K>(c, s, sc, st, r, rc, rt, root);
  }
}

// The v-variants' blocks at the rank that holds them all (BlockSet: in
// place where the type lays its elements back to back, else packed through
// scratch). Nothing about them decides the route: only this rank knows them.
void blocks_of(Prepared& x, BlockSet& into, const Call& c, const void* buf, const int* counts, const int* displs,
               MPI_Datatype t, const char* which) {
  Plan& p = x.p;
  if (t == MPI_DATATYPE_NULL) return p.fail(MPI_ERR_TYPE, "the datatype is MPI_DATATYPE_NULL");
  if (!counts || !displs) {
    return p.fail(MPI_ERR_ARG, cat("the ", which, counts ? " displacements" : " counts", " are NULL"));
  }
  if (Status st = into.set(buf, counts, displs, c.n, t, c.comm, describe(t)); !st.ok()) {
    p.fail(MPI_ERR_COUNT, cat(which, " ", st.message()));
  }
}

// gatherv (`root`) and allgatherv (every rank receives): this rank's block
// as a byte stream, or in place already among the blocks (where they are
// used in place).
template <OpKind K>
Prepared prepare_gathered(const Call& c, const void* s, int sc, MPI_Datatype st, void* r, const int* rc, const int* d,
                          MPI_Datatype rt, int root) {
  Prepared x;
  start(x.p, c, K, root);
  Plan& p = x.p;
  constexpr ByRole<bool> holds = osmp::describe(K).varied.holds;
  const bool receives = holds.at(c.me == p.root);
  const bool in_place =
      receives && (s == MPI_IN_PLACE || (rc && d && sc == rc[c.me] && st == rt && own_block_is(s, r, d[c.me], 1, rt)));
  if (receives) blocks_of(x, x.v().blocks, c, r, rc, d, rt, "receive");
  const bool go_blocks = p.why == Errc::ok;
  // In place, this rank's block where it lies among the others.
  if (in_place && go_blocks) set_stream(x.in, p, c, element(r, d[c.me], describe(rt)), rc[c.me], rt);
  if (!in_place) set_stream(x.in, p, c, s, sc, st);
  if (receives && !in_place && p.why == Errc::ok && x.in.bytes() != x.v().blocks.bytes(c.me)) {
    p.fail(MPI_ERR_TRUNCATE,
           cat("sends ", x.in.bytes(), " bytes but its receive count says ", x.v().blocks.bytes(c.me)));
  }
  p.count = x.in.bytes();
  p.dtype = Datatype::uint8;
  if (c.nodes() && holds.root && holds.other && p.why == Errc::ok &&
      counts_total(x.v().blocks.counts(), c.n) > INT_MAX) {
    // allgatherv: the leaders' MPI_Allgatherv counts bytes in ints; the
    // same on every rank that passes the same counts, and agreed in the
    // call's first part.
    p.refuse(cat(to_string(K), " across nodes: ", counts_total(x.v().blocks.counts(), c.n),
                 " bytes in all (more than the leaders' int counts)"));
  }
  const bool go = p.why == Errc::ok;
  x.send = !go ? nullptr : in_place && x.in.raw() ? kInPlace : x.in.in();
  x.recv = go && receives ? x.v().blocks.out() : nullptr;
  return x;
}

// scatterv: the root's blocks (packed where their type needs it), this
// rank's own as a byte stream (at the root in place: left where it is).
template <OpKind K>
Prepared prepare_scattered(const Call& c, const void* s, const int* sc, const int* d, MPI_Datatype st, void* r, int rc,
                           MPI_Datatype rt, int root) {
  Prepared x;
  start(x.p, c, K, root);
  Plan& p = x.p;
  const bool is_root = c.me == p.root;
  const bool in_place =
      is_root && (r == MPI_IN_PLACE || (sc && d && rc == sc[c.me] && st == rt && own_block_is(r, s, d[c.me], 1, st)));
  if (is_root) blocks_of(x, x.v().blocks, c, s, sc, d, st, "send");
  if (!in_place) set_stream(x.out, p, c, r, rc, rt);
  const std::int64_t own = in_place ? (p.why == Errc::ok ? x.v().blocks.bytes(c.me) : 0) : x.out.bytes();
  if (is_root && !in_place && p.why == Errc::ok && own != x.v().blocks.bytes(c.me)) {
    p.fail(MPI_ERR_TRUNCATE, cat("the root sends itself ", x.v().blocks.bytes(c.me), " bytes but receives ", own));
  }
  p.count = own;
  p.dtype = Datatype::uint8;
  const bool go = p.why == Errc::ok;
  x.send = go && is_root ? x.v().blocks.in() : nullptr;
  x.recv = !go ? nullptr : in_place ? const_cast<void*>(kInPlace) : x.out.out();
  x.commit = !in_place;
  return x;
}

// reduce_scatter: the input is every rank's share back to back (the same
// counts on every rank, so whether osmp reduces the type and op is decided
// alike everywhere, as for the other reductions).
template <OpKind K>
Prepared prepare_shares(const Call& c, const void* s, void* r, const int* rc, MPI_Datatype t, MPI_Op op) {
  Prepared x;
  start(x.p, c, K, -1);
  Plan& p = x.p;
  if (!rc) {
    p.fail(MPI_ERR_ARG, "the receive counts are NULL");
    return x;
  }
  if (op == MPI_OP_NULL) p.fail(MPI_ERR_OP, "the op is MPI_OP_NULL");
  std::int64_t total = 0;
  for (int q = 0; q < c.n; ++q) {
    if (rc[q] < 0) p.fail(MPI_ERR_COUNT, cat("receive count ", q, " is negative (", rc[q], ")"));
    total += rc[q];
  }
  const bool in_place = s == MPI_IN_PLACE || same_as_in_place(s, r);
  const TypeInfo ti = t == MPI_DATATYPE_NULL ? TypeInfo{} : describe(t);
  set_stream(x.in, p, c, in_place ? r : s, total, t, &ti);
  set_stream(x.out, p, c, r, rc[c.me], t, &ti);
  x.commit = true;
  if (p.why != Errc::ok) return x;
  reduction_type(x, rc[c.me], ti, op);
  if (x.in.bytes() > INT_MAX) p.refuse("more than 2 GiB in one buffer");
  if (p.why != Errc::ok) return x;
  const std::int64_t per = ti.size / static_cast<std::int64_t>(size_of(*ti.base));
  x.v().counts.resize(static_cast<std::size_t>(c.n));
  for (int q = 0; q < c.n; ++q) x.v().counts[static_cast<std::size_t>(q)] = rc[q] * per;
  x.send = in_place && x.out.raw() ? kInPlace : x.in.in();
  x.recv = x.out.out();
  return x;
}

// alltoallv: both sides' blocks (in place, the receive blocks are sent: with
// a type that needs packing, they are packed into the scratch that then
// receives, in place).
template <OpKind K>
Prepared prepare_pairs(const Call& c, const void* s, const int* sc, const int* sd, MPI_Datatype st, void* r,
                       const int* rc, const int* rd, MPI_Datatype rt) {
  Prepared x;
  start(x.p, c, K, -1);
  Plan& p = x.p;
  const bool in_place = s == MPI_IN_PLACE;
  blocks_of(x, x.v().blocks, c, r, rc, rd, rt, "receive");
  if (!in_place) blocks_of(x, x.v().send_blocks, c, s, sc, sd, st, "send");
  p.count = 0;  // per pair: agreed in the call (agree_pairs)
  p.dtype = Datatype::uint8;
  if (p.why != Errc::ok) return x;
  if (in_place) {
    (void)x.v().blocks.in();  // packs the blocks to send where they are received (no-op in place)
    x.send = kInPlace;
  } else {
    x.send = x.v().send_blocks.in();
  }
  x.recv = x.v().blocks.out();
  return x;
}

// Across nodes, the MPI's own collective (the same on every rank: the
// operation and the communicator's state say so) for an operation without
// a flow across nodes (nodes.cpp), and for a prefix (scan, exscan) whose
// nodes' ranks interleave: osmp keeps rank order only where every node's
// ranks follow one another (nodes_scan).
template <OpKind K>
bool mpi_across_nodes(const Call& c) {
  if (!c.nodes()) return false;
  const char* why = nullptr;
  if (!flow_across_nodes(K)) {
    why = ": across nodes (osmp has no flow across nodes for it)";
  } else if (osmp::describe(K).plan.walk == Route::prefix && !c.st->nodes_in_rank_order) {
    why =
        ": across nodes whose ranks interleave (osmp keeps rank order only where each node's ranks follow one "
        "another)";
  } else {
    return false;
  }
  declined(cat(c.name, why));
  count(false);
  return true;
}

// A blocking call once prepared: alone, across nodes (its flow), or on osmp
// in the node; then its outcome on this rank.
template <OpKind K, class Mpi>
int blocking(const Call& c, Prepared& x, Mpi&& mpi) {
  Outcome o = c.alone()   ? alone(x)
              : c.nodes() ? flow_across_nodes(K)(c, x)
                          : Outcome::of(run_joined_as<K>(c.team(), x));
  if (o.route == Outcome::Route::osmp) {
    if (x.commit) x.out.commit();
    x.commit_blocks();
  }
  return finish(c, x.p, o, mpi);
}

// The lean way of a blocking call on one node (nearly every call of a
// program): where this rank's buffers are builtin types osmp takes as they
// are and its arguments pass every check that could fail, the engine's
// arguments straight from MPI's, without a Prepared: exactly what
// prepare_<form> and args_of make of them (so a rank on either way meets
// the others in the same call: mpi.*.pmpi_lean_mixed runs half the ranks
// each way), else false and the call is prepared. Forms without a lean way
// are always prepared.
template <OpKind K>
bool lean_none(const Call&, CollArgs& a) {
  a = CollArgs{K};
  return true;
}

// `t` as a builtin osmp has (raw, one element of its base), else null: the
// builtin of the call before at once, another once arith_type has found it
// (and made it the last).
[[gnu::always_inline]] inline const TypeInfo* builtin(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return nullptr;
  if (const TypeInfo* ti = last_builtin(t)) [[likely]]
    return ti;
  return arith_type(t) ? last_builtin(t) : nullptr;
}

template <OpKind K>
bool lean_buffer(const Call& c, CollArgs& a, void* buf, int count, MPI_Datatype t, int root) {
  const TypeInfo* ti = builtin(t);
  if (count < 0 || root < 0 || root >= c.n || !ti) return false;
  const std::int64_t bytes = ti->size * count;
  if (bytes > INT_MAX) return false;  // to the MPI (set_bytes)
  // (as as_called makes them: an operation of this form takes no send buffer)
  a = CollArgs{K, nullptr, buf, bytes, Datatype::uint8, Op::sum, root};
  return true;
}

template <OpKind K>
bool lean_reduction(const Call& c, CollArgs& a, const void* s, void* r, int count, MPI_Datatype t, MPI_Op op,
                    int root) {
  constexpr const Buffers& b = osmp::describe(K).buffers;
  const TypeInfo* ti = builtin(t);
  if (count < 0 || op == MPI_OP_NULL || !ti) return false;
  if (is_rooted(K) && (root < 0 || root >= c.n)) return false;
  const std::optional<Op> o = op_of(op);
  if (!o || !defined_for(*o, *ti->base)) return false;
  const bool is_root = c.me == root;
  const bool wants_out = b.recv.at(is_root) != Amount::none && !(b.first_writes_nothing && c.me == 0);
  const std::int64_t in_factor = b.send.at(is_root) == Amount::all ? c.n : 1;
  if (ti->size * count * in_factor > INT_MAX) return false;
  const bool in_place = s == MPI_IN_PLACE || (wants_out && same_as_in_place(s, r));
  if (in_place && !b.send_in_place.at(is_root)) return false;
  const void* send = in_place ? (wants_out ? kInPlace : r) : s;
  // (as as_called makes them: `root` is -1 where the operation is not rooted)
  a = CollArgs{K, send, wants_out ? r : nullptr, count, *ti->base, *o, root};
  return true;
}

// The uniform gathers' and scatters' blocks (prepare_uniform_gathered and
// _scattered, alike but for the side): `all` holds every rank's block where
// this rank holds them (`holds`: a gather's root, every rank of allgather,
// a scatter's root), `own` this rank's own block, which is in place where
// it is MPI_IN_PLACE or its block of `all` (same count and type). The
// bytes per block, or -1 where the call cannot take the lean way.
[[gnu::always_inline]] inline std::int64_t lean_blocks(const Call& c, bool holds, const void* all, int ac,
                                                       MPI_Datatype at, const void* own, int oc, MPI_Datatype ot,
                                                       bool& in_place) {
  const TypeInfo* ai = holds ? builtin(at) : nullptr;
  if (holds && (!ai || ac < 0)) return -1;
  in_place = holds && (own == MPI_IN_PLACE ||
                       (oc == ac && ot == at && own && own == static_cast<const char*>(all) + ai->size * ac * c.me));
  std::int64_t bytes = 0;
  if (in_place) {
    bytes = ai->size * ac;
  } else {
    const TypeInfo* oi = builtin(ot);
    if (!oi || oc < 0) return -1;
    bytes = oi->size * oc;
    if (holds && bytes != ai->size * ac) return -1;  // MPI_ERR_TRUNCATE
  }
  return bytes * c.n > INT_MAX ? -1 : bytes;  // larger: to the MPI (set_bytes)
}
// gather, allgather: every rank's blocks where this rank receives them.
template <OpKind K>
bool lean_gathered(const Call& c, CollArgs& a, const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt,
                   int root) {
  if (is_rooted(K) && (root < 0 || root >= c.n)) return false;
  const bool receives = osmp::describe(K).buffers.recv.at(c.me == root) != Amount::none;
  bool in_place = false;
  const std::int64_t bytes = lean_blocks(c, receives, r, rc, rt, s, sc, st, in_place);
  if (bytes < 0) return false;
  a = CollArgs{K, in_place ? kInPlace : s, receives ? r : nullptr, bytes, Datatype::uint8, Op::sum, root};
  return true;
}
// scatter: the root's blocks out to every rank's own.
template <OpKind K>
bool lean_scattered_uniform(const Call& c, CollArgs& a, const void* s, int sc, MPI_Datatype st, void* r, int rc,
                            MPI_Datatype rt, int root) {
  if (root < 0 || root >= c.n) return false;
  const bool is_root = c.me == root;
  bool in_place = false;
  const std::int64_t bytes = lean_blocks(c, is_root, s, sc, st, r, rc, rt, in_place);
  if (bytes < 0) return false;
  void* recv = in_place ? const_cast<void*>(kInPlace) : r;
  a = CollArgs{K, is_root ? s : nullptr, recv, bytes, Datatype::uint8, Op::sum, root};
  return true;
}
// alltoall (prepare_uniform_pairs): n blocks each way.
template <OpKind K>
bool lean_pairs_uniform(const Call& c, CollArgs& a, const void* s, int sc, MPI_Datatype st, void* r, int rc,
                        MPI_Datatype rt) {
  const TypeInfo* ri = builtin(rt);
  if (!ri || rc < 0) return false;
  const bool in_place = s == MPI_IN_PLACE || (same_as_in_place(s, r) && sc == rc && st == rt);
  const std::int64_t bytes = ri->size * rc;
  if (!in_place) {
    const TypeInfo* si = builtin(st);
    if (!si || sc < 0 || si->size * sc != bytes) return false;  // MPI_ERR_TRUNCATE
  }
  if (bytes * c.n > INT_MAX) return false;
  a = CollArgs{K, in_place ? kInPlace : s, r, bytes, Datatype::uint8, Op::sum, -1};
  return true;
}

template <OpKind K, class... Args>
bool lean_uniform(const Call& c, CollArgs& a, Args... args) {
  constexpr const Buffers& b = osmp::describe(K).buffers;
  if constexpr (is_reduction(K)) {
    return lean_reduction<K>(c, a, args...);
  } else if constexpr (b.send.root != Amount::all) {
    return lean_gathered<K>(c, a, args...);
  } else if constexpr (b.recv.root == Amount::all) {
    return [&](const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int) {
      return lean_pairs_uniform<K>(c, a, s, sc, st, r, rc, rt);
    }(args...);
  } else {
    return lean_scattered_uniform<K>(c, a, args...);
  }
}
template <OpKind K, class... Args>
bool lean_varied_gathered(const Call&, CollArgs&, Args...) {
  return false;
}
template <OpKind K, class... Args>
bool lean_scattered(const Call&, CollArgs&, Args...) {
  return false;
}
template <OpKind K, class... Args>
bool lean_shares(const Call&, CollArgs&, Args...) {
  return false;
}
template <OpKind K, class... Args>
bool lean_pairs(const Call&, CollArgs&, Args...) {
  return false;
}

// The end of a lean call (the operation's own entry on the team's
// engine): counted when it went well; else its outcome as finish() gives it.
[[gnu::always_inline]] inline int lean_done(const Call& c) {
  count(true);
  if (log_level() >= LogLevel::debug) [[unlikely]]
    log(LogLevel::debug, "osmp_pmpi: ", to_string(c.kind), ": osmp");
  return MPI_SUCCESS;
}
template <OpKind K, class Mpi>
int lean_failed(const Call& c, const Status& st, Mpi&& mpi) {
  Plan p;
  p.kind = K;
  return finish(c, p, Outcome::of(st), mpi);
}

}  // namespace
}  // namespace osmp::pmpi

using namespace osmp;
using namespace osmp::pmpi;

// Each form's prepare_<form> with its arguments (entries.h's names), the
// root where the row is rooted (-1 elsewhere).
#define OSMP_PMPI_PREPARE_none(K, reduces, root) prepare_none<K>(c)
#define OSMP_PMPI_PREPARE_buffer(K, reduces, root) prepare_buffer<K>(c, buf, count, t, root)
#define OSMP_PMPI_PREPARE_uniform(K, reduces, root) OSMP_PMPI_PREPARE_UNIFORM_##reduces(K, root)
#define OSMP_PMPI_PREPARE_UNIFORM_1(K, root) prepare_reduction<K>(c, s, r, count, t, op, root)
#define OSMP_PMPI_PREPARE_UNIFORM_0(K, root) prepare_uniform<K>(c, s, sc, st, r, rc, rt, root)
#define OSMP_PMPI_PREPARE_gathered(K, reduces, root) prepare_gathered<K>(c, s, sc, st, r, rc, d, rt, root)
#define OSMP_PMPI_PREPARE_scattered(K, reduces, root) prepare_scattered<K>(c, s, sc, d, st, r, rc, rt, root)
#define OSMP_PMPI_PREPARE_shares(K, reduces, root) prepare_shares<K>(c, s, r, rc, t, op)
#define OSMP_PMPI_PREPARE_pairs(K, reduces, root) prepare_pairs<K>(c, s, sc, sd, st, r, rc, rd, rt)
#define OSMP_PMPI_PREPARE_(name, form, rooted, reduces) \
  OSMP_PMPI_PREPARE_##form(OpKind::name, reduces, OSMP_IF_ELSE_##rooted(root, -1))

// Each form's lean_<form> with its arguments (entries.h's names).
#define OSMP_PMPI_LEAN_ARGS_none(reduces, root)
#define OSMP_PMPI_LEAN_ARGS_buffer(reduces, root) , buf, count, t, root
#define OSMP_PMPI_LEAN_ARGS_uniform(reduces, root) OSMP_PMPI_LEAN_UNIFORM_##reduces(root)
#define OSMP_PMPI_LEAN_UNIFORM_1(root) , s, r, count, t, op, root
#define OSMP_PMPI_LEAN_UNIFORM_0(root) , s, sc, st, r, rc, rt, root
#define OSMP_PMPI_LEAN_ARGS_gathered(reduces, root) , s, sc, st, r, rc, d, rt, root
#define OSMP_PMPI_LEAN_ARGS_scattered(reduces, root) , s, sc, d, st, r, rc, rt, root
#define OSMP_PMPI_LEAN_ARGS_shares(reduces, root) , s, r, rc, t, op
#define OSMP_PMPI_LEAN_ARGS_pairs(reduces, root) , s, sc, sd, st, r, rc, rd, rt
#define OSMP_PMPI_LEAN_FN_none lean_none
#define OSMP_PMPI_LEAN_FN_buffer lean_buffer
#define OSMP_PMPI_LEAN_FN_uniform lean_uniform
#define OSMP_PMPI_LEAN_FN_gathered lean_varied_gathered
#define OSMP_PMPI_LEAN_FN_scattered lean_scattered
#define OSMP_PMPI_LEAN_FN_shares lean_shares
#define OSMP_PMPI_LEAN_FN_pairs lean_pairs
#define OSMP_PMPI_LEAN_(name, form, rooted, reduces) \
  OSMP_PMPI_LEAN_FN_##form<OpKind::name>(c, a OSMP_PMPI_LEAN_ARGS_##form(reduces, OSMP_IF_ELSE_##rooted(root, -1)))

// osmp_pmpi_<name>: alone, across nodes (its flow, nodes.cpp) or on
// osmp in the node; osmp_pmpi_i<name>: started on osmp (nonblocking.cpp).
// Each as the MPI's own call where the route rule says so.
// A call the lean way ends here when it went well (nearly every call): no
// closure for the MPI's call is made on that path (made, it cost about 25
// instructions a call).
#define OSMP_PMPI_ENTRIES_(name, Name, NAME, key, rooted, reduces, form)                                               \
  static int osmp_pmpi_##name##_rest(const Call& c, const Status* lean, OSMP_MPI_PARAMS(form, rooted, reduces)) {      \
    auto mpi = [&] { return PMPI_##Name(OSMP_MPI_ARGS(form, rooted, reduces)); };                                      \
    if (lean) return lean_failed<OpKind::name>(c, *lean, mpi);                                                         \
    if (!c.take || mpi_across_nodes<OpKind::name>(c)) return mpi();                                                    \
    Prepared x = OSMP_PMPI_PREPARE_(name, form, rooted, reduces);                                                      \
    return blocking<OpKind::name>(c, x, mpi);                                                                          \
  }                                                                                                                    \
  int osmp_pmpi_##name(OSMP_MPI_PARAMS(form, rooted, reduces)) {                                                       \
    Call c(comm, OpKind::name, "MPI_" #Name);                                                                          \
    if (CollArgs a;                                                                                                    \
        c.take && c.st->lean && c.st->kind == CommState::Kind::node && OSMP_PMPI_LEAN_(name, form, rooted, reduces)) { \
      const Status osmp_st = Ops<OpKind::name>::entry.call(TeamAccess::engine(c.team(), OpKind::name), a);             \
      if (osmp_st.ok()) [[likely]]                                                                                     \
        return lean_done(c);                                                                                           \
      return osmp_pmpi_##name##_rest(c, &osmp_st, OSMP_MPI_ARGS(form, rooted, reduces));                               \
    }                                                                                                                  \
    return osmp_pmpi_##name##_rest(c, nullptr, OSMP_MPI_ARGS(form, rooted, reduces));                                  \
  }                                                                                                                    \
  int osmp_pmpi_i##name(OSMP_MPI_PARAMS(form, rooted, reduces), MPI_Request* req) {                                    \
    Call c(comm, OpKind::name, "MPI_I" #name, /*nonblocking=*/true);                                                   \
    auto mpi = [=](MPI_Request* q) { return own().i##name(OSMP_MPI_ARGS(form, rooted, reduces), q); };                 \
    if (!c.take) return mpi(req);                                                                                      \
    return nonblocking(c, OSMP_PMPI_PREPARE_(name, form, rooted, reduces), req, mpi);                                  \
  }

extern "C" {
OSMP_COLLECTIVES(OSMP_PMPI_ENTRIES_)
}  // extern "C"

extern "C" {
// For tests and tools: how many collectives this process ran on osmp / the MPI.
__attribute__((visibility("default"))) long long osmp_pmpi_calls(int on_osmp) { return calls(on_osmp != 0); }
__attribute__((visibility("default"))) long long osmp_pmpi_single_copies(void) { return single_copies(); }
__attribute__((visibility("default"))) long long osmp_pmpi_leader_calls(void) { return g_leader_calls; }
// Teams alive now and at most, and the shared memory of this process's teams, kept ones included (bytes).
__attribute__((visibility("default"))) void osmp_pmpi_shm_use(int* teams, int* peak_teams, unsigned long long* bytes,
                                                              unsigned long long* peak_bytes) {
  const ShmUse& u = shm_use();
  *teams = u.teams;
  *peak_teams = u.peak_teams;
  *bytes = u.bytes;
  *peak_bytes = u.peak_bytes;
}

void osmp_pmpi_report(void) { report(reporting_rank()); }

void osmp_pmpi_set_undescribed_test(int (*undescribed)(MPI_Datatype)) { osmp::pmpi::set_undescribed_test(undescribed); }

void osmp_pmpi_set_progress_hook(void (*hook)()) { osmp::set_progress_hook(hook); }

void osmp_pmpi_set_verbose(int level) {
  if (level >= 2)
    set_log_level(LogLevel::debug);
  else if (level >= 1)
    set_log_level(LogLevel::info);
}

void osmp_pmpi_finalize(void) {
  int rank = 0, finalized = 0;
  PMPI_Finalized(&finalized);
  if (finalized) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Calls still pending (their requests freed, or never waited for) end
  // before the teams go: every rank has started them.
  complete_all();
  release_all();
  drop_kept_vblocks();
  report(rank);
}
}
