// The shared heap: memory of one process that the other processes of its
// teams map too, so that a collective reads and writes a peer's buffer
// directly (one copy instead of two through the group's areas).
//
// Each process has at most one heap (Heap::of_process): an unnamed segment
// (shm/segment.hpp) of OSMP_HEAP_SIZE bytes. The segment is sparse: the pages
// of a block are reserved when it is allocated (a full tmpfs is
// Errc::no_space with the sizes, never a SIGBUS later) and given back to the
// system when it is freed. Allocation is local (no other process takes part)
// and first fit over page-sized units; the allocator's books are private to
// the owner, so no peer can corrupt them. The owner keeps the descriptor, so
// that the teams it joins later attach its heap too, through
// /proc/<pid>/fd like every segment (same user only: docs/security.md).
//
// HeapPeers is a team's view of its members' heaps: where rank r's heap is
// mapped in this process (each peer's heap is mapped once per process,
// whatever number of teams share it). A buffer travels as an offset into its
// owner's heap (Heap::locate), which the reader checks against the size it
// mapped, never trusting a peer's word for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "shm/segment.hpp"

namespace osmp {

class Heap {
 public:
  // The word a buffer outside every heap travels as.
  static constexpr std::uint64_t kNowhere = 0;

  // This process's heap, created on the first call with `bytes` (later
  // calls return the same heap whatever they ask for; nullptr once none
  // exists and `bytes` is 0). It lives while a shared_ptr to it does.
  static Result<std::shared_ptr<Heap>> of_process(std::size_t bytes);
  // A heap that is not the process's (tests).
  static Result<std::shared_ptr<Heap>> create(const std::string& dir, std::size_t bytes);

  // `bytes` rounded up to pages, page-aligned; reserved in the file system.
  // Errc::no_space names the sizes (the request, what is free, the largest
  // free run, the heap's size); Errc::invalid_argument for 0 bytes.
  Result<void*> allocate(std::size_t bytes);
  // Frees a block allocate() returned. Anything else (a pointer inside a
  // block, a block freed before, memory from elsewhere) is
  // Errc::invalid_argument, and the heap is unchanged.
  Status free(void* p);
  // Takes a block allocate() returned out of use for good, without handing
  // its pages to anyone again: for a block a peer may still be writing into
  // (its team stopped in the middle of a call). Same errors as free().
  Status retire(void* p);
  // Where [p, p + n) lies: the offset into this heap when it is inside one
  // allocated block, kNowhere otherwise. n = 0: the empty range at p.
  std::uint64_t locate(const void* p, std::size_t n) const;
  // Whether p is in this heap's mapping at all (allocated or not).
  bool contains(const void* p) const {
    auto* b = static_cast<const std::byte*>(p);
    return b >= seg_.base() && b < seg_.base() + seg_.size();
  }

  std::byte* base() const { return seg_.base(); }
  std::size_t size() const { return seg_.size(); }
  // Bytes in allocated blocks (page multiples).
  std::size_t used() const;
  // The first byte blocks may start at: the page after the segment's header.
  static constexpr std::size_t kFirst = kPageBytes;
  SegmentHandle handle() const { return seg_.handle(); }
  // What every heap segment's header says (peers check it on attach).
  static SegmentInfo info();

 private:
  explicit Heap(Segment s);
  Status release(void* p, bool reuse);
  Segment seg_;
  mutable std::mutex mu_;
  std::map<std::size_t, std::size_t> free_;  // offset -> bytes, coalesced
  std::map<std::size_t, std::size_t> used_;  // offset -> bytes
};

// A team's view of its members' heaps (built collectively by the team:
// team/heaps.hpp). Read-only once built.
class HeapPeers {
 public:
  // `handles[r]` is rank r's heap (invalid: r has none); `own` this
  // process's (rank `me`), may be null.
  static Result<HeapPeers> attach(const std::vector<SegmentHandle>& handles, int me, std::shared_ptr<Heap> own);

  // Rank r's heap as mapped here: its base and size (nullptr, 0: none).
  const std::byte* base(int r) const { return bases_[static_cast<std::size_t>(r)]; }
  std::size_t size(int r) const { return sizes_[static_cast<std::size_t>(r)]; }
  // The address of [offset, offset + n) in rank r's heap, after checking it
  // against what this process mapped; nullptr when it does not fit.
  std::byte* at(int r, std::uint64_t offset, std::size_t n) const {
    const std::size_t s = size(r);
    if (offset < Heap::kFirst || offset > s || n > s - offset) return nullptr;  // never the header
    return const_cast<std::byte*>(base(r)) + offset;
  }
  Heap* own() const { return own_.get(); }
  // Whether every rank has a heap (else no call can take single copy on
  // buffers that rank would have to offer).
  bool complete() const { return complete_; }
  const std::shared_ptr<Heap>& own_shared() const { return own_; }
  int ranks() const { return static_cast<int>(bases_.size()); }

 private:
  std::shared_ptr<Heap> own_;
  std::vector<std::shared_ptr<const Segment>> mapped_;  // peers' heaps, shared process-wide
  std::vector<const std::byte*> bases_;
  std::vector<std::size_t> sizes_;
  bool complete_ = false;  // no size is 0 (attach)
};

}  // namespace osmp
