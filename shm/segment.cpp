#include "shm/segment.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>

#include "core/env.hpp"
#include "core/log.hpp"

namespace osmp {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

void place_on_nodes(std::byte* base, const std::vector<NumaRange>& ranges) {
  // mbind sets the policy of the shared object itself, so the pages that
  // posix_fallocate() reserves afterwards follow it.
  constexpr int kMpolPreferred = 1;  // MPOL_PREFERRED: fall back instead of failing
  for (const auto& r : ranges) {
    if (r.node < 0 || r.node >= 1024 || r.length == 0) continue;
    unsigned long mask[1024 / (8 * sizeof(unsigned long))] = {};
    mask[static_cast<unsigned>(r.node) / (8 * sizeof(unsigned long))] |=
        1UL << (static_cast<unsigned>(r.node) % (8 * sizeof(unsigned long)));
    long rc = ::syscall(SYS_mbind, base + r.offset, r.length, kMpolPreferred, mask, 1024, 0);
    if (rc != 0) log(LogLevel::debug, "mbind to node ", r.node, " failed: ", errno_text(errno));
  }
}

Status mismatch(const std::string& name, const char* field, std::uint64_t got, std::uint64_t want) {
  return Status(Errc::mismatch, cat("segment ", name, ": header ", field, " is ", got, ", expected ",
                                    want, " (a stale segment, or another job's?)"));
}

}  // namespace

std::string shm_dir() {
  auto d = env_get("OSMP_SHM_DIR");
  return d && !d->empty() ? *d : std::string("/dev/shm");
}

std::string job_prefix(std::uint64_t job_id) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "osmp-%u-%016" PRIx64 "-", static_cast<unsigned>(::getuid()), job_id);
  return buf;
}

std::string segment_name(std::uint64_t job_id, const std::string& rest) {
  return job_prefix(job_id) + rest;
}

std::string format_bytes(std::uint64_t b) {
  char buf[32];
  if (b >= (1ULL << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1ULL << 30));
  else if (b >= (1ULL << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1ULL << 20));
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024);
  else std::snprintf(buf, sizeof buf, "%" PRIu64 " B", b);
  return buf;
}

Result<std::uint64_t> shm_free_bytes(const std::string& dir) {
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0) {
    return Status(Errc::system, cat("cannot statfs shared-memory directory ", dir, ": ", errno_text(errno)));
  }
  return static_cast<std::uint64_t>(fs.f_bavail) * static_cast<std::uint64_t>(fs.f_bsize);
}

Result<Segment> Segment::create(const std::string& dir, const std::string& name, std::size_t size,
                                SegmentInfo info, const std::vector<NumaRange>& numa) {
  if (size < sizeof(SegmentHeader)) {
    return Status(Errc::internal, cat("segment ", name, ": size ", size, " smaller than its header"));
  }
  OSMP_ASSIGN_OR_RETURN(std::uint64_t free_bytes, shm_free_bytes(dir));
  auto no_room = [&](std::uint64_t avail) {
    return Status(Errc::no_space,
                  cat("not enough shared memory in ", dir, ": segment ", name, " needs ",
                      format_bytes(size), ", only ", format_bytes(avail),
                      " free (enlarge the tmpfs, e.g. docker --shm-size, or lower "
                      "OSMP_SLOT_SIZE / OSMP_BCAST_SIZE)"));
  };
  if (free_bytes < size) return no_room(free_bytes);

  Segment s;
  s.path_ = dir + "/" + name;
  s.name_ = name;
  int fd = ::open(s.path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Status(errno == EEXIST ? Errc::mismatch : Errc::system,
                  cat("cannot create segment ", s.path_, ": ", errno_text(errno)));
  }
  s.linked_ = true;
  auto fail = [&](Status st) {
    ::close(fd);
    return st;  // s's destructor unmaps and unlinks
  };
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    return fail(Status(Errc::system, cat("cannot size segment ", s.path_, ": ", errno_text(errno))));
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    return fail(Status(Errc::system, cat("cannot map segment ", s.path_, ": ", errno_text(errno))));
  }
  s.base_ = static_cast<std::byte*>(p);
  s.size_ = size;
  place_on_nodes(s.base_, numa);
  int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
  if (rc == ENOSPC) return fail(no_room(shm_free_bytes(dir).ok() ? *shm_free_bytes(dir) : 0));
  if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
    return fail(Status(Errc::system, cat("cannot reserve segment ", s.path_, ": ", errno_text(rc))));
  }
  ::close(fd);
  info.total_size = size;
  auto* h = new (s.base_) SegmentHeader();
  h->info = info;
  h->ready.store(1, std::memory_order_release);  // pairs with the acquire in attach()
  return s;
}

