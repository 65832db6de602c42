#include "collective_suite.hpp"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "collectives/kernels.hpp"

namespace osmp::test {
namespace {

constexpr std::size_t kGuard = 64;
constexpr unsigned char kCanary = 0xC3;
constexpr unsigned char kPoison = 0xAB;

bool reduction(OpKind k) {
  return k == OpKind::reduce || k == OpKind::allreduce || k == OpKind::reduce_scatter_block;
}

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

// A buffer with canaries on both sides.
struct Guarded {
  std::vector<unsigned char> mem;
  std::size_t len;
  explicit Guarded(std::size_t bytes) : mem(bytes + 2 * kGuard, kPoison), len(bytes) {
    std::memset(mem.data(), kCanary, kGuard);
    std::memset(mem.data() + kGuard + len, kCanary, kGuard);
  }
  void* data() { return mem.data() + kGuard; }
  bool intact() const {
    for (std::size_t i = 0; i < kGuard; ++i)
      if (mem[i] != kCanary || mem[kGuard + len + i] != kCanary) return false;
    return true;
  }
};

template <class T>
std::string check(const char* what, const T* got, const std::vector<T>& want) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      return cat(what, "[", i, "] = ", +got[i], ", expected ", +want[i]);
    }
  }
  return "";
}

template <class T>
std::string run_typed(Team& team, const CollCase& c, std::uint32_t seed) {
  const int me = team.rank(), n = team.size();
  const std::int64_t cnt = c.count;
  const std::size_t one = static_cast<std::size_t>(cnt), all = one * static_cast<std::size_t>(n);
  auto v = [&](int r, std::int64_t i) { return value<T>(r, i, seed, c.op); };
  const bool root = me == c.root;

  std::size_t send_elems = 0, recv_elems = 0;
  switch (c.kind) {
    case OpKind::bcast: recv_elems = one; break;
    case OpKind::reduce: send_elems = one; recv_elems = root ? one : 0; break;
    case OpKind::allreduce: send_elems = one; recv_elems = one; break;
    case OpKind::gather: send_elems = one; recv_elems = root ? all : 0; break;
    case OpKind::allgather: send_elems = one; recv_elems = all; break;
    case OpKind::scatter: send_elems = root ? all : 0; recv_elems = one; break;
    case OpKind::reduce_scatter_block: send_elems = all; recv_elems = one; break;
    default: break;
  }
  // In place, reduce_scatter_block's input (all blocks) is in the receive buffer.
  if (c.in_place && c.kind == OpKind::reduce_scatter_block) recv_elems = all;
  Guarded send(send_elems * sizeof(T)), recv(recv_elems * sizeof(T));
  T* s = static_cast<T*>(send.data());
  T* r = static_cast<T*>(recv.data());
  for (std::size_t i = 0; i < send_elems; ++i) s[i] = v(me, static_cast<std::int64_t>(i));
  std::vector<unsigned char> send_before(send.mem);

  const void* sp = s;
  void* rp = r;
  bool ip = false;
  switch (c.kind) {
    case OpKind::bcast:
      if (root) for (std::size_t i = 0; i < one; ++i) r[i] = v(me, static_cast<std::int64_t>(i));
      break;
    case OpKind::allreduce: case OpKind::reduce_scatter_block:
      if (c.in_place) {
        for (std::size_t i = 0; i < send_elems; ++i) r[i] = s[i];
        ip = true;
      }
      break;
    case OpKind::reduce:
      if (c.in_place && root) {
        for (std::size_t i = 0; i < one; ++i) r[i] = s[i];
        ip = true;
      }
      break;
    case OpKind::gather:
      if (c.in_place && root) {
        for (std::size_t i = 0; i < one; ++i) r[static_cast<std::size_t>(me) * one + i] = s[i];
        ip = true;
      }
      break;
    case OpKind::allgather:
      if (c.in_place) {
        for (std::size_t i = 0; i < one; ++i) r[static_cast<std::size_t>(me) * one + i] = s[i];
        ip = true;
      }
      break;
    case OpKind::scatter:
      if (c.in_place && root) rp = const_cast<void*>(kInPlace);
      break;
    default: break;
  }
  if (ip) sp = kInPlace;

  Status st;
  const Datatype t = c.type;
  switch (c.kind) {
    case OpKind::barrier: st = team.barrier(); break;
    case OpKind::bcast: st = team.bcast(r, cnt, t, c.root); break;
    case OpKind::reduce: st = team.reduce(sp, rp, cnt, t, c.op, c.root); break;
    case OpKind::allreduce: st = team.allreduce(sp, rp, cnt, t, c.op); break;
    case OpKind::gather: st = team.gather(sp, rp, cnt, t, c.root); break;
    case OpKind::allgather: st = team.allgather(sp, rp, cnt, t); break;
    case OpKind::scatter: st = team.scatter(sp, rp, cnt, t, c.root); break;
    case OpKind::reduce_scatter_block: st = team.reduce_scatter_block(sp, rp, cnt, t, c.op); break;
  }
  if (!st.ok()) return cat("rank ", me, ": ", st.to_string());
  if (!recv.intact()) return cat("rank ", me, ": wrote outside the receive buffer");
  if (!ip && send.mem != send_before) return cat("rank ", me, ": changed the send buffer");

  std::vector<T> want;
  auto reduced = [&](std::int64_t i) {
    T acc = v(0, i);
    for (int q = 1; q < n; ++q) acc = fold(c.op, acc, v(q, i));
    return acc;
  };
  switch (c.kind) {
    case OpKind::barrier: return "";
    case OpKind::bcast:
      for (std::size_t i = 0; i < one; ++i) want.push_back(v(c.root, static_cast<std::int64_t>(i)));
      break;
    case OpKind::reduce:
      if (!root) return "";
      for (std::size_t i = 0; i < one; ++i) want.push_back(reduced(static_cast<std::int64_t>(i)));
      break;
    case OpKind::allreduce:
      for (std::size_t i = 0; i < one; ++i) want.push_back(reduced(static_cast<std::int64_t>(i)));
      break;
    case OpKind::gather: case OpKind::allgather:
      if (c.kind == OpKind::gather && !root) return "";
      for (int q = 0; q < n; ++q)
        for (std::size_t i = 0; i < one; ++i) want.push_back(v(q, static_cast<std::int64_t>(i)));
      break;
    case OpKind::scatter:
      if (c.in_place && root) return "";
      for (std::size_t i = 0; i < one; ++i)
        want.push_back(v(c.root, static_cast<std::int64_t>(static_cast<std::size_t>(me) * one + i)));
      break;
    case OpKind::reduce_scatter_block:
      for (std::size_t i = 0; i < one; ++i)
        want.push_back(reduced(static_cast<std::int64_t>(static_cast<std::size_t>(me) * one + i)));
      break;
  }
  std::string bad = check("recv", r, want);
  return bad.empty() ? "" : cat("rank ", me, ": ", bad);
}

}  // namespace

