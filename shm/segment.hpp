// Named shared-memory segments: one file in the shm directory (OSMP_SHM_DIR,
// default /dev/shm), created by one process with O_EXCL and mode 0600 and
// attached by the others, with a header every attacher checks before trusting
// anything. Names are removed as soon as every process has attached, so a
// crash after that leaves nothing behind.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/constants.hpp"
#include "core/status.hpp"

namespace osmp {

inline constexpr std::uint64_t kSegmentMagic = 0x31474553504d534fULL;  // "OSMPSEG1"
inline constexpr std::uint32_t kSegmentVersion = 1;

enum class SegmentKind : std::uint32_t { job = 1, team = 2, group = 3, test = 4 };

// What a segment is: declared by its creator, expected by its attachers.
struct SegmentInfo {
  SegmentKind kind = SegmentKind::group;
  std::uint32_t members = 0;
  std::uint64_t job_id = 0;
  std::uint64_t team_id = 0;
  std::uint64_t total_size = 0;  // attach: 0 takes the file's size
  std::uint64_t domain = 0;      // domain id in the communication tree (group segments)
  std::uint64_t params[4] = {};  // layout parameters, compared on attach
};

// First bytes of every segment. Written by the creator before it sets `ready`;
// read-only for everyone afterwards.
//
// Memory ordering: the creator fills `info`, then stores ready = 1 with
// release; an attacher loads ready with acquire before reading `info`.
struct alignas(kFalseSharingRange) SegmentHeader {
  std::uint64_t magic = kSegmentMagic;
  std::uint32_t version = kSegmentVersion;
  std::atomic<std::uint32_t> ready{0};
  SegmentInfo info;
};
static_assert(sizeof(SegmentHeader) == kFalseSharingRange);
static_assert(sizeof(SegmentInfo) == 72);

// The directory holding segments: OSMP_SHM_DIR or /dev/shm.
std::string shm_dir();
// "osmp-<uid>-<job>-<rest>": every name of a job starts with job_prefix().
std::string job_prefix(std::uint64_t job_id);
std::string segment_name(std::uint64_t job_id, const std::string& rest);

// NUMA placement of one byte range of a segment (os index of the node).
struct NumaRange {
  std::size_t offset = 0;
  std::size_t length = 0;
  int node = -1;
};

class Segment {
 public:
  // Creates `name` in `dir`, `size` bytes, reserving its pages (so a full
  // tmpfs is an error now, not a SIGBUS later), places the given ranges on
  // their NUMA nodes, writes the header (info.total_size is filled in) and marks it
  // ready. The caller may initialise the rest before others attach.
  static Result<Segment> create(const std::string& dir, const std::string& name, std::size_t size,
                                SegmentInfo info, const std::vector<NumaRange>& numa = {});
  // Attaches to an existing, ready segment and checks its header against
  // `expect` (magic, version, kind, job, team, members, domain, params) and its
  // size against the file's. `expect.total_size` 0: take the file's size.
  static Result<Segment> attach(const std::string& dir, const std::string& name,
                                const SegmentInfo& expect);

  Segment() = default;
  Segment(Segment&&) noexcept;
  Segment& operator=(Segment&&) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();

  // Removes the name; the mapping stays. Idempotent. Only the creator, or a
  // process that took over the name with adopt_name(), removes it.
  Status unlink();
  void adopt_name() { linked_ = true; }
  bool mapped() const { return base_ != nullptr; }
  std::byte* base() const { return base_; }
  std::size_t size() const { return size_; }
  const std::string& name() const { return name_; }
  const SegmentHeader& header() const { return *reinterpret_cast<const SegmentHeader*>(base_); }

  // A T at `offset`, checked against the mapped size (never against sizes read
  // from shared memory).
  template <class T>
  T* at(std::size_t offset, std::size_t count = 1) const {
    if (offset > size_ || count > (size_ - offset) / sizeof(T) || offset % alignof(T)) {
      out_of_bounds(offset, count * sizeof(T));
    }
    return reinterpret_cast<T*>(base_ + offset);
  }

 private:
  [[noreturn]] void out_of_bounds(std::size_t offset, std::size_t len) const;
  void release();
  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
  std::string path_;
  std::string name_;
  bool linked_ = false;
};

// Free bytes in `dir` (statfs), for the room check and its message.
Result<std::uint64_t> shm_free_bytes(const std::string& dir);
// "1.5 MiB"
std::string format_bytes(std::uint64_t bytes);

// Removes every entry of `dir` whose name starts with `prefix`; returns how many.
int sweep_segments(const std::string& dir, const std::string& prefix);

}  // namespace osmp