Result<Segment> Segment::attach(const std::string& dir, const std::string& name,
                                const SegmentInfo& expect) {
  Segment s;
  s.path_ = dir + "/" + name;
  s.name_ = name;
  int fd = ::open(s.path_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return Status(errno == ENOENT ? Errc::not_found : Errc::system,
                  cat("cannot open segment ", s.path_, ": ", errno_text(errno),
                      errno == ENOENT ? " (it vanished: removed by someone, or never created)" : ""));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status(Errc::system, cat("cannot stat segment ", s.path_, ": ", errno_text(e)));
  }
  std::size_t size = static_cast<std::size_t>(st.st_size);
  if (size < sizeof(SegmentHeader) || (expect.total_size && size != expect.total_size)) {
    ::close(fd);
    return Status(Errc::mismatch, cat("segment ", s.path_, " is ", size, " bytes, expected ",
                                      expect.total_size ? expect.total_size : sizeof(SegmentHeader)));
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int e = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Status(Errc::system, cat("cannot map segment ", s.path_, ": ", errno_text(e)));
  s.base_ = static_cast<std::byte*>(p);
  s.size_ = size;
  const SegmentHeader& hdr = s.header();
  if (hdr.magic != kSegmentMagic) return mismatch(s.path_, "magic", hdr.magic, kSegmentMagic);
  if (hdr.version != kSegmentVersion) return mismatch(s.path_, "version", hdr.version, kSegmentVersion);
  if (hdr.ready.load(std::memory_order_acquire) != 1) {  // pairs with the release in create()
    return Status(Errc::mismatch, cat("segment ", s.path_, " is not initialised"));
  }
  const SegmentInfo& h = hdr.info;
  if (h.kind != expect.kind)
    return mismatch(s.path_, "kind", static_cast<std::uint32_t>(h.kind), static_cast<std::uint32_t>(expect.kind));
  if (h.job_id != expect.job_id) return mismatch(s.path_, "job id", h.job_id, expect.job_id);
  if (h.team_id != expect.team_id) return mismatch(s.path_, "team id", h.team_id, expect.team_id);
  if (h.total_size != size) return mismatch(s.path_, "total size", h.total_size, size);
  if (h.members != expect.members) return mismatch(s.path_, "member count", h.members, expect.members);
  if (h.domain != expect.domain) return mismatch(s.path_, "domain", h.domain, expect.domain);
  for (int i = 0; i < 4; ++i) {
    if (h.params[i] != expect.params[i]) return mismatch(s.path_, "layout parameter", h.params[i], expect.params[i]);
  }
  return s;
}

Segment::Segment(Segment&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      path_(std::move(o.path_)),
      name_(std::move(o.name_)),
      linked_(std::exchange(o.linked_, false)) {}

Segment& Segment::operator=(Segment&& o) noexcept {
  if (this != &o) {
    release();
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    path_ = std::move(o.path_);
    name_ = std::move(o.name_);
    linked_ = std::exchange(o.linked_, false);
  }
  return *this;
}

Segment::~Segment() { release(); }

void Segment::release() {
  // The creator unlinks on destruction too: a failed bootstrap leaves no name.
  if (linked_) (void)unlink();
  if (base_) ::munmap(base_, size_);
  base_ = nullptr;
}

Status Segment::unlink() {
  if (!linked_) return {};
  linked_ = false;
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) {
    return Status(Errc::system, cat("cannot remove segment ", path_, ": ", errno_text(errno)));
  }
  return {};
}

void Segment::out_of_bounds(std::size_t offset, std::size_t len) const {
  log(LogLevel::error, "segment ", name_, ": access of ", len, " bytes at ", offset,
      " outside its ", size_, " bytes");
  std::abort();
}

int sweep_segments(const std::string& dir, const std::string& prefix) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  int n = 0;
  while (dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) {
      if (::unlinkat(::dirfd(d), e->d_name, 0) == 0) ++n;
    }
  }
  ::closedir(d);
  return n;
}

}  // namespace osmp
