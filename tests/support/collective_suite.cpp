#include "collective_suite.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "collectives/kernels.hpp"
#include "collectives/ops/describe.hpp"

namespace osmp::test {
namespace {

constexpr std::size_t kGuard = 64;
constexpr unsigned char kCanary = 0xC3;
constexpr unsigned char kPoison = 0xAB;

bool reduction(OpKind k) { return is_reduction(k); }
bool rooted(OpKind k) { return is_rooted(k); }

// Values whose sums, products, minima and maxima are exact in any order, so
// every tree shape must give the reference bits.
template <class T>
T value(int rank, std::int64_t i, std::uint32_t seed, Op op) {
  std::uint64_t h = (static_cast<std::uint64_t>(rank) * 0x9E3779B97F4A7C15ULL) ^
                    (static_cast<std::uint64_t>(i) * 0xBF58476D1CE4E5B9ULL) ^ (seed * 0x94D049BB133111EBULL);
  h ^= h >> 31;
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Op::prod) {
      static const T kSet[] = {T(1), T(-1), T(2), T(0.5)};
      return kSet[h % 4];
    }
    return static_cast<T>(static_cast<std::int64_t>(h % 2001) - 1000) / T(8);
  } else {
    if (op == Op::land || op == Op::lor) return static_cast<T>(h % 4 == 0 ? 0 : h % 3);
    return static_cast<T>(h);
  }
}

template <class T>
T fold(Op op, T a, T b) {
  T out = a;
  combine_scalar(&out, &b, 1, datatype_of<T>(), op);
  return out;
}

SharedSource* g_source = nullptr;

// A buffer with canaries on both sides, in private memory, in the team's
// shared heap or from the shared source (then freed with the buffer).
struct Guarded {
  std::vector<unsigned char> own;
  unsigned char* mem = nullptr;
  std::size_t len;
  Team* heap = nullptr;
  SharedSource* source = nullptr;
  Guarded(Team& team, std::size_t bytes, bool in_heap) : len(bytes) {
    if (in_heap && g_source) {
      mem = static_cast<unsigned char*>(g_source->allocate(bytes + 2 * kGuard));
      if (!mem) throw std::runtime_error("the shared source has no room");
      source = g_source;
    } else if (in_heap) {
      auto p = team.allocate_bytes(bytes + 2 * kGuard);
      if (!p.ok()) throw std::runtime_error(p.status().to_string());
      mem = static_cast<unsigned char*>(*p);
      heap = &team;
    } else {
      own.resize(bytes + 2 * kGuard);
      mem = own.data();
    }
    std::memset(mem, kPoison, bytes + 2 * kGuard);
    std::memset(mem, kCanary, kGuard);
    std::memset(mem + kGuard + len, kCanary, kGuard);
  }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  ~Guarded() {
    if (heap) (void)heap->free_bytes(mem);
    if (source) source->free(mem);
  }
  void* data() { return mem + kGuard; }
  std::vector<unsigned char> contents() const { return {mem, mem + len + 2 * kGuard}; }
  bool intact() const {
    for (std::size_t i = 0; i < kGuard; ++i)
      if (mem[i] != kCanary || mem[kGuard + len + i] != kCanary) return false;
    return true;
  }
};

bool send_in_heap(Placement p, int rank) {
  return p == Placement::heap || p == Placement::heap_send || (p == Placement::mixed && rank % 2 == 0);
}
bool recv_in_heap(Placement p, int rank) {
  return p == Placement::heap || p == Placement::heap_recv || (p == Placement::mixed && rank % 2 == 1);
}

template <class T>
std::string check(const char* what, const T* got, const std::vector<T>& want) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      return cat(what, "[", i, "] = ", +got[i], ", expected ", +want[i]);
    }
  }
  return "";
}

// The v-variants' blocks for a case of base count c on n ranks: uneven
// counts, every third one 0, laid out in reverse rank order with gaps
// (`gap` elements after each block: displacements are each rank's own).
struct VariedLayout {
  std::vector<std::int64_t> counts, displs;
  std::size_t extent = 0;  // elements, gaps included
  VariedLayout() = default;
  VariedLayout(std::int64_t c, int n, int gap) : counts(static_cast<std::size_t>(n)), displs(counts.size()) {
    for (int r = 0; r < n; ++r) counts[static_cast<std::size_t>(r)] = r % 3 == 1 ? 0 : c + r;
    std::int64_t at = 0;
    for (int r = n - 1; r >= 0; --r) {
      displs[static_cast<std::size_t>(r)] = at;
      at += counts[static_cast<std::size_t>(r)] + gap;
    }
    extent = static_cast<std::size_t>(at);
  }
};

