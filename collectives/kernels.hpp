// Reduction kernels. Element-wise, so they vectorise without reassociating
// (this file is built with -O3; bench/bench_kernels compares it with a
// scalar loop). Combine order is always left to right, which is what makes
// results reproducible: dst = ((src0 op src1) op src2) ...
#pragma once

#include <array>
#include <cstddef>

#include "collectives/types.hpp"

#include <type_traits>

namespace osmp {

// Integer sum and product wrap around (two's complement), as MPI
// implementations do in practice; computed in unsigned arithmetic so that
// signed overflow is never undefined behaviour.
template <class T>
constexpr T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
  } else {
    return a + b;
  }
}
template <class T>
constexpr T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
  } else {
    return a * b;
  }
}

// The kernels for one (datatype, op), picked once per operation.
struct Combiner {
  using Fn = void (*)(void*, const void*, std::size_t);                // d = d op s
  using Fn2 = void (*)(void*, const void*, const void*, std::size_t);  // d = a op b
  Fn one = nullptr;
  Fn2 two = nullptr;
  std::size_t esize = 0;
  // Elements per cache-sized block (16 KiB: dst stays in L1 while every
  // source streams through).
  std::size_t block = 0;
  // The kernels of (t, op): none (null) where op is not defined for t, or
  // either is out of range.
  static Combiner make(Datatype t, Op op);
  // dst = srcs[0] op srcs[1] op ... op srcs[k-1]; dst may be srcs[0].
  // Inline for two sources of at most a block (a small call's), else blocked.
  void all(void* dst, const void* const* srcs, int k, std::size_t n) const {
    if (k == 2 && n - 1 < block && two) [[likely]] {
      two(dst, srcs[0], srcs[1], n);
      return;
    }
    all_blocked(dst, srcs, k, n);
  }
  void all_blocked(void* dst, const void* const* srcs, int k, std::size_t n) const;
};

// Every (datatype, op)'s kernels, by their values (kernels.cpp).
extern const std::array<std::array<Combiner, kOpCount>, kDatatypeCount> kCombiners;
inline Combiner Combiner::make(Datatype t, Op op) {
  const auto ti = static_cast<std::size_t>(t), oi = static_cast<std::size_t>(op);
  if (ti >= kCombiners.size() || oi >= kCombiners[0].size()) [[unlikely]]
    return Combiner{};
  return kCombiners[ti][oi];
}

// dst[i] = dst[i] op src[i], i < n (elements).
void combine(void* dst, const void* src, std::size_t n, Datatype t, Op op);
// dst[i] = srcs[0][i] op srcs[1][i] op ... op srcs[k-1][i]; dst may be srcs[0].
void combine_all(void* dst, const void* const* srcs, int k, std::size_t n, Datatype t, Op op);
// The same without vectorisation, as a reference for tests and benchmarks.
void combine_scalar(void* dst, const void* src, std::size_t n, Datatype t, Op op);

}  // namespace osmp
