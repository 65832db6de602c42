// Single copy between processes: process_vm_readv / process_vm_writev
// (cross-memory attach).
// Needs the right to ptrace the peer (same user, and Yama's ptrace_scope 0 or
// a parent); where the kernel refuses, osmp copies through shared memory.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "core/status.hpp"

namespace osmp {

// Copies `n` bytes at `remote` in process `pid` to `local`. Retries short reads.
Status cma_read(pid_t pid, void* local, std::uint64_t remote, std::size_t n);
// Copies `n` bytes at `local` to `remote` in process `pid`. Retries short writes.
Status cma_write(pid_t pid, std::uint64_t remote, const void* local, std::size_t n);

// How many times longer process_vm_readv takes than memcpy to copy
// kCmaProbeBytes between two buffers of this process (the kernel's path is
// the one it takes from a peer of the same user: pinning each page, then
// the copy; measured here within 5% of a peer's, 64 KiB-4 MiB). The least
// time of kCmaProbeTries copies each way, measured once per process at the
// first call (about a millisecond on a VM whose CMA is slow, less where it
// is fast); 0 where the kernel refuses the call. The team decides from it
// whether CMA's single copy pays (OSMP_CMA=auto, collectives/config.hpp).
inline constexpr std::size_t kCmaProbeBytes = std::size_t{1} << 20;
inline constexpr int kCmaProbeTries = 4;
double cma_slowdown();

}  // namespace osmp