// alltoallv's blocks on rank `me` for a case of base count c on n ranks:
// rank p sends rank q sent(p, q) elements (every third pair none); the send
// blocks in reverse rank order with a gap after each, the receive blocks in
// rank order with another. `symmetric` (in place): sent(p, q) = sent(q, p).
struct PairLayout {
  std::vector<std::int64_t> counts, displs, rcounts, rdispls;  // send side, receive side
  std::size_t send_extent = 0, recv_extent = 0;
  PairLayout() = default;
  PairLayout(std::int64_t c, int n, int me, bool symmetric)
      : counts(static_cast<std::size_t>(n)), displs(counts.size()), rcounts(counts.size()), rdispls(counts.size()) {
    auto sent = [&](int p, int q) -> std::int64_t {
      const int k = symmetric ? p + q : p + 2 * q;
      return k % 3 == 1 ? 0 : c + k;
    };
    std::int64_t at = 0;
    for (int q = n - 1; q >= 0; --q) {
      counts[static_cast<std::size_t>(q)] = sent(me, q);
      displs[static_cast<std::size_t>(q)] = at;
      at += sent(me, q) + 1 + me % 2;
    }
    send_extent = static_cast<std::size_t>(at);
    at = 0;
    for (int q = 0; q < n; ++q) {
      rcounts[static_cast<std::size_t>(q)] = sent(q, me);
      rdispls[static_cast<std::size_t>(q)] = at;
      at += sent(q, me) + 2;
    }
    recv_extent = static_cast<std::size_t>(at);
  }
};

// One case on one rank: buffers filled at construction, the call run
// blocking or started, then checked.
template <class T>
class Typed final : public PreparedCase {
 public:
  Typed(Team& team, const CollCase& c, std::uint32_t seed)
      : c_(c),
        seed_(seed),
        me_(team.rank()),
        n_(team.size()),
        layout_(is_varied(c.kind) && c.kind != OpKind::alltoallv ? VariedLayout(c.count, n_, 1 + me_ % 2)
                                                                 : VariedLayout()),
        pairs_(c.kind == OpKind::alltoallv ? PairLayout(c.count, n_, me_, c.in_place) : PairLayout()),
        one_(c.kind == OpKind::alltoallv ? pairs_.send_extent
             : is_varied(c.kind)         ? static_cast<std::size_t>(layout_.counts[static_cast<std::size_t>(me_)])
                                         : static_cast<std::size_t>(c.count)),
        all_(c.kind == OpKind::alltoallv        ? pairs_.recv_extent
             : c.kind == OpKind::reduce_scatter ? share_at(n_)
             : is_varied(c.kind)                ? layout_.extent
                                                : one_ * static_cast<std::size_t>(n_)),
        send_(team, bytes_of(send_elems()), send_in_heap(c.place, me_)),
        recv_(team, bytes_of(recv_elems()), recv_in_heap(c.place, me_)) {
    const bool root = me_ == c.root;
    T* s = static_cast<T*>(send_.data());
    T* r = static_cast<T*>(recv_.data());
    for (std::size_t i = 0; i < send_elems(); ++i) s[i] = v(me_, static_cast<std::int64_t>(i));
    send_before_ = send_.contents();
    sp_ = s;
    rp_ = r;
    switch (c.kind) {
      case OpKind::bcast:
        if (root)
          for (std::size_t i = 0; i < one_; ++i) r[i] = v(me_, static_cast<std::int64_t>(i));
        break;
      case OpKind::allreduce:
      case OpKind::reduce_scatter_block:
      case OpKind::alltoall:
      case OpKind::scan:
      case OpKind::exscan:
        if (c.in_place) {
          for (std::size_t i = 0; i < send_elems(); ++i) r[i] = s[i];
          ip_ = true;
        }
        break;
      case OpKind::reduce:
        if (c.in_place && root) {
          for (std::size_t i = 0; i < one_; ++i) r[i] = s[i];
          ip_ = true;
        }
        break;
      case OpKind::gather:
      case OpKind::allgather:
        if (c.in_place && (root || c.kind == OpKind::allgather)) {
          for (std::size_t i = 0; i < one_; ++i) r[static_cast<std::size_t>(me_) * one_ + i] = s[i];
          ip_ = true;
        }
        break;
      case OpKind::scatter:
      case OpKind::scatterv:
        if (c.in_place && root) rp_ = const_cast<void*>(kInPlace);
        break;
      case OpKind::reduce_scatter:  // in place: the whole input in the receive buffer
        if (c.in_place) {
          for (std::size_t i = 0; i < all_; ++i) r[i] = s[i];
          ip_ = true;
        }
        break;
      case OpKind::alltoallv:  // in place: the blocks to send are the receive blocks
        if (c.in_place) {
          for (std::size_t i = 0; i < all_; ++i) r[i] = v(me_, static_cast<std::int64_t>(i));
          ip_ = true;
        }
        break;
      case OpKind::gatherv:
      case OpKind::allgatherv:
        if (c.in_place && (root || c.kind == OpKind::allgatherv)) {
          for (std::size_t i = 0; i < one_; ++i) r[at(me_) + i] = s[i];
          ip_ = true;
        }
        break;
      default: break;
    }
    if (ip_) sp_ = kInPlace;
    recv_before_ = recv_.contents();
  }

