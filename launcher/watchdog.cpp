#include "launcher/watchdog.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "core/clock.hpp"

namespace osmp {
namespace {

bool any_alive(const std::vector<pid_t>& pids) {
  for (pid_t p : pids)
    if (p > 0 && ::kill(p, 0) == 0) return true;
  return false;
}

void wait_gone(const std::vector<pid_t>& pids, double seconds) {
  std::uint64_t end = now_ns() + static_cast<std::uint64_t>(seconds * 1e9);
  while (any_alive(pids) && now_ns() < end) ::usleep(20'000);
}

[[noreturn]] void watch(int fd, const Segment& job, const ControlLayout& layout, std::uint64_t job_id,
                        int ranks, double grace_s) {
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::signal(s, SIG_IGN);
  ::prctl(PR_SET_NAME, "osmprun-watch");
  char c = 0;
  ssize_t n;
  do {
    n = ::read(fd, &c, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1) ::_exit(0);  // the launcher finished normally
  // EOF: the launcher died without saying goodbye.
  raise_abort(job.at<ControlBlock>(layout.control)->abort, AbortCode::launcher, -1);
  std::vector<pid_t> pids;
  for (int r = 0; r < ranks; ++r) {
    pids.push_back(static_cast<pid_t>(
        job.at<RankLine>(layout.rank_line(r))->pid.load(std::memory_order_relaxed)));
  }
  wait_gone(pids, grace_s);
  for (pid_t p : pids)
    if (p > 0) ::kill(p, SIGTERM);
  wait_gone(pids, 1.0);
  for (pid_t p : pids)
    if (p > 0) ::kill(p, SIGKILL);
  wait_gone(pids, 5.0);
  sweep_segments(shm_dir(), job_prefix(job_id));
  ::_exit(0);
}

}  // namespace

Result<Watchdog> Watchdog::start(const Segment& job, const ControlLayout& layout, std::uint64_t job_id,
                                 int ranks, double grace_s) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return Status(Errc::system, cat("cannot create the watchdog pipe: ", std::strerror(errno)));
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Status(Errc::system, cat("cannot fork the watchdog: ", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[1]);
    watch(fds[0], job, layout, job_id, ranks, grace_s);
  }
  ::close(fds[0]);
  Watchdog w;
  w.pid_ = pid;
  w.fd_ = fds[1];
  return w;
}

Watchdog::Watchdog(Watchdog&& o) noexcept : pid_(std::exchange(o.pid_, -1)), fd_(std::exchange(o.fd_, -1)) {}

Watchdog& Watchdog::operator=(Watchdog&& o) noexcept {
  if (this != &o) {
    release();
    pid_ = std::exchange(o.pid_, -1);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

Watchdog::~Watchdog() { release(); }

void Watchdog::release() {
  if (fd_ >= 0) {
    char c = 'x';
    ssize_t rc = ::write(fd_, &c, 1);
    (void)rc;
    ::close(fd_);
    fd_ = -1;
  }
  if (pid_ > 0) {
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

}  // namespace osmp
