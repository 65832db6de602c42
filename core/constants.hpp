// Constants shared by every layout that lives in shared memory.
#pragma once

#include <cstddef>

namespace osmp {

// Distance that keeps two independently written words from sharing a cache
// line, including the adjacent-line prefetcher pairs on x86 (hence 128, not 64).
// Deliberately not std::hardware_destructive_interference_size: its value can
// change with compiler flags, and our layouts are shared between binaries that
// are built separately (launcher, PMPI shim, Open MPI component).
inline constexpr std::size_t kFalseSharingRange = 128;

// A cache line proper: the unit one flag write moves between cores.
inline constexpr std::size_t kCacheLine = 64;

// The unit the shared heap hands out and reserves (shm/heap.hpp): the
// system's base page on every machine osmp runs on.
inline constexpr std::size_t kPageBytes = 4096;

}  // namespace osmp