  Status run(Team& team) override {
    const std::int64_t cnt = c_.count;
    const Datatype t = c_.type;
    switch (c_.kind) {
      case OpKind::barrier: return team.barrier();
      case OpKind::bcast: return team.bcast(rp_, cnt, t, c_.root);
      case OpKind::reduce: return team.reduce(sp_, rp_, cnt, t, c_.op, c_.root);
      case OpKind::allreduce: return team.allreduce(sp_, rp_, cnt, t, c_.op);
      case OpKind::gather: return team.gather(sp_, rp_, cnt, t, c_.root);
      case OpKind::allgather: return team.allgather(sp_, rp_, cnt, t);
      case OpKind::scatter: return team.scatter(sp_, rp_, cnt, t, c_.root);
      case OpKind::reduce_scatter_block: return team.reduce_scatter_block(sp_, rp_, cnt, t, c_.op);
      case OpKind::alltoall: return team.alltoall(sp_, rp_, cnt, t);
      case OpKind::scan: return team.scan(sp_, rp_, cnt, t, c_.op);
      case OpKind::exscan: return team.exscan(sp_, rp_, cnt, t, c_.op);
      case OpKind::gatherv: return team.gatherv(sp_, own(), rp_, vcounts(), vdispls(), t, c_.root);
      case OpKind::allgatherv: return team.allgatherv(sp_, own(), rp_, vcounts(), vdispls(), t);
      case OpKind::scatterv: return team.scatterv(sp_, vcounts(), vdispls(), rp_, own(), t, c_.root);
      case OpKind::reduce_scatter: return team.reduce_scatter(sp_, rp_, vcounts(), t, c_.op);
      case OpKind::alltoallv:
        return team.alltoallv(sp_, pairs_.counts.data(), pairs_.displs.data(), rp_, pairs_.rcounts.data(),
                              pairs_.rdispls.data(), t);
    }
    return Status(Errc::internal, "bad kind");
  }

  Request start(Team& team) override {
    const std::int64_t cnt = c_.count;
    const Datatype t = c_.type;
    switch (c_.kind) {
      case OpKind::barrier: return team.ibarrier();
      case OpKind::bcast: return team.ibcast(rp_, cnt, t, c_.root);
      case OpKind::reduce: return team.ireduce(sp_, rp_, cnt, t, c_.op, c_.root);
      case OpKind::allreduce: return team.iallreduce(sp_, rp_, cnt, t, c_.op);
      case OpKind::gather: return team.igather(sp_, rp_, cnt, t, c_.root);
      case OpKind::allgather: return team.iallgather(sp_, rp_, cnt, t);
      case OpKind::scatter: return team.iscatter(sp_, rp_, cnt, t, c_.root);
      case OpKind::reduce_scatter_block: return team.ireduce_scatter_block(sp_, rp_, cnt, t, c_.op);
      case OpKind::alltoall: return team.ialltoall(sp_, rp_, cnt, t);
      case OpKind::scan: return team.iscan(sp_, rp_, cnt, t, c_.op);
      case OpKind::exscan: return team.iexscan(sp_, rp_, cnt, t, c_.op);
      case OpKind::gatherv: return team.igatherv(sp_, own(), rp_, vcounts(), vdispls(), t, c_.root);
      case OpKind::allgatherv: return team.iallgatherv(sp_, own(), rp_, vcounts(), vdispls(), t);
      case OpKind::scatterv: return team.iscatterv(sp_, vcounts(), vdispls(), rp_, own(), t, c_.root);
      case OpKind::reduce_scatter: return team.ireduce_scatter(sp_, rp_, vcounts(), t, c_.op);
      case OpKind::alltoallv:
        return team.ialltoallv(sp_, pairs_.counts.data(), pairs_.displs.data(), rp_, pairs_.rcounts.data(),
                               pairs_.rdispls.data(), t);
    }
    return Request();
  }

