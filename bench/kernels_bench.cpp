// Reduction kernels: the vectorised combine (collectives/kernels.cpp, -O3)
// against the same loop with vectorisation turned off. Bytes/s counts the
// bytes read and written, so figures compare with memcpy bandwidth.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "collectives/kernels.hpp"

namespace {

using osmp::Datatype;
using osmp::Op;

template <bool kVector>
void BM_Combine(benchmark::State& state, Datatype t, Op op) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::size_t bytes = n * osmp::size_of(t);
  std::vector<std::uint8_t> dst(bytes, 1), src(bytes, 1);
  for (auto _ : state) {
    if constexpr (kVector) {
      osmp::combine(dst.data(), src.data(), n, t, op);
    } else {
      osmp::combine_scalar(dst.data(), src.data(), n, t, op);
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 3 * bytes));
}
void BM_Vector(benchmark::State& state, Datatype t, Op op) { BM_Combine<true>(state, t, op); }
void BM_Scalar(benchmark::State& state, Datatype t, Op op) { BM_Combine<false>(state, t, op); }

#define OSMP_KERNEL_BENCH(name, type, op)                           \
  BENCHMARK_CAPTURE(BM_Vector, name, type, op)->Range(64, 1 << 18); \
  BENCHMARK_CAPTURE(BM_Scalar, name, type, op)->Range(64, 1 << 18)

OSMP_KERNEL_BENCH(float64_sum, Datatype::float64, Op::sum);
OSMP_KERNEL_BENCH(float32_sum, Datatype::float32, Op::sum);
OSMP_KERNEL_BENCH(float32_max, Datatype::float32, Op::max);
OSMP_KERNEL_BENCH(int32_sum, Datatype::int32, Op::sum);
OSMP_KERNEL_BENCH(int64_prod, Datatype::int64, Op::prod);
OSMP_KERNEL_BENCH(uint8_bxor, Datatype::uint8, Op::bxor);
OSMP_KERNEL_BENCH(int16_min, Datatype::int16, Op::min);
OSMP_KERNEL_BENCH(int32_land, Datatype::int32, Op::land);

}  // namespace
