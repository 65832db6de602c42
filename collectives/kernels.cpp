#include "collectives/kernels.hpp"

#include <array>

#include <cstdint>
#include <cstring>

namespace osmp {
namespace {

template <class T>
struct Sum {
  static T f(T a, T b) { return wrap_add(a, b); }
};
template <class T>
struct Prod {
  static T f(T a, T b) { return wrap_mul(a, b); }
};
// b < a ? b : a maps onto MINPS/MINPD (and keeps a when either is NaN-free equal).
template <class T>
struct Min {
  static T f(T a, T b) { return b < a ? b : a; }
};
template <class T>
struct Max {
  static T f(T a, T b) { return a < b ? b : a; }
};
template <class T>
struct Band {
  static T f(T a, T b) { return static_cast<T>(a & b); }
};
template <class T>
struct Bor {
  static T f(T a, T b) { return static_cast<T>(a | b); }
};
template <class T>
struct Bxor {
  static T f(T a, T b) { return static_cast<T>(a ^ b); }
};
template <class T>
struct Land {
  static T f(T a, T b) { return static_cast<T>((a != 0) & (b != 0)); }
};
template <class T>
struct Lor {
  static T f(T a, T b) { return static_cast<T>((a != 0) | (b != 0)); }
};

template <class T, class F>
void apply(T* __restrict d, const T* __restrict s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = F::f(d[i], s[i]);
}

// dst = a op b, in one pass (saves re-reading dst).
template <class T, class F>
void apply2(T* __restrict d, const T* __restrict a, const T* __restrict b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = F::f(a[i], b[i]);
}

template <class T, template <class> class F>
void dispatch_apply(void* d, const void* s, std::size_t n) {
  apply<T, F<T>>(static_cast<T*>(d), static_cast<const T*>(s), n);
}

template <class T, template <class> class F>
void dispatch_apply2(void* d, const void* a, const void* b, std::size_t n) {
  apply2<T, F<T>>(static_cast<T*>(d), static_cast<const T*>(a), static_cast<const T*>(b), n);
}

using Fn = Combiner::Fn;
using Fn2 = Combiner::Fn2;

template <class T, bool Int>
struct Table {
  static constexpr Fn one(Op op) {
    switch (op) {
      case Op::sum: return dispatch_apply<T, Sum>;
      case Op::prod: return dispatch_apply<T, Prod>;
      case Op::min: return dispatch_apply<T, Min>;
      case Op::max: return dispatch_apply<T, Max>;
      default: break;
    }
    if constexpr (Int) {
      switch (op) {
        case Op::band: return dispatch_apply<T, Band>;
        case Op::bor: return dispatch_apply<T, Bor>;
        case Op::bxor: return dispatch_apply<T, Bxor>;
        case Op::land: return dispatch_apply<T, Land>;
        case Op::lor: return dispatch_apply<T, Lor>;
        default: break;
      }
    }
    return nullptr;
  }
  static constexpr Fn2 two(Op op) {
    switch (op) {
      case Op::sum: return dispatch_apply2<T, Sum>;
      case Op::prod: return dispatch_apply2<T, Prod>;
      case Op::min: return dispatch_apply2<T, Min>;
      case Op::max: return dispatch_apply2<T, Max>;
      default: break;
    }
    if constexpr (Int) {
      switch (op) {
        case Op::band: return dispatch_apply2<T, Band>;
        case Op::bor: return dispatch_apply2<T, Bor>;
        case Op::bxor: return dispatch_apply2<T, Bxor>;
        case Op::land: return dispatch_apply2<T, Land>;
        case Op::lor: return dispatch_apply2<T, Lor>;
        default: break;
      }
    }
    return nullptr;
  }
};

template <class Pick>
constexpr auto select(Datatype t, Op op, Pick pick) {
  switch (t) {
    case Datatype::int8: return pick(Table<std::int8_t, true>{}, op);
    case Datatype::int16: return pick(Table<std::int16_t, true>{}, op);
    case Datatype::int32: return pick(Table<std::int32_t, true>{}, op);
    case Datatype::int64: return pick(Table<std::int64_t, true>{}, op);
    case Datatype::uint8: return pick(Table<std::uint8_t, true>{}, op);
    case Datatype::uint16: return pick(Table<std::uint16_t, true>{}, op);
    case Datatype::uint32: return pick(Table<std::uint32_t, true>{}, op);
    case Datatype::uint64: return pick(Table<std::uint64_t, true>{}, op);
    case Datatype::float32: return pick(Table<float, false>{}, op);
    case Datatype::float64: return pick(Table<double, false>{}, op);
  }
  return pick(Table<std::uint8_t, true>{}, Op::sum);
}

}  // namespace

namespace {
constexpr std::array<std::array<Combiner, kOpCount>, kDatatypeCount> combiners() {
  std::array<std::array<Combiner, kOpCount>, kDatatypeCount> all{};
  for (int t = 0; t < kDatatypeCount; ++t) {
    for (int o = 0; o < kOpCount; ++o) {
      Combiner& c = all[static_cast<std::size_t>(t)][static_cast<std::size_t>(o)];
      const auto dt = static_cast<Datatype>(t);
      const auto op = static_cast<Op>(o);
      c.one = select(dt, op, [](auto table, Op x) { return decltype(table)::one(x); });
      c.two = select(dt, op, [](auto table, Op x) { return decltype(table)::two(x); });
      c.esize = size_of(dt);
      c.block = 16384 / c.esize;
    }
  }
  return all;
}
}  // namespace

// Built at compile time: a call's kernels are a table look-up.
constinit const std::array<std::array<Combiner, kOpCount>, kDatatypeCount> kCombiners = combiners();

void Combiner::all_blocked(void* dst, const void* const* srcs, int k, std::size_t n) const {
  if (k <= 0 || n == 0 || !one || !two) return;
  if (k == 1) {
    if (dst != srcs[0]) std::memmove(dst, srcs[0], n * esize);
    return;
  }
  if (n <= block) {  // small vectors: one pass, no block arithmetic
    two(dst, srcs[0], srcs[1], n);
    for (int j = 2; j < k; ++j) one(dst, srcs[j], n);
    return;
  }
  for (std::size_t off = 0; off < n; off += block) {
    std::size_t len = n - off < block ? n - off : block;
    auto at = [&](const void* p) { return static_cast<const char*>(p) + off * esize; };
    char* d = static_cast<char*>(dst) + off * esize;
    two(d, at(srcs[0]), at(srcs[1]), len);
    for (int j = 2; j < k; ++j) one(d, at(srcs[j]), len);
  }
}

void combine(void* dst, const void* src, std::size_t n, Datatype t, Op op) {
  Combiner::Fn f = select(t, op, [](auto table, Op o) { return decltype(table)::one(o); });
  if (f && n) f(dst, src, n);
}

void combine_all(void* dst, const void* const* srcs, int k, std::size_t n, Datatype t, Op op) {
  Combiner::make(t, op).all(dst, srcs, k, n);
}

}  // namespace osmp