  std::string check(const Status& st) override {
    if (!st.ok()) return cat("rank ", me_, ": ", st.to_string());
    if (!recv_.intact()) return cat("rank ", me_, ": wrote outside the receive buffer");
    if (!ip_ && send_.contents() != send_before_) return cat("rank ", me_, ": changed the send buffer");
    const bool root = me_ == c_.root;
    const T* r = static_cast<const T*>(recv_.data());
    std::vector<T> want;
    auto reduced = [&](std::int64_t i, int ranks) {  // over ranks 0..ranks-1, in rank order
      T acc = v(0, i);
      for (int q = 1; q < ranks; ++q) acc = fold(c_.op, acc, v(q, i));
      return acc;
    };
    switch (c_.kind) {
      case OpKind::barrier: return "";
      case OpKind::bcast:
        for (std::size_t i = 0; i < one_; ++i) want.push_back(v(c_.root, static_cast<std::int64_t>(i)));
        break;
      case OpKind::reduce:
        if (!root) return "";
        for (std::size_t i = 0; i < one_; ++i) want.push_back(reduced(static_cast<std::int64_t>(i), n_));
        break;
      case OpKind::allreduce:
        for (std::size_t i = 0; i < one_; ++i) want.push_back(reduced(static_cast<std::int64_t>(i), n_));
        break;
      case OpKind::gather:
      case OpKind::allgather:
        if (c_.kind == OpKind::gather && !root) return "";
        for (int q = 0; q < n_; ++q)
          for (std::size_t i = 0; i < one_; ++i) want.push_back(v(q, static_cast<std::int64_t>(i)));
        break;
      case OpKind::scatter:
        if (c_.in_place && root) return "";
        for (std::size_t i = 0; i < one_; ++i)
          want.push_back(v(c_.root, static_cast<std::int64_t>(static_cast<std::size_t>(me_) * one_ + i)));
        break;
      case OpKind::reduce_scatter_block:
        for (std::size_t i = 0; i < one_; ++i)
          want.push_back(reduced(static_cast<std::int64_t>(static_cast<std::size_t>(me_) * one_ + i), n_));
        break;
      case OpKind::scan:
        for (std::size_t i = 0; i < one_; ++i) want.push_back(reduced(static_cast<std::int64_t>(i), me_ + 1));
        break;
      case OpKind::exscan:  // rank 0's output is not written
        if (me_ == 0) return recv_.contents() == recv_before_ ? "" : "rank 0: exscan wrote its output";
        for (std::size_t i = 0; i < one_; ++i) want.push_back(reduced(static_cast<std::int64_t>(i), me_));
        break;
      case OpKind::alltoall:  // block q: block me of rank q's send buffer
        for (int q = 0; q < n_; ++q)
          for (std::size_t i = 0; i < one_; ++i)
            want.push_back(v(q, static_cast<std::int64_t>(static_cast<std::size_t>(me_) * one_ + i)));
        break;
      case OpKind::gatherv:
      case OpKind::allgatherv: {  // each block where this rank's displacements put it; the gaps untouched
        if (c_.kind == OpKind::gatherv && !root) return "";
        want.resize(all_);
        std::memcpy(want.data(), recv_before_.data() + kGuard, all_ * sizeof(T));
        for (int q = 0; q < n_; ++q)
          for (std::size_t i = 0; i < len(q); ++i) want[at(q) + i] = v(q, static_cast<std::int64_t>(i));
        break;
      }
      case OpKind::reduce_scatter:  // this rank's share, the shares back to back
        for (std::size_t i = 0; i < one_; ++i)
          want.push_back(reduced(static_cast<std::int64_t>(share_at(me_) + i), n_));
        break;
      case OpKind::alltoallv: {  // block p from rank p's block for me (its send or, in place, receive side)
        want.resize(all_);
        std::memcpy(want.data(), recv_before_.data() + kGuard, all_ * sizeof(T));
        for (int p = 0; p < n_; ++p) {
          const PairLayout theirs(c_.count, n_, p, c_.in_place);
          const std::size_t from =
              static_cast<std::size_t>((c_.in_place ? theirs.rdispls : theirs.displs)[static_cast<std::size_t>(me_)]);
          const std::size_t at = static_cast<std::size_t>(pairs_.rdispls[static_cast<std::size_t>(p)]);
          for (std::size_t i = 0; i < static_cast<std::size_t>(pairs_.rcounts[static_cast<std::size_t>(p)]); ++i)
            want[at + i] = v(p, static_cast<std::int64_t>(from + i));
        }
        break;
      }
      case OpKind::scatterv:  // the root's block at this rank's displacement there
        if (c_.in_place && root) return "";
        for (std::size_t i = 0; i < one_; ++i) want.push_back(v(c_.root, static_cast<std::int64_t>(root_at(me_) + i)));
        break;
    }
    std::string bad = osmp::test::check("recv", r, want);
    return bad.empty() ? "" : cat("rank ", me_, ": ", bad);
  }

