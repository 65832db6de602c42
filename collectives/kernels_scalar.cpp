// The reference loop, kept out of the vectoriser's reach.
#include <cstdint>
#include <type_traits>

#include "collectives/kernels.hpp"

namespace osmp {
namespace {

// GCC's attribute; other compilers (and clang-tidy) leave the loop as is.
#if defined(__GNUC__) && !defined(__clang__)
#define OSMP_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define OSMP_NO_VECTORIZE
#endif

template <class T>
OSMP_NO_VECTORIZE void scalar(T* d, const T* s, std::size_t n, Op op) {
  for (std::size_t i = 0; i < n; ++i) {
    T a = d[i], b = s[i];
    switch (op) {
      case Op::sum: d[i] = wrap_add(a, b); break;
      case Op::prod: d[i] = wrap_mul(a, b); break;
      case Op::min: d[i] = b < a ? b : a; break;
      case Op::max: d[i] = a < b ? b : a; break;
      default:
        if constexpr (std::is_integral_v<T>) {
          switch (op) {
            case Op::band: d[i] = static_cast<T>(a & b); break;
            case Op::bor: d[i] = static_cast<T>(a | b); break;
            case Op::bxor: d[i] = static_cast<T>(a ^ b); break;
            case Op::land: d[i] = static_cast<T>((a != 0) & (b != 0)); break;
            case Op::lor: d[i] = static_cast<T>((a != 0) | (b != 0)); break;
            default: break;
          }
        }
    }
  }
}

template <class T>
void run(void* d, const void* s, std::size_t n, Op op) {
  scalar(static_cast<T*>(d), static_cast<const T*>(s), n, op);
}

}  // namespace

void combine_scalar(void* d, const void* s, std::size_t n, Datatype t, Op op) {
  switch (t) {
    case Datatype::int8: return run<std::int8_t>(d, s, n, op);
    case Datatype::int16: return run<std::int16_t>(d, s, n, op);
    case Datatype::int32: return run<std::int32_t>(d, s, n, op);
    case Datatype::int64: return run<std::int64_t>(d, s, n, op);
    case Datatype::uint8: return run<std::uint8_t>(d, s, n, op);
    case Datatype::uint16: return run<std::uint16_t>(d, s, n, op);
    case Datatype::uint32: return run<std::uint32_t>(d, s, n, op);
    case Datatype::uint64: return run<std::uint64_t>(d, s, n, op);
    case Datatype::float32: return run<float>(d, s, n, op);
    case Datatype::float64: return run<double>(d, s, n, op);
  }
}

}  // namespace osmp
