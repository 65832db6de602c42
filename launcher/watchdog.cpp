#include "launcher/watchdog.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "shm/layout.hpp"
#include "shm/peers.hpp"
#include "shm/rendezvous.hpp"
#include "team/shm_bootstrap.hpp"

namespace osmp {
namespace {

struct Hello {
  std::uint64_t job_id;
  std::uint64_t ranks;
};

// A rank followed by pidfd, or by pid where pidfds are not available.
struct Rank {
  pid_t pid = 0;
  int fd = -1;
};

Rank follow(pid_t pid) {
  Rank r{pid, -1};
#ifdef SYS_pidfd_open
  r.fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (r.fd < 0 && errno == ESRCH) r.pid = 0;  // already gone
#endif
  return r;
}

bool gone(const Rank& r) {
  if (r.pid <= 0) return true;
  if (r.fd >= 0) {
    pollfd p{r.fd, POLLIN, 0};  // readable once the process exited, zombie or not
    return ::poll(&p, 1, 0) > 0;
  }
  PeerWatch w({r.pid});
  return !w.alive(0);
}

void signal_rank(const Rank& r, int sig) {
  if (gone(r)) return;
#ifdef SYS_pidfd_send_signal
  if (r.fd >= 0 && ::syscall(SYS_pidfd_send_signal, r.fd, sig, nullptr, 0) == 0) return;
#endif
  if (r.fd < 0) ::kill(r.pid, sig);
}

bool wait_gone(const std::vector<Rank>& ranks, double seconds) {
  const std::uint64_t end = now_ns() + static_cast<std::uint64_t>(seconds * 1e9);
  for (;;) {
    bool all = true;
    for (const Rank& r : ranks) all = all && gone(r);
    if (all) return true;
    if (now_ns() >= end) return false;
    ::usleep(5'000);
  }
}

void stop_ranks(const Segment& job, const ControlLayout& layout, int ranks) {
  std::vector<Rank> alive;
  for (int r = 0; r < ranks; ++r) {
    auto pid = static_cast<pid_t>(job.at<RankLine>(layout.rank_line(r))->launched.load(std::memory_order_relaxed));
    if (pid > 0) alive.push_back(follow(pid));
  }
  // The ranks got SIGTERM from the kernel already (PR_SET_PDEATHSIG); this
  // one covers a rank whose parent was a wrapper.
  for (const Rank& r : alive) signal_rank(r, SIGTERM);
  if (!wait_gone(alive, kStopGraceSeconds)) {
    for (const Rank& r : alive) signal_rank(r, SIGKILL);
    wait_gone(alive, 2.0);
  }
}

[[noreturn]] void watch_main(int sock) {
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::signal(s, SIG_IGN);
  ::prctl(PR_SET_NAME, "osmprun-watch");
  Hello hello{};
  // Blocks until osmprun hands over the job segment, or dies before it has
  // created one (EOF: then there is nothing to clean up).
  auto fd = recv_fd(sock, &hello, sizeof hello, -1);
  if (!fd.ok() || hello.ranks == 0 || hello.ranks > (1u << 20)) ::_exit(0);
  const int ranks = static_cast<int>(hello.ranks);
  auto layout = job_layout(ranks);
  SegmentInfo expect = job_info(hello.job_id, ranks);
  expect.total_size = layout.ok() ? layout->total : 0;
  auto job = layout.ok() ? Segment::adopt(*fd, expect) : Result<Segment>(layout.status());
  if (!job.ok()) ::_exit(1);
  char c = 0;
  ssize_t n;
  do {
    n = ::read(sock, &c, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1) ::_exit(0);  // osmprun finished normally
  // EOF: osmprun died without saying goodbye.
  raise_abort(job->at<ControlBlock>(layout->control)->abort, AbortCode::launcher, -1);
  stop_ranks(*job, *layout, ranks);
  ::_exit(0);
}

}  // namespace

Result<Watchdog> Watchdog::start() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
    return Status(Errc::system, cat("cannot create the watchdog's socket: ", std::strerror(errno)));
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Status(Errc::system, cat("cannot fork the watchdog: ", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    watch_main(fds[1]);
  }
  ::close(fds[1]);
  Watchdog w;
  w.pid_ = pid;
  w.sock_ = fds[0];
  return w;
}

Status Watchdog::watch(const Segment& job, std::uint64_t job_id, int ranks) {
  Hello hello{job_id, static_cast<std::uint64_t>(ranks)};
  return send_fd(sock_, job.fd(), &hello, sizeof hello);
}

Watchdog::Watchdog(Watchdog&& o) noexcept : pid_(std::exchange(o.pid_, -1)), sock_(std::exchange(o.sock_, -1)) {}

Watchdog& Watchdog::operator=(Watchdog&& o) noexcept {
  if (this != &o) {
    release();
    pid_ = std::exchange(o.pid_, -1);
    sock_ = std::exchange(o.sock_, -1);
  }
  return *this;
}

Watchdog::~Watchdog() { release(); }

void Watchdog::release() {
  if (sock_ >= 0) {
    char c = 'x';
    ssize_t rc = ::send(sock_, &c, 1, MSG_NOSIGNAL);
    (void)rc;
    ::close(sock_);
    sock_ = -1;
  }
  if (pid_ > 0) {
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

}  // namespace osmp
