#include "shm/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include "core/env.hpp"
#include "core/log.hpp"
#include "shm/peers.hpp"

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

Status mismatch(const std::string& what, const char* field, std::uint64_t got, std::uint64_t want) {
  return Status(Errc::mismatch,
                cat(what, ": header ", field, " is ", got, ", expected ", want, " (another job's segment?)"));
}

}  // namespace

std::string shm_dir() {
  auto d = env_get("OSMP_SHM_DIR");
  return d && !d->empty() ? *d : std::string("/dev/shm");
}

std::string format_bytes(std::uint64_t b) {
  char buf[32];
  if (b >= (1ULL << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1ULL << 30));
  else if (b >= (1ULL << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1ULL << 20));
  else if (b >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%" PRIu64 " B", b);
  return buf;
}

Result<std::uint64_t> shm_free_bytes(const std::string& dir) {
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0) {
    return Status(Errc::system, cat("cannot statfs shared-memory directory ", dir, ": ", errno_text(errno)));
  }
  return static_cast<std::uint64_t>(fs.f_bavail) * static_cast<std::uint64_t>(fs.f_bsize);
}

Result<Segment> Segment::create(const std::string& dir, std::size_t size, SegmentInfo info,
                                const std::vector<NumaRange>& numa, Reserve reserve) {
  if (size < sizeof(SegmentHeader)) {
    return Status(Errc::internal, cat("segment of ", size, " bytes: smaller than its header"));
  }
  OSMP_ASSIGN_OR_RETURN(std::uint64_t free_bytes, shm_free_bytes(dir));
  auto no_room = [&](std::uint64_t avail) {
    return Status(Errc::no_space, cat("not enough shared memory in ", dir, ": a segment needs ", format_bytes(size),
                                      ", only ", format_bytes(avail),
                                      " free (enlarge the tmpfs, e.g. docker --shm-size, or lower "
                                      "OSMP_SLOT_SIZE / OSMP_BCAST_SIZE)"));
  };
  const std::size_t reserved = reserve == Reserve::all ? size : std::min<std::size_t>(size, kPageBytes);
  if (free_bytes < reserved) return no_room(free_bytes);

  // O_TMPFILE: the file never has a name, so nobody can find, pre-create or
  // leave it behind. fchmod: the umask must not change what attachers check.
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    int e = errno;
    if (e == EOPNOTSUPP || e == EISDIR) {
      return Status(Errc::unsupported, cat("shared-memory directory ", dir,
                                           " cannot hold unnamed files (O_TMPFILE); set OSMP_SHM_DIR "
                                           "to a tmpfs such as /dev/shm"));
    }
    return Status(e == ENOENT ? Errc::not_found : Errc::system,
                  cat("cannot create a segment in ", dir, ": ", errno_text(e)));
  }
  Segment s;
  s.fd_ = fd;
  s.what_ = cat("segment in ", dir);
  s.dir_ = dir;
  if (::fchmod(fd, 0600) != 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    return Status(Errc::system,
                  cat("cannot size a segment of ", format_bytes(size), " in ", dir, ": ", errno_text(errno)));
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return Status(Errc::system, cat("cannot map a segment in ", dir, ": ", errno_text(errno)));
  s.base_ = static_cast<std::byte*>(p);
  s.size_ = size;
  place_on_nodes(s.base_, numa);
  int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(reserved));
  if (rc == ENOSPC) return no_room(shm_free_bytes(dir).ok() ? *shm_free_bytes(dir) : 0);
  if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
    return Status(Errc::system, cat("cannot reserve a segment in ", dir, ": ", errno_text(rc)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return Status(Errc::system, cat("cannot stat a segment in ", dir, ": ", errno_text(errno)));
  s.dev_ = st.st_dev;
  s.ino_ = st.st_ino;
  info.total_size = size;
  auto* h = new (s.base_) SegmentHeader();
  h->info = info;
  h->ready.store(1, std::memory_order_release);  // pairs with the acquire in map_checked()
  return s;
}

Result<Segment> Segment::attach(const SegmentHandle& h, const SegmentInfo& expect) {
  if (!h.valid()) return Status(Errc::internal, "attach: no segment was announced");
  const std::string path = cat("/proc/", h.pid, "/fd/", h.fd);
  const std::string what = cat("the segment of pid ", h.pid, " (", path, ")");
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) {
      // A creator closes its descriptor only once every rank has attached
      // (or keeps it for its life: a heap): gone before that, it exited. A
      // pidfd tells so even of a zombie, whose /proc/PID/fd is already gone.
      if (!PeerWatch({static_cast<pid_t>(h.pid)}).alive(0))
        return Status(Errc::peer_dead, cat("cannot open ", what, ": its process exited"));
      return Status(Errc::not_found, cat("cannot open ", what, ": it is gone (its creator closed it)"));
    }
    return Status(e == EACCES || e == EPERM ? Errc::unsupported : Errc::system,
                  cat("cannot open ", what, ": ", errno_text(e),
                      e == EACCES || e == EPERM ? " (osmp's processes must be one user's, dumpable, and "
                                                  "in one PID namespace)"
                                                : ""));
  }
  auto s = map_checked(fd, what, expect, &h);
  ::close(fd);
  return s;
}

Result<Segment> Segment::adopt(int fd, const SegmentInfo& expect) {
  auto s = map_checked(fd, cat("the segment of inherited descriptor ", fd), expect, nullptr);
  ::close(fd);
  return s;
}

