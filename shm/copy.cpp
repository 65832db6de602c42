#include "shm/copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/env.hpp"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace osmp {

std::size_t nt_threshold() {
  static const std::size_t t = [] {
    auto v = env_size("OSMP_NT_MIN", std::size_t{1} << 20);
    return v.ok() ? static_cast<std::size_t>(*v) : std::size_t{1} << 20;
  }();
  return t;
}

std::size_t direct_nt_threshold() {
  static const std::size_t t = [] {
    auto v = env_size("OSMP_DIRECT_NT_MIN", std::size_t{1} << 20);
    return v.ok() ? static_cast<std::size_t>(*v) : std::size_t{1} << 20;
  }();
  return t;
}

void copy_direct(void* dst, const void* src, std::size_t n) {
  if (n >= direct_nt_threshold() && n >= 64) return copy_streaming(dst, src, n);
  std::memcpy(dst, src, n);
}

void copy_to_shared_large(void* dst, const void* src, std::size_t n) {
  if (n >= nt_threshold()) return copy_streaming(dst, src, n);
  std::memcpy(dst, src, n);
}

void copy_streaming(void* dst, const void* src, std::size_t n) {
#if defined(__x86_64__)
  auto* d = static_cast<char*>(dst);
  auto* s = static_cast<const char*>(src);
  // Align the destination to 16 bytes, stream 64 bytes at a time, tail by memcpy.
  std::size_t head = std::min<std::size_t>(n, (16 - reinterpret_cast<std::uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  std::size_t i = head;
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
  }
  std::memcpy(d + i, s + i, n - i);
  _mm_sfence();  // the streamed stores before any later (release) store
#else
  std::memcpy(dst, src, n);
#endif
}

}  // namespace osmp