 private:
  T v(int r, std::int64_t i) const { return value<T>(r, i, seed_, c_.op); }
  // The v-variants: rank q's block, where this rank's and the root's
  // displacements put it, and what this rank passes.
  std::size_t len(int q) const { return static_cast<std::size_t>(layout_.counts[static_cast<std::size_t>(q)]); }
  std::size_t at(int q) const { return static_cast<std::size_t>(layout_.displs[static_cast<std::size_t>(q)]); }
  std::size_t root_at(int q) const {
    return static_cast<std::size_t>(VariedLayout(c_.count, n_, 1 + c_.root % 2).displs[static_cast<std::size_t>(q)]);
  }
  std::int64_t own() const { return static_cast<std::int64_t>(one_); }
  // reduce_scatter: where rank q's share starts (the shares back to back).
  std::size_t share_at(int q) const {
    std::size_t at = 0;
    for (int r = 0; r < q; ++r) at += len(r);
    return at;
  }
  const std::int64_t* vcounts() const { return layout_.counts.data(); }
  const std::int64_t* vdispls() const { return layout_.displs.data(); }
  static std::size_t bytes_of(std::size_t elems) { return elems * sizeof(T); }
  std::size_t send_elems() const {
    const bool root = me_ == c_.root;
    switch (c_.kind) {
      case OpKind::reduce:
      case OpKind::allreduce:
      case OpKind::gather:
      case OpKind::allgather:
      case OpKind::scan:
      case OpKind::exscan: return one_;
      case OpKind::scatter: return root ? all_ : 0;
      case OpKind::reduce_scatter_block:
      case OpKind::alltoall: return all_;
      case OpKind::gatherv:
      case OpKind::allgatherv: return one_;
      case OpKind::scatterv: return root ? all_ : 0;
      case OpKind::alltoallv: return one_;  // every send block's extent
      case OpKind::reduce_scatter: return all_;
      default: return 0;
    }
  }
  std::size_t recv_elems() const {
    const bool root = me_ == c_.root;
    // In place, reduce_scatter_block's input (all blocks) is in the receive buffer.
    if (c_.in_place && c_.kind == OpKind::reduce_scatter_block) return all_;
    if (c_.kind == OpKind::alltoall) return all_;
    switch (c_.kind) {
      case OpKind::bcast:
      case OpKind::allreduce:
      case OpKind::scatter:
      case OpKind::reduce_scatter_block:
      case OpKind::scan:
      case OpKind::exscan: return one_;
      case OpKind::reduce: return root ? one_ : 0;
      case OpKind::gather: return root ? all_ : 0;
      case OpKind::allgather: return all_;
      case OpKind::gatherv: return root ? all_ : 0;
      case OpKind::allgatherv: return all_;
      case OpKind::scatterv: return one_;
      case OpKind::alltoallv: return all_;  // every receive block's extent
      case OpKind::reduce_scatter: return c_.in_place ? all_ : one_;
      default: return 0;
    }
  }

  CollCase c_;
  std::uint32_t seed_;
  int me_, n_;
  VariedLayout layout_;    // gatherv, allgatherv, scatterv
  PairLayout pairs_;       // alltoallv
  std::size_t one_, all_;  // v-variants: this rank's own block, and every block's extent
  Guarded send_, recv_;
  std::vector<unsigned char> send_before_, recv_before_;
  const void* sp_ = nullptr;
  void* rp_ = nullptr;
  bool ip_ = false;
};

}  // namespace

void use_shared_source(SharedSource* s) { g_source = s; }

