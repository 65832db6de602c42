// Shared-memory segments without names.
//
// A segment is an unnamed file (O_TMPFILE) in the shm directory (OSMP_SHM_DIR,
// default /dev/shm), mode 0600, so it counts against that tmpfs like any file
// but no other process can find it by name, pre-create it or leave it behind:
// the kernel frees it when the last process that maps it exits, however it
// exits. Peers reach it through a SegmentHandle that travels over the team's
// bootstrap (creator pid, descriptor, device and inode) and open it through
// /proc/<pid>/fd/<fd>, which the kernel allows only to processes that may
// inspect the creator (same user, or root). Every attach checks what it
// opened: a regular unnamed file of this user, mode 0600, the announced
// device and inode and size, then the header. See docs/security.md.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/constants.hpp"
#include "core/status.hpp"

namespace osmp {

inline constexpr std::uint64_t kSegmentMagic = 0x32474553504d534fULL;  // "OSMPSEG2"
inline constexpr std::uint32_t kSegmentVersion = 2;

enum class SegmentKind : std::uint32_t { job = 1, team = 2, group = 3, test = 4, heap = 5 };

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

// How a peer finds a segment: valid while its creator holds the descriptor.
// Plain data, the same bytes on every rank (it goes through allgathers).
struct SegmentHandle {
  std::int64_t pid = 0;  // the creator
  std::int32_t fd = -1;  // its descriptor of the file
  std::uint32_t reserved = 0;
  std::uint64_t dev = 0;  // the file's identity, checked after opening it
  std::uint64_t ino = 0;
  std::uint64_t size = 0;
  bool valid() const { return pid > 0 && fd >= 0; }
};
static_assert(sizeof(SegmentHandle) == 40);

// The directory holding segments: OSMP_SHM_DIR or /dev/shm.
std::string shm_dir();

// NUMA placement of one byte range of a segment (os index of the node).
struct NumaRange {
  std::size_t offset = 0;
  std::size_t length = 0;
  int node = -1;
};

class Segment {
 public:
  // Creates an unnamed `size`-byte file in `dir`, reserving its pages (a full
  // tmpfs is an error now, not a SIGBUS later), places the given ranges on
  // their NUMA nodes, writes the header (info.total_size is filled in) and
  // marks it ready. The creator keeps a descriptor until close_fd(), so that
  // peers can attach through handle(). Reserve::header_only: only the
  // header's page is reserved; the creator reserves the rest as it hands it
  // out (reserve(); the shared heap, shm/heap.hpp).
  enum class Reserve { all, header_only };
  static Result<Segment> create(const std::string& dir, std::size_t size, SegmentInfo info,
                                const std::vector<NumaRange>& numa = {}, Reserve reserve = Reserve::all);
  // Opens the segment `h` describes through /proc/<pid>/fd/<fd>, checks the
  // file (see the top of this file) and its header against `expect` (magic,
  // version, kind, job, team, members, domain, params; total_size 0: any).
  static Result<Segment> attach(const SegmentHandle& h, const SegmentInfo& expect);
  // Maps a descriptor this process was given (osmprun passes the job segment
  // to its ranks this way), with the same checks; closes `fd` either way.
  static Result<Segment> adopt(int fd, const SegmentInfo& expect);

  Segment() = default;
  Segment(Segment&&) noexcept;
  Segment& operator=(Segment&&) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();

  bool mapped() const { return base_ != nullptr; }
  std::byte* base() const { return base_; }
  std::size_t size() const { return size_; }
  const SegmentHeader& header() const { return *reinterpret_cast<const SegmentHeader*>(base_); }
  // The creator's handle for peers (invalid once close_fd() ran, or when
  // this process attached rather than created).
  SegmentHandle handle() const;
  // This process's descriptor of the file, -1 after close_fd().
  int fd() const { return fd_; }
  // Drops the descriptor: from now on nothing but the mappings of the
  // processes that attached keep the segment alive. Idempotent.
  void close_fd();
  // The creator, while it holds the descriptor: reserves the pages of
  // [offset, offset + len) (no room: Errc::no_space naming the sizes), or
  // gives them back to the system (their contents are lost: zeros on the
  // next read). Both page-aligned.
  Status reserve(std::size_t offset, std::size_t len) const;
  void give_back(std::size_t offset, std::size_t len) const;

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
  static Result<Segment> map_checked(int fd, const std::string& what, const SegmentInfo& expect,
                                     const SegmentHandle* announced);
  [[noreturn]] void out_of_bounds(std::size_t offset, std::size_t len) const;
  void release();
  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
  int fd_ = -1;
  std::uint64_t dev_ = 0, ino_ = 0;
  std::string what_;  // for messages: "segment in /dev/shm", "rank 3's segment"
  std::string dir_;   // the creator's: where the file lives (reserve()'s message)
};

// Free bytes in `dir` (statfs), for the room check and its message.
Result<std::uint64_t> shm_free_bytes(const std::string& dir);
// "1.5 MiB"
std::string format_bytes(std::uint64_t bytes);

}  // namespace osmp