Result<Segment> Segment::map_checked(int fd, const std::string& what, const SegmentInfo& expect,
                                     const SegmentHandle* announced) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status(Errc::system, cat("cannot stat ", what, ": ", errno_text(errno)));
  const char* refused = !S_ISREG(st.st_mode)           ? "it is not a regular file"
                        : st.st_uid != ::geteuid()     ? "it belongs to another user"
                        : (st.st_mode & 07777) != 0600 ? "its mode is not 0600"
                        : st.st_nlink != 0             ? "it has a name in the file system"
                        : announced && (st.st_dev != announced->dev || st.st_ino != announced->ino)
                            ? "it is not the file that was announced"
                            : nullptr;
  if (refused) {
    return Status(Errc::mismatch,
                  cat("refusing ", what, ": ", refused, " (uid ", st.st_uid, ", mode ", std::oct, (st.st_mode & 07777),
                      std::dec, ", links ", st.st_nlink, "); osmp segments are unnamed 0600 files of the job's user"));
  }
  std::size_t size = static_cast<std::size_t>(st.st_size);
  const std::uint64_t want = expect.total_size ? expect.total_size : announced ? announced->size : 0;
  if (size < sizeof(SegmentHeader) || (want && size != want)) {
    return Status(Errc::mismatch, cat(what, " is ", size, " bytes, expected ", want ? want : sizeof(SegmentHeader)));
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return Status(Errc::system, cat("cannot map ", what, ": ", errno_text(errno)));
  Segment s;
  s.base_ = static_cast<std::byte*>(p);
  s.size_ = size;
  s.dev_ = st.st_dev;
  s.ino_ = st.st_ino;
  s.what_ = what;
  const SegmentHeader& hdr = s.header();
  if (hdr.magic != kSegmentMagic) return mismatch(what, "magic", hdr.magic, kSegmentMagic);
  if (hdr.version != kSegmentVersion) return mismatch(what, "version", hdr.version, kSegmentVersion);
  if (hdr.ready.load(std::memory_order_acquire) != 1) {  // pairs with the release in create()
    return Status(Errc::mismatch, cat(what, " is not initialised"));
  }
  const SegmentInfo& h = hdr.info;
  if (h.kind != expect.kind)
    return mismatch(what, "kind", static_cast<std::uint32_t>(h.kind), static_cast<std::uint32_t>(expect.kind));
  if (h.job_id != expect.job_id) return mismatch(what, "job id", h.job_id, expect.job_id);
  if (h.team_id != expect.team_id) return mismatch(what, "team id", h.team_id, expect.team_id);
  if (h.total_size != size) return mismatch(what, "total size", h.total_size, size);
  if (h.members != expect.members) return mismatch(what, "member count", h.members, expect.members);
  if (h.domain != expect.domain) return mismatch(what, "domain", h.domain, expect.domain);
  for (int i = 0; i < 4; ++i) {
    if (h.params[i] != expect.params[i]) return mismatch(what, "layout parameter", h.params[i], expect.params[i]);
  }
  return s;
}

Status Segment::reserve(std::size_t offset, std::size_t len) const {
  if (fd_ < 0) return Status(Errc::internal, cat(what_, ": reserve without the creator's descriptor"));
  if (offset > size_ || len > size_ - offset) out_of_bounds(offset, len);
  // fallocate, not posix_fallocate: glibc's fallback writes every page when
  // the file system has no fallocate, which would hide a full tmpfs.
  if (::fallocate(fd_, 0, static_cast<off_t>(offset), static_cast<off_t>(len)) == 0) return {};
  const int e = errno;
  if (e == EOPNOTSUPP) return {};  // a file system that cannot reserve: as create() tolerates it
  if (e == ENOSPC) {
    auto free_bytes = shm_free_bytes(dir_);
    return Status(Errc::no_space, cat("no room for ", format_bytes(len), " in ", what_, ": the file system has ",
                                      free_bytes.ok() ? format_bytes(*free_bytes) : std::string("unknown"), " free"));
  }
  return Status(Errc::system, cat("cannot reserve ", format_bytes(len), " in ", what_, ": ", errno_text(e)));
}

void Segment::give_back(std::size_t offset, std::size_t len) const {
  if (fd_ < 0 || len == 0) return;
  if (offset > size_ || len > size_ - offset) out_of_bounds(offset, len);
  if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                  static_cast<off_t>(len)) != 0) {
    log(LogLevel::debug, what_, ": cannot give back ", format_bytes(len), ": ", errno_text(errno));
  }
}

SegmentHandle Segment::handle() const {
  SegmentHandle h;
  if (fd_ < 0) return h;
  h.pid = ::getpid();
  h.fd = fd_;
  h.dev = dev_;
  h.ino = ino_;
  h.size = size_;
  return h;
}

void Segment::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Segment::Segment(Segment&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      fd_(std::exchange(o.fd_, -1)),
      dev_(o.dev_),
      ino_(o.ino_),
      what_(std::move(o.what_)),
      dir_(std::move(o.dir_)) {}

Segment& Segment::operator=(Segment&& o) noexcept {
  if (this != &o) {
    release();
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    fd_ = std::exchange(o.fd_, -1);
    dev_ = o.dev_;
    ino_ = o.ino_;
    what_ = std::move(o.what_);
    dir_ = std::move(o.dir_);
  }
  return *this;
}

Segment::~Segment() { release(); }

void Segment::release() {
  close_fd();
  if (base_) ::munmap(base_, size_);
  base_ = nullptr;
}

void Segment::out_of_bounds(std::size_t offset, std::size_t len) const {
  log(LogLevel::error, what_, ": access of ", len, " bytes at ", offset, " outside its ", size_, " bytes");
  std::abort();
}

}  // namespace osmp