std::string CollCase::name() const {
  std::string s = cat(to_string(kind), " ", to_string(type));
  if (reduction(kind)) s += cat(" ", to_string(op));
  s += cat(" count=", count);
  if (rooted(kind)) s += cat(" root=", root);
  if (in_place) s += " in-place";
  static const char* const kPlaces[] = {"", " heap", " heap-send", " heap-recv", " mixed"};
  s += kPlaces[static_cast<int>(place)];
  return s;
}

std::unique_ptr<PreparedCase> prepare(Team& team, const CollCase& c, std::uint32_t seed) {
  switch (c.type) {
    case Datatype::int8: return std::make_unique<Typed<std::int8_t>>(team, c, seed);
    case Datatype::int16: return std::make_unique<Typed<std::int16_t>>(team, c, seed);
    case Datatype::int32: return std::make_unique<Typed<std::int32_t>>(team, c, seed);
    case Datatype::int64: return std::make_unique<Typed<std::int64_t>>(team, c, seed);
    case Datatype::uint8: return std::make_unique<Typed<std::uint8_t>>(team, c, seed);
    case Datatype::uint16: return std::make_unique<Typed<std::uint16_t>>(team, c, seed);
    case Datatype::uint32: return std::make_unique<Typed<std::uint32_t>>(team, c, seed);
    case Datatype::uint64: return std::make_unique<Typed<std::uint64_t>>(team, c, seed);
    case Datatype::float32: return std::make_unique<Typed<float>>(team, c, seed);
    case Datatype::float64: return std::make_unique<Typed<double>>(team, c, seed);
  }
  return nullptr;
}

std::string run_case(Team& team, const CollCase& c, std::uint32_t seed, Mode mode) {
  std::unique_ptr<PreparedCase> p = prepare(team, c, seed);
  if (!p) return "bad type";
  if (mode == Mode::blocking) return p->check(p->run(team));
  Request r = p->start(team);
  if (mode == Mode::test_loop) {
    while (!r.test()) {}
  }
  return p->check(r.wait());
}

std::vector<CollCase> matrix(int n, const std::vector<std::int64_t>& sizes, bool all_roots,
                             const std::vector<std::int64_t>& byte_sizes) {
  std::vector<CollCase> out;
  std::vector<int> roots = all_roots ? std::vector<int>{0, n - 1, n / 2} : std::vector<int>{n / 2};
  if (n == 1) roots = {0};
  out.push_back({OpKind::barrier});
  for (OpKind k : kOpKinds) {  // every operation (barrier above)
    if (k == OpKind::barrier) continue;
    const bool rooted = osmp::test::rooted(k);
    for (int ti = 0; ti < kDatatypeCount; ++ti) {
      Datatype t = static_cast<Datatype>(ti);
      std::vector<Op> ops{Op::sum};
      if (reduction(k)) {
        ops.clear();
        for (int oi = 0; oi < kOpCount; ++oi)
          if (defined_for(static_cast<Op>(oi), t)) ops.push_back(static_cast<Op>(oi));
      }
      std::vector<std::int64_t> counts = sizes;
      for (std::int64_t b : byte_sizes) counts.push_back(b / static_cast<std::int64_t>(size_of(t)));
      for (Op op : ops)
        for (std::int64_t count : counts)
          for (int root : rooted ? roots : std::vector<int>{0})
            for (bool ip : {false, true}) {
              if (ip && k == OpKind::bcast) continue;
              out.push_back({k, t, op, count, rooted ? root : -1, ip});
            }
    }
  }
  return out;
}

std::vector<CollCase> heap_matrix(int n, const std::vector<std::int64_t>& byte_sizes) {
  std::vector<CollCase> out;
  const std::pair<Datatype, Op> types[] = {{Datatype::int32, Op::sum}, {Datatype::float64, Op::max}};
  const Placement places[] = {Placement::heap, Placement::heap_send, Placement::heap_recv, Placement::mixed};
  std::vector<int> roots = n > 1 ? std::vector<int>{0, n - 1} : std::vector<int>{0};
  for (OpKind k : kOpKinds) {
    if (k == OpKind::barrier) continue;
    const bool rooted = osmp::test::rooted(k);
    for (auto [t, op] : types)
      for (std::int64_t b : byte_sizes)
        for (Placement p : places)
          for (int root : rooted ? roots : std::vector<int>{-1})
            for (bool ip : {false, true}) {
              if (ip && k == OpKind::bcast) continue;
              out.push_back({k, t, op, b / static_cast<std::int64_t>(size_of(t)), root, ip, p});
            }
  }
  return out;
}

}  // namespace osmp::test
