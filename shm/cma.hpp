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

}  // namespace osmp
