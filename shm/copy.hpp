// Copying into memory that other processes read.
//
// Overwriting lines that another core still holds (it read the last step's
// data) costs an invalidation per line; non-temporal stores skip the cache
// and those reads, but the reader then takes every line from memory. Which
// wins depends on the host: on an early one 64 KiB took 40 us with memcpy
// and 5 us streamed; on a later one (2026-11-27, 2 processes, osmp-bench,
// the same binary with OSMP_NT_MIN 16K and 1M) the cache path won at 16-64
// KiB for every operation (bcast 0.81-0.89x the streamed time, allreduce
// 0.85-0.87x, reduce_scatter 0.56-0.59x at 16-32 KiB, scan 0.7x; 4
// processes on 2 cores: bcast 0.57-0.71x, allreduce 0.48-0.57x), and was
// even from 128 KiB. Areas' copies are at most a slot or a chunk (64 KiB
// by default), so from 1 MiB (OSMP_NT_MIN) only staged buffers stream,
// which come from memory anyway (as copy_direct's). Non-temporal stores are
// weakly ordered: copy_to_shared() ends with a store fence, so a release
// store of a flag afterwards publishes them.
#pragma once

#include <cstddef>
#include <cstring>

namespace osmp {

// Sizes from which copy_to_shared() bypasses the cache (OSMP_NT_MIN).
std::size_t nt_threshold();

// The copies of 64 bytes or more (below that nothing would stream).
void copy_to_shared_large(void* dst, const void* src, std::size_t n);
// A copy with non-temporal stores, whatever its size (ends with a store fence).
void copy_streaming(void* dst, const void* src, std::size_t n);

// Sizes from which copy_direct() bypasses the cache (OSMP_DIRECT_NT_MIN).
std::size_t direct_nt_threshold();

// A single copy between two buffers of a collective (one of them a peer's,
// collectives/ops/direct.cpp), which do not overlap: from
// OSMP_DIRECT_NT_MIN (default 1 MiB) with non-temporal stores. Copies that
// large come from memory, not the cache, and writing around the cache saves
// reading every destination line first: 1.2-1.6x faster at 1-4 MiB here;
// below, where source and destination may stay in the caches, plain memcpy
// (streaming at 256-512 KiB was up to 2x slower; docs/heap.md).
void copy_direct(void* dst, const void* src, std::size_t n);

// A copy of fewer than 64 bytes that do not overlap, without a call: two
// fixed-size copies from each end that meet or overlap in the middle (a
// small call's inline data; memcpy of a size known only at run time is a
// call of about 15 instructions for 4 bytes).
inline void copy_small(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  auto ends = [&]<std::size_t W>() {
    unsigned char a[W], b[W];
    std::memcpy(a, s, W);
    std::memcpy(b, s + n - W, W);
    std::memcpy(d, a, W);
    std::memcpy(d + n - W, b, W);
  };
  if (n >= 32) {
    ends.template operator()<32>();
  } else if (n >= 16) {
    ends.template operator()<16>();
  } else if (n >= 8) {
    ends.template operator()<8>();
  } else if (n >= 4) {
    ends.template operator()<4>();
  } else if (n) {  // 1 to 3 bytes: the first, the middle, the last
    const unsigned char a = s[0], m = s[n / 2], z = s[n - 1];
    d[0] = a;
    d[n / 2] = m;
    d[n - 1] = z;
  }
}

// memcpy, small copies inline (copy_small): a payload's copy of its data,
// a few bytes in small calls and up to a chunk in large ones.
inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n < 64) {
    copy_small(dst, src, n);
  } else {
    std::memcpy(dst, src, n);
  }
}

// memmove, small moves inline (copy_small reads every byte before it
// writes one, so it moves overlapping bytes too).
inline void move_bytes(void* dst, const void* src, std::size_t n) {
  if (n < 64) {
    copy_small(dst, src, n);
  } else {
    std::memmove(dst, src, n);
  }
}

inline void copy_to_shared(void* dst, const void* src, std::size_t n) {
  if (n < 64) {  // the small calls' inline data: a plain copy, no call
    copy_small(dst, src, n);
    return;
  }
  copy_to_shared_large(dst, src, n);
}

}  // namespace osmp
