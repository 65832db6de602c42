#include "shm/peers.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <csignal>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace osmp {
namespace {

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) return static_cast<int>(fd);
  if (errno == ESRCH) return -3;  // already gone
#endif
  return -1;
}

bool alive_by_proc(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  // A zombie still answers kill(0); its state in /proc/PID/stat is 'Z'.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // cannot tell: assume alive
  auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'Z';
}

}  // namespace

pid_t parent_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return 0;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  auto close = line.rfind(')');
  if (close == std::string::npos || close + 4 >= line.size()) return 0;
  return static_cast<pid_t>(std::atol(line.c_str() + close + 4));
}

bool descends_from(pid_t ancestor) {
  if (ancestor <= 0) return false;
  pid_t p = ::getpid();
  for (int depth = 0; p > 1 && depth < 64; ++depth, p = parent_of(p))
    if (p == ancestor) return true;
  return false;
}

PeerWatch::PeerWatch(PeerWatch&& o) noexcept : pids_(std::move(o.pids_)), fds_(std::move(o.fds_)) { o.fds_.clear(); }

PeerWatch& PeerWatch::operator=(PeerWatch&& o) noexcept {
  if (this != &o) {
    close_all();
    pids_ = std::move(o.pids_);
    fds_ = std::move(o.fds_);
    o.fds_.clear();
  }
  return *this;
}

PeerWatch::~PeerWatch() { close_all(); }

void PeerWatch::close_all() {
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
  fds_.clear();
}

bool PeerWatch::alive(int rank) {
  if (rank < 0 || rank >= size()) return true;
  int& fd = fds_[static_cast<std::size_t>(rank)];
  pid_t pid = pids_[static_cast<std::size_t>(rank)];
  if (pid <= 0) return true;  // unknown: nothing to watch
  if (fd == -2) fd = open_pidfd(pid);
  if (fd == -3) return false;
  if (fd == -1) return alive_by_proc(pid);
  pollfd p{fd, POLLIN, 0};
  int rc = ::poll(&p, 1, 0);
  return !(rc > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)));
}

int PeerWatch::first_dead() {
  for (int r = 0; r < size(); ++r)
    if (!alive(r)) return r;
  return -1;
}

}  // namespace osmp
