// Liveness of the processes of a team, by pidfd (a pidfd becomes readable when
// its process exits, zombie or not). Falls back to kill(pid, 0) plus the
// process state in /proc where pidfd_open is unavailable.
#pragma once

#include <sys/types.h>

#include <vector>

#include "core/status.hpp"

namespace osmp {

// The parent of `pid` (/proc/PID/stat), or 0 if it cannot be read.
pid_t parent_of(pid_t pid);
// Whether this process is `ancestor` or a descendant of it (a launcher may
// start a wrapper that starts the program).
bool descends_from(pid_t ancestor);

class PeerWatch {
 public:
  PeerWatch() = default;
  explicit PeerWatch(std::vector<pid_t> pids) : pids_(std::move(pids)), fds_(pids_.size(), -2) {}
  PeerWatch(PeerWatch&&) noexcept;
  PeerWatch& operator=(PeerWatch&&) noexcept;
  PeerWatch(const PeerWatch&) = delete;
  PeerWatch& operator=(const PeerWatch&) = delete;
  ~PeerWatch();

  int size() const { return static_cast<int>(pids_.size()); }
  pid_t pid(int rank) const { return pids_.at(static_cast<std::size_t>(rank)); }
  // False once the process of `rank` has exited (or was never there).
  bool alive(int rank);
  // The first dead rank, or -1.
  int first_dead();

 private:
  void close_all();
  std::vector<pid_t> pids_;
  std::vector<int> fds_;  // -2: not opened yet, -1: pidfd unavailable
};

}  // namespace osmp
