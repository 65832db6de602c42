// osmp: topology-aware shared-memory collectives, the C++ interface.
//
// A Team is the processes of a job on this machine (started by osmprun, or
// created over any Bootstrap). Every collective call is collective over the
// team, with the same count, datatype, op and root on every rank; ranks that
// disagree all get Errc::mismatch and the team stays usable. Calls return a
// Status (never throw); `kInPlace` plays MPI_IN_PLACE. A Team that was moved
// from answers every call with Errc::invalid_argument (rank() and size(): -1).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "osmp_base.hpp"  // Status, Result, Datatype, Op, OpKind, Bootstrap, Settings

namespace osmp {

// Internal types a Team holds by pointer only.
class Views;
class Heap;
struct CollArgs;
struct CallState;
struct TeamAccess;

// How a team is made: settings by the names and in the syntax of the OSMP_*
// environment variables (docs/settings.md lists them), e.g.
// {"OSMP_VH", "Package:7"}, {"OSMP_WAIT", "spin"}, {"OSMP_HEAP_SIZE", "0"}.
// A default Options is osmp's defaults, without a tuning file. An unknown
// name or a bad value is Errc::invalid_argument from Team::create, naming it.
struct Options {
  Settings settings;
  // Settings for single operations, over the team-wide ones (those
  // docs/settings.md marks per operation: OSMP_VH, OSMP_BASE_CASE, ...).
  std::map<OpKind, Settings> per_op;
  // A tuning file (osmp-tune) to apply when it was made for this machine and
  // placement; "" for none. It fills in every setting the two maps above do
  // not name.
  std::string tuning_file;
  // Every setting the environment sets (OSMP_VH_REDUCE, OSMP_BASE_CASE_BCAST,
  // ... into per_op), checked, and the tuning file of OSMP_TUNING_FILE or the
  // default location.
  static Result<Options> from_env();
};

// A non-blocking call (Team::ibarrier() and the others; docs/nonblocking.md).
// The call is started when the request is made and completes in test() or
// wait(), or in any later call on its team; the buffers it names must stay
// put until then. Movable, not copyable. Destroying (or reset()ing) a
// request that has not completed detaches it: the call still runs, in order,
// when the team's later calls or finish() move the team on (MPI_Request_free).
class Request {
 public:
  Request() = default;  // no call: complete, ok
  Request(Request&&) noexcept = default;
  Request& operator=(Request&&) noexcept = default;
  ~Request() = default;
  // Whether the call has completed; moves this thread's pending calls on,
  // never blocks.
  bool test();
  // Completes the call (moving the calls started before it on first) and
  // returns its status; again the same status on later calls.
  Status wait();
  // Whether it has completed, without moving anything on.
  bool done() const;
  // The call's status once done() (ok before).
  Status status() const;
  void reset() { c_.reset(); }

 private:
  friend class Team;
  explicit Request(std::shared_ptr<CallState> c) : c_(std::move(c)) {}
  std::shared_ptr<CallState> c_;
};

// Waits for every request, in any order; the first error, by position.
Status wait_all(std::span<Request> requests);

// Memory of this process's shared heap (docs/heap.md): `size()` elements of
// T, page-aligned, that every rank of the process's teams maps. Collectives
// whose buffers lie in the ranks' heaps copy each byte once. Freed when the
// handle goes (or by free()); it keeps the heap alive until then. Unlike
// Team::free_bytes it does not ask the team: let it go only when no started
// call uses it, and not after a call on it failed with a dead peer.
Status free_heap_memory(Heap& h, void* p);  // HeapArray's (api/team.cpp)

template <class T>
class HeapArray {
  static_assert(std::is_trivially_copyable_v<T>, "osmp: heap arrays hold trivially copyable elements");

