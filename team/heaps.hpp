// A team's shared heaps (shm/heap.hpp), joined at team creation: every rank
// brings its process's heap (created on first use with OSMP_HEAP_SIZE
// bytes, or none), the handles go round the bootstrap, every rank maps the
// others', and all agree on success, so that one rank's failure is every
// rank's error, never a team where some ranks see heaps that others do not:
// then the team has none (null), on every rank.
#pragma once

#include <memory>

#include "shm/heap.hpp"
#include "team/bootstrap.hpp"
#include "team/options.hpp"

namespace osmp {

// The heap size of a process that did not set OSMP_HEAP_SIZE, in a team of
// `ranks`: a quarter of what `dir` has free, shared among the ranks (the
// pages are reserved only when blocks are allocated, so this bounds what
// may be asked, not what is used), in whole MiB; 0 below 1 MiB.
std::size_t default_heap_bytes(const std::string& dir, int ranks);

Result<std::shared_ptr<const HeapPeers>> join_heaps(Bootstrap& boot, const TeamOptions& options);

}  // namespace osmp
