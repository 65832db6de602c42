// Shared regions: memory that several processes have mapped, each at its own
// address, made by someone other than osmp (an MPI's shared window,
// MPI_Win_allocate_shared), registered here by whoever knows its parts (the
// interposer: mpi_glue/pmpi/windows.cpp). A collective whose buffers lie in
// a region that every rank of its team has mapped reads and writes them
// where they are, as it does in the shared heaps (collectives/ops/direct.cpp).
//
// A region has a number, agreed by its members when they register it: one
// that none of them uses for another live region (each brings used(), the
// union's lowest_free() is taken, and all keep it only if every member's
// add() succeeded), so that (number, part, offset) names the same byte in
// every member. Number 0 is each rank's heap.
//
// Offer words (what a rank writes for its buffers, ops/direct.cpp): bits
// 63..54 the region's number (0: an offset into the owner's heap, bits
// 53..0), bits 53..40 the part (a window's rank), bits 39..0 the offset
// into that part. A reader trusts no word: at() checks the number against
// its own registrations and the offset against the part's size here.
#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "core/status.hpp"

namespace osmp {

struct RegionPart {
  std::byte* base = nullptr;  // where this part is mapped in this process
  std::size_t size = 0;
};

// The word fields (see the file's head).
inline constexpr int kRegionNumberShift = 54, kRegionPartShift = 40;
inline constexpr std::uint64_t kRegionOffsetMask = (std::uint64_t{1} << kRegionPartShift) - 1;
inline constexpr std::uint64_t kRegionPartMask = (std::uint64_t{1} << (kRegionNumberShift - kRegionPartShift)) - 1;
constexpr int region_of(std::uint64_t word) { return static_cast<int>(word >> kRegionNumberShift); }
constexpr std::uint64_t region_word(int number, std::size_t part, std::uint64_t offset) {
  return (static_cast<std::uint64_t>(number) << kRegionNumberShift) |
         (static_cast<std::uint64_t>(part) << kRegionPartShift) | offset;
}
// The largest heap offset a word can carry (region 0).
inline constexpr std::uint64_t kHeapWordMax = (std::uint64_t{1} << kRegionNumberShift) - 1;

class SharedRegions {
 public:
  static constexpr int kNumbers = 1024;  // 1 .. kNumbers - 1 (0: the heaps)
  static constexpr std::size_t kMaxParts = kRegionPartMask + 1;
  using Used = std::array<std::uint64_t, kNumbers / 64>;  // bit i: number i in use

  // This process's registrations (shared by all its threads and teams).
  static SharedRegions& of_process();

  // The numbers in use here (bit 0 always: the heaps).
  Used used() const;
  // The lowest number clear in `used` (the union of the members'), 0: none.
  static int lowest_free(const Used& used);
  // Registers region `number` (not in use here): its parts as mapped here and
  // the pids of the processes that mapped it. Errc::invalid_argument: a
  // number out of range or in use, too many parts, no members.
  Status add(int number, std::vector<RegionPart> parts, std::vector<pid_t> members);
  // Forgets it (its memory is about to go); no-op for a number not in use.
  void remove(int number);

  // The word naming [p, p + n) (n > 0) when it lies inside one part of a
  // region every process in `readers` has mapped; 0 otherwise.
  std::uint64_t locate(const void* p, std::size_t n, const std::vector<pid_t>& readers) const;
  // Where a word's [offset, offset + n) is in this process: nullptr when its
  // region is not registered here or the bytes pass the part's end.
  std::byte* at(std::uint64_t word, std::size_t n) const;
  // Whether any region is registered (one relaxed load: callers skip
  // locate() on the common path).
  bool empty() const { return live_.load(std::memory_order_relaxed) == 0; }

 private:
  struct Region {
    std::vector<RegionPart> parts;
    std::vector<pid_t> members;  // sorted
  };
  mutable std::shared_mutex mu_;
  std::array<std::unique_ptr<Region>, kNumbers> regions_{};
  // Counts registrations; relaxed: it only says whether to look (the lock
  // orders the regions themselves).
  std::atomic<int> live_{0};
};

}  // namespace osmp