std::string CollCase::name() const {
  std::string s = cat(to_string(kind), " ", to_string(type));
  if (reduction(kind)) s += cat(" ", to_string(op));
  s += cat(" count=", count);
  if (kind == OpKind::bcast || kind == OpKind::reduce || kind == OpKind::gather || kind == OpKind::scatter)
    s += cat(" root=", root);
  if (in_place) s += " in-place";
  return s;
}

std::string run_case(Team& team, const CollCase& c, std::uint32_t seed) {
  switch (c.type) {
    case Datatype::int8: return run_typed<std::int8_t>(team, c, seed);
    case Datatype::int16: return run_typed<std::int16_t>(team, c, seed);
    case Datatype::int32: return run_typed<std::int32_t>(team, c, seed);
    case Datatype::int64: return run_typed<std::int64_t>(team, c, seed);
    case Datatype::uint8: return run_typed<std::uint8_t>(team, c, seed);
    case Datatype::uint16: return run_typed<std::uint16_t>(team, c, seed);
    case Datatype::uint32: return run_typed<std::uint32_t>(team, c, seed);
    case Datatype::uint64: return run_typed<std::uint64_t>(team, c, seed);
    case Datatype::float32: return run_typed<float>(team, c, seed);
    case Datatype::float64: return run_typed<double>(team, c, seed);
  }
  return "bad type";
}

std::vector<CollCase> matrix(int n, const std::vector<std::int64_t>& sizes, bool all_roots,
                             const std::vector<std::int64_t>& byte_sizes) {
  std::vector<CollCase> out;
  std::vector<int> roots = all_roots ? std::vector<int>{0, n - 1, n / 2} : std::vector<int>{n / 2};
  if (n == 1) roots = {0};
  out.push_back({OpKind::barrier});
  const OpKind kinds[] = {OpKind::bcast, OpKind::reduce, OpKind::allreduce, OpKind::gather,
                          OpKind::allgather, OpKind::scatter, OpKind::reduce_scatter_block};
  for (OpKind k : kinds) {
    bool rooted = k == OpKind::bcast || k == OpKind::reduce || k == OpKind::gather || k == OpKind::scatter;
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

}  // namespace osmp::test