 public:
  HeapArray() = default;
  HeapArray(HeapArray&& o) noexcept : heap_(std::move(o.heap_)), data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
  }
  HeapArray& operator=(HeapArray&& o) noexcept {
    if (this != &o) {
      (void)free();
      heap_ = std::move(o.heap_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~HeapArray() { (void)free(); }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }
  std::span<T> span() const { return {data_, size_}; }
  operator std::span<T>() const { return span(); }
  operator std::span<const T>() const { return {data_, size_}; }
  // Gives the memory back now (the error of a heap that refused).
  Status free() {
    if (!data_) return {};
    Status st = free_heap_memory(*heap_, data_);
    heap_.reset();
    data_ = nullptr;
    size_ = 0;
    return st;
  }

 private:
  friend class Team;
  HeapArray(std::shared_ptr<Heap> h, T* p, std::size_t n) : heap_(std::move(h)), data_(p), size_(n) {}
  std::shared_ptr<Heap> heap_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// The parameters of each form of osmp_ops.h, as Team's collectives take
// them (osmp.h's OSMP_PARAMS_<form> in C++ types, with shorter names);
// OSMP_TEAM_PARAMS_OF_: a row's, with the op where it reduces and the root
// where it has one. Pasted where the row is read (OSMP_TEAM_DECLARE_), as
// osmp.h's are; the header's means, not API.
#define OSMP_TEAM_PARAMS_none
#define OSMP_TEAM_PARAMS_buffer void *buf, std::int64_t count, Datatype type
#define OSMP_TEAM_PARAMS_uniform const void *send, void *recv, std::int64_t count, Datatype type
#define OSMP_TEAM_PARAMS_gathered                                                                           \
  const void *send, std::int64_t count, void *recv, const std::int64_t *counts, const std::int64_t *displs, \
      Datatype type
#define OSMP_TEAM_PARAMS_scattered                                                                          \
  const void *send, const std::int64_t *counts, const std::int64_t *displs, void *recv, std::int64_t count, \
      Datatype type
#define OSMP_TEAM_PARAMS_shares const void *send, void *recv, const std::int64_t *counts, Datatype type
#define OSMP_TEAM_PARAMS_pairs                                                                    \
  const void *send, const std::int64_t *send_counts, const std::int64_t *send_displs, void *recv, \
      const std::int64_t *recv_counts, const std::int64_t *recv_displs, Datatype type
#define OSMP_TEAM_PARAMS_OF_(form, rooted, reduces) \
  OSMP_TEAM_PARAMS_##form OSMP_IF_##reduces(, Op op) OSMP_IF_##rooted(, int root)

class Team {
 public:
  // The team of the job osmprun started; collective over its ranks.
  static Result<Team> create();
  static Result<Team> create(const Options& options);
  // Over any bootstrap (MPI, threads in tests); collective over its ranks.
  static Result<Team> create(Bootstrap& bootstrap, const Options& options);

  Team(Team&&) noexcept;
  Team& operator=(Team&&) noexcept;
  ~Team();
  // Leaving the team, on every rank: with OSMP_CHECK=lazy, returns the error
  // of an earlier call that another rank found and this rank has not been
  // told of yet (docs/protocol.md, "One-pass calls"); waits until every rank
  // has made its last call. The destructor leaves without waiting (and
  // without reporting): call finish() on every rank to be told.
  Status finish();

  int rank() const;
  int size() const;

  // New teams from this one, collective over it (docs/standalone.md, "Sub-teams"):
  // the ranks that pass the same color (>= 0) form a team, ordered by key,
  // then by their rank here; a negative color joins none (an empty
  // optional). The groups' teams are made at the same time, over this
  // team's own collectives: the machine, places, settings and profiles are
  // this team's, nothing is loaded again and no rendezvous is made; each new
  // team has its own shared memory. A failure on any rank is every rank's
  // error. dup(): one team over every rank, in this order.
  Result<std::optional<Team>> split(int color, int key);
  Result<Team> dup();

  // Runtime tuning, collective over the team: every rank passes the same
  // settings; all switch between the same two collectives. A bad or
  // different setting on any rank is an error on every rank, and the team
  // goes on unchanged. `all` applies to every operation, `per_op` then to
  // single ones (OSMP_VH, OSMP_BASE_CASE, OSMP_FLAT_MAX, OSMP_KNOMIAL_RADIX).
  Status configure(const Settings& all, const std::map<OpKind, Settings>& per_op = {});
  // The virtual hierarchy of every operation, or of one.
  Status set_vh(std::string_view spec);
  Status set_vh(OpKind op, std::string_view spec);
  // The spec an operation runs with now; the settings of its profile.
  std::string vh(OpKind op) const;
  std::string settings_text(OpKind op) const;
  // Reconfigurations so far, and how many collectives had run before the last.
  std::uint64_t generation() const;
  std::uint64_t switched_after() const;
  // Distinct trees (teams of segments) the operations use now.
  int views() const;

  // The collectives: Team::<name> and its started form Team::i<name> for
  // each row of osmp_ops.h (barrier, bcast, reduce, ..., reduce_scatter),
  // with the parameters of its form (OSMP_TEAM_PARAMS_<form> above: osmp.h's
  // in C++ types and shorter names), then the op where it reduces and the
  // root where it has one. What each computes: docs/standalone.md, "The
  // collectives". The started forms are completed by their Request
  // (docs/nonblocking.md); every rank starts a team's calls, blocking and
  // not, in the same order, and a started call's bad arguments and
  // mismatches are reported by its request. The counts and displacements
  // too stay put until the request completes.
#define OSMP_TEAM_DECLARE_(name, Name, NAME, key, rooted, reduces, form)                        \
  Status name(OSMP_TEAM_PARAMS_##form OSMP_IF_##reduces(, Op op) OSMP_IF_##rooted(, int root)); \
  Request i##name(OSMP_TEAM_PARAMS_##form OSMP_IF_##reduces(, Op op) OSMP_IF_##rooted(, int root));
  OSMP_COLLECTIVES(OSMP_TEAM_DECLARE_)
#undef OSMP_TEAM_DECLARE_

  // The shared heap (docs/heap.md). Local: no other rank takes part. Sizes
  // in bytes are rounded up to pages. No room: Errc::no_space with the sizes
  // (OSMP_HEAP_SIZE; a process with OSMP_HEAP_SIZE=0 has no heap).
  template <class T>
  Result<HeapArray<T>> allocate(std::size_t n) {
    Result<void*> p = allocate_elements(n, sizeof(T));
    if (!p.ok()) return p.status();
    return HeapArray<T>(heap_owner(), static_cast<T*>(*p), n);
  }
  Result<void*> allocate_bytes(std::size_t bytes);
  // Frees what allocate_bytes() returned. Not a block of this process's
  // heap (freed twice, never allocated, inside a block), or calls started on
  // this team still pending: Errc::invalid_argument, and nothing changes.
  Status free_bytes(void* p);
  // This rank's calls so far that moved their data by single copy through
  // the heaps (a check that the buffers are where they should be).
  std::uint64_t single_copies() const;

  // Joins a collective without taking part: nothing is read or written.
  // `why` unsupported declines the call: every rank returns unsupported when
  // every rank declined, mismatch when only some did (the MPI glue: "this
  // call goes to the MPI", which must hold for all or none). Any other error
  // (not peer_dead, aborted) reaches every rank of the call: `why`, or a
  // disagreement found first (the glue: an error found among node leaders).
  Status abstain(OpKind kind, std::int64_t count, Datatype type, Op op, int root, Errc why);
  Request iabstain(OpKind kind, std::int64_t count, Datatype type, Op op, int root, Errc why);

  // Typed forms, the same for every operation, blocking and not: the
  // datatype follows T, the count the spans (T may be const for inputs). In
  // place: one span, as MPI_IN_PLACE would use it (reduce: at the root;
  // gather: the root's whole output, its own block in place; scatter: the
  // root's whole input, its block left in place; allgather: this rank's
  // block already in it; reduce_scatter_block: the result lands in its first
  // block; alltoall: the blocks to send, replaced by those received). Spans
  // whose sizes do not fit each other (counted on the ranks that use them:
  // reduce's and gather's output and scatter's input at the root only) are
  // Errc::invalid_argument on this rank, which still joins the call, so that
  // the others get an error too instead of waiting for it (in the call
  // itself; a small rooted call's senders under OSMP_CHECK=lazy learn it at
  // their next call on the team, docs/protocol.md).
  template <class T>
  Status bcast(std::span<T> buf, int root) {
    return bcast(buf.data(), count_of(buf), datatype_of<T>(), root);
  }
  template <class T>
  Request ibcast(std::span<T> buf, int root) {
    return ibcast(buf.data(), count_of(buf), datatype_of<T>(), root);
  }
  template <class T>
  Status reduce(std::span<const T> in, std::span<T> out, Op op, int root) {
    if (rank() == root && out.size() != in.size()) return refuse(OpKind::reduce, in.size(), datatype_of<T>(), op, root);
    return reduce(in.data(), out.data(), count_of(in), datatype_of<T>(), op, root);
  }
  template <class T>
  Request ireduce(std::span<const T> in, std::span<T> out, Op op, int root) {
    if (rank() == root && out.size() != in.size()) {
      return irefuse(OpKind::reduce, in.size(), datatype_of<T>(), op, root);
    }
    return ireduce(in.data(), out.data(), count_of(in), datatype_of<T>(), op, root);
  }
  template <class T>
  Status reduce(std::span<T> inout, Op op, int root) {  // in place at the root
    const bool r = rank() == root;
    return reduce(r ? kInPlace : inout.data(), r ? inout.data() : nullptr, count_of(inout), datatype_of<T>(), op, root);
  }
  template <class T>
  Request ireduce(std::span<T> inout, Op op, int root) {  // in place at the root
    const bool r = rank() == root;
    return ireduce(r ? kInPlace : inout.data(), r ? inout.data() : nullptr, count_of(inout), datatype_of<T>(), op,
                   root);
  }
  template <class T>
  Status allreduce(std::span<const T> in, std::span<T> out, Op op) {
    if (in.size() != out.size()) return refuse(OpKind::allreduce, in.size(), datatype_of<T>(), op, -1);
    return allreduce(in.data(), out.data(), count_of(in), datatype_of<T>(), op);
  }
  template <class T>
  Request iallreduce(std::span<const T> in, std::span<T> out, Op op) {
    if (in.size() != out.size()) return irefuse(OpKind::allreduce, in.size(), datatype_of<T>(), op, -1);
    return iallreduce(in.data(), out.data(), count_of(in), datatype_of<T>(), op);
  }
  template <class T>
  Status allreduce(std::span<T> inout, Op op) {  // in place
    return allreduce(kInPlace, inout.data(), count_of(inout), datatype_of<T>(), op);
  }
  template <class T>
  Request iallreduce(std::span<T> inout, Op op) {  // in place
    return iallreduce(kInPlace, inout.data(), count_of(inout), datatype_of<T>(), op);
  }
  template <class T>
  Status gather(std::span<const T> in, std::span<T> out, int root) {
    if (rank() == root && out.size() != in.size() * ranks()) {
      return refuse(OpKind::gather, in.size(), datatype_of<T>(), Op::sum, root);
    }
    return gather(in.data(), out.data(), count_of(in), datatype_of<T>(), root);
  }
  template <class T>
  Request igather(std::span<const T> in, std::span<T> out, int root) {
    if (rank() == root && out.size() != in.size() * ranks()) {
      return irefuse(OpKind::gather, in.size(), datatype_of<T>(), Op::sum, root);
    }
    return igather(in.data(), out.data(), count_of(in), datatype_of<T>(), root);
  }
  template <class T>
  Status gather(std::span<T> inout, int root) {  // in place at the root
    const RootedInPlace p = rooted_in_place(inout, root);
    if (!p.fits) return refuse(OpKind::gather, static_cast<std::size_t>(p.count), datatype_of<T>(), Op::sum, root);
    return gather(p.root ? kInPlace : inout.data(), p.root ? inout.data() : nullptr, p.count, datatype_of<T>(), root);
  }
  template <class T>
  Request igather(std::span<T> inout, int root) {  // in place at the root
    const RootedInPlace p = rooted_in_place(inout, root);
    if (!p.fits) return irefuse(OpKind::gather, static_cast<std::size_t>(p.count), datatype_of<T>(), Op::sum, root);
    return igather(p.root ? kInPlace : inout.data(), p.root ? inout.data() : nullptr, p.count, datatype_of<T>(), root);
  }
  template <class T>
  Status allgather(std::span<const T> in, std::span<T> out) {
    if (out.size() != in.size() * ranks()) return refuse(OpKind::allgather, in.size(), datatype_of<T>(), Op::sum, -1);
    return allgather(in.data(), out.data(), count_of(in), datatype_of<T>());
  }
  template <class T>
  Request iallgather(std::span<const T> in, std::span<T> out) {
    if (out.size() != in.size() * ranks()) return irefuse(OpKind::allgather, in.size(), datatype_of<T>(), Op::sum, -1);
    return iallgather(in.data(), out.data(), count_of(in), datatype_of<T>());
  }
  template <class T>
  Status allgather(std::span<T> inout) {  // in place: this rank's block already in inout
    if (inout.size() % ranks()) return refuse(OpKind::allgather, inout.size() / ranks(), datatype_of<T>(), Op::sum, -1);
    return allgather(kInPlace, inout.data(), static_cast<std::int64_t>(inout.size() / ranks()), datatype_of<T>());
  }
  template <class T>
  Request iallgather(std::span<T> inout) {  // in place
    if (inout.size() % ranks()) {
      return irefuse(OpKind::allgather, inout.size() / ranks(), datatype_of<T>(), Op::sum, -1);
    }
    return iallgather(kInPlace, inout.data(), static_cast<std::int64_t>(inout.size() / ranks()), datatype_of<T>());
  }
  template <class T>
  Status scatter(std::span<const T> in, std::span<T> out, int root) {
    if (rank() == root && in.size() != out.size() * ranks()) {
      return refuse(OpKind::scatter, out.size(), datatype_of<T>(), Op::sum, root);
    }
    return scatter(in.data(), out.data(), count_of(out), datatype_of<T>(), root);
  }
  template <class T>
  Request iscatter(std::span<const T> in, std::span<T> out, int root) {
    if (rank() == root && in.size() != out.size() * ranks()) {
      return irefuse(OpKind::scatter, out.size(), datatype_of<T>(), Op::sum, root);
    }
    return iscatter(in.data(), out.data(), count_of(out), datatype_of<T>(), root);
  }
  template <class T>
  Status scatter(std::span<T> inout, int root) {  // in place at the root
    const RootedInPlace p = rooted_in_place(inout, root);
    if (!p.fits) return refuse(OpKind::scatter, static_cast<std::size_t>(p.count), datatype_of<T>(), Op::sum, root);
    void* recv = p.root ? const_cast<void*>(kInPlace) : inout.data();
    return scatter(p.root ? inout.data() : nullptr, recv, p.count, datatype_of<T>(), root);
  }
  template <class T>
  Request iscatter(std::span<T> inout, int root) {  // in place at the root
    const RootedInPlace p = rooted_in_place(inout, root);
    if (!p.fits) return irefuse(OpKind::scatter, static_cast<std::size_t>(p.count), datatype_of<T>(), Op::sum, root);
    void* recv = p.root ? const_cast<void*>(kInPlace) : inout.data();
    return iscatter(p.root ? inout.data() : nullptr, recv, p.count, datatype_of<T>(), root);
  }
  template <class T>
  Status reduce_scatter_block(std::span<const T> in, std::span<T> out, Op op) {
    if (in.size() != out.size() * ranks()) {
      return refuse(OpKind::reduce_scatter_block, out.size(), datatype_of<T>(), op, -1);
    }
    return reduce_scatter_block(in.data(), out.data(), count_of(out), datatype_of<T>(), op);
  }
  template <class T>
  Request ireduce_scatter_block(std::span<const T> in, std::span<T> out, Op op) {
    if (in.size() != out.size() * ranks()) {
      return irefuse(OpKind::reduce_scatter_block, out.size(), datatype_of<T>(), op, -1);
    }
    return ireduce_scatter_block(in.data(), out.data(), count_of(out), datatype_of<T>(), op);
  }
  template <class T>
  Status reduce_scatter_block(std::span<T> inout, Op op) {  // in place: the result in the first block
    if (inout.size() % ranks()) {
      return refuse(OpKind::reduce_scatter_block, inout.size() / ranks(), datatype_of<T>(), op, -1);
    }
    const auto n = static_cast<std::int64_t>(inout.size() / ranks());
    return reduce_scatter_block(kInPlace, inout.data(), n, datatype_of<T>(), op);
  }
  template <class T>
  Request ireduce_scatter_block(std::span<T> inout, Op op) {  // in place
    if (inout.size() % ranks()) {
      return irefuse(OpKind::reduce_scatter_block, inout.size() / ranks(), datatype_of<T>(), op, -1);
    }
    const auto n = static_cast<std::int64_t>(inout.size() / ranks());
    return ireduce_scatter_block(kInPlace, inout.data(), n, datatype_of<T>(), op);
  }
  template <class T>
  Status alltoall(std::span<const T> in, std::span<T> out) {
    if (in.size() != out.size() || in.size() % ranks()) {
      return refuse(OpKind::alltoall, in.size() / ranks(), datatype_of<T>(), Op::sum, -1);
    }
    return alltoall(in.data(), out.data(), static_cast<std::int64_t>(in.size() / ranks()), datatype_of<T>());
  }
  template <class T>
  Request ialltoall(std::span<const T> in, std::span<T> out) {
    if (in.size() != out.size() || in.size() % ranks()) {
      return irefuse(OpKind::alltoall, in.size() / ranks(), datatype_of<T>(), Op::sum, -1);
    }
    return ialltoall(in.data(), out.data(), static_cast<std::int64_t>(in.size() / ranks()), datatype_of<T>());
  }
  template <class T>
  Status alltoall(std::span<T> inout) {  // in place
    if (inout.size() % ranks()) return refuse(OpKind::alltoall, inout.size() / ranks(), datatype_of<T>(), Op::sum, -1);
    return alltoall(kInPlace, inout.data(), static_cast<std::int64_t>(inout.size() / ranks()), datatype_of<T>());
  }
  template <class T>
  Request ialltoall(std::span<T> inout) {  // in place
    if (inout.size() % ranks()) {
      return irefuse(OpKind::alltoall, inout.size() / ranks(), datatype_of<T>(), Op::sum, -1);
    }
    return ialltoall(kInPlace, inout.data(), static_cast<std::int64_t>(inout.size() / ranks()), datatype_of<T>());
  }
  template <class T>
  Status scan(std::span<const T> in, std::span<T> out, Op op) {
    if (in.size() != out.size()) return refuse(OpKind::scan, in.size(), datatype_of<T>(), op, -1);
    return scan(in.data(), out.data(), count_of(in), datatype_of<T>(), op);
  }
  template <class T>
  Request iscan(std::span<const T> in, std::span<T> out, Op op) {
    if (in.size() != out.size()) return irefuse(OpKind::scan, in.size(), datatype_of<T>(), op, -1);
    return iscan(in.data(), out.data(), count_of(in), datatype_of<T>(), op);
  }
  template <class T>
  Status scan(std::span<T> inout, Op op) {  // in place
    return scan(kInPlace, inout.data(), count_of(inout), datatype_of<T>(), op);
  }
  template <class T>
  Request iscan(std::span<T> inout, Op op) {  // in place
    return iscan(kInPlace, inout.data(), count_of(inout), datatype_of<T>(), op);
  }
  template <class T>
  Status exscan(std::span<const T> in, std::span<T> out, Op op) {  // rank 0's out: not written
    if (in.size() != out.size()) return refuse(OpKind::exscan, in.size(), datatype_of<T>(), op, -1);
    return exscan(in.data(), out.data(), count_of(in), datatype_of<T>(), op);
  }
  template <class T>
  Request iexscan(std::span<const T> in, std::span<T> out, Op op) {
    if (in.size() != out.size()) return irefuse(OpKind::exscan, in.size(), datatype_of<T>(), op, -1);
    return iexscan(in.data(), out.data(), count_of(in), datatype_of<T>(), op);
  }
  template <class T>
  Status exscan(std::span<T> inout, Op op) {  // in place (rank 0: its input stays)
    return exscan(kInPlace, inout.data(), count_of(inout), datatype_of<T>(), op);
  }
  template <class T>
  Request iexscan(std::span<T> inout, Op op) {  // in place
    return iexscan(kInPlace, inout.data(), count_of(inout), datatype_of<T>(), op);
  }

 private:
  friend struct TeamAccess;  // osmp's own layers (api/access.hpp)
  Team();
  template <class S>
  static std::int64_t count_of(const S& span) {
    return static_cast<std::int64_t>(span.size());
  }
  // A rooted call in place on one span: the root's holds every rank's block
  // (gather's output, scatter's input), the others' their own block.
  struct RootedInPlace {
    bool root = false, fits = true;
    std::int64_t count = 0;
  };
  template <class T>
  RootedInPlace rooted_in_place(std::span<T> inout, int root) const {
    RootedInPlace p;
    p.root = rank() == root;
    p.count = p.root ? static_cast<std::int64_t>(inout.size() / ranks()) : count_of(inout);
    p.fits = !p.root || inout.size() % ranks() == 0;
    return p;
  }
  // The team's size as a span size (at least 1: a moved-from team says -1).
  std::size_t ranks() const { return static_cast<std::size_t>(size() > 0 ? size() : 1); }
  // This rank's spans do not fit: it joins the call declaring an argument
  // error (abstain), and says which.
  Status refuse(OpKind kind, std::size_t count, Datatype type, Op op, int root);
  Request irefuse(OpKind kind, std::size_t count, Datatype type, Op op, int root);
  static Status moved_from();
  Status run(const CollArgs& args);
  Request start(const CollArgs& args);
  // A request that completed at once with `st`.
  static Request failed(Status st);
  Status apply_initial(const Options& options);
  std::shared_ptr<Heap> heap_owner() const;
  // n elements of `size` bytes (Errc::no_space when that overflows).
  Result<void*> allocate_elements(std::size_t n, std::size_t size);
  std::unique_ptr<Views> views_;
};

}  // namespace osmp
