// A small process that outlives osmprun if osmprun is killed: it then raises
// the job's abort word, stops the ranks (SIGTERM, then SIGKILL after the grace
// period) and removes the job's names from the shm directory. It learns of
// the launcher's death by EOF on a pipe only the launcher can write to.
#pragma once

#include <sys/types.h>

#include "core/status.hpp"
#include "shm/layout.hpp"
#include "shm/segment.hpp"

namespace osmp {

class Watchdog {
 public:
  // Forks the watchdog. The rank pids are read from the job segment's rank
  // lines, which the launcher fills as it starts the ranks.
  static Result<Watchdog> start(const Segment& job, const ControlLayout& layout, std::uint64_t job_id,
                                int ranks, double grace_s);
  Watchdog() = default;
  Watchdog(Watchdog&& o) noexcept;
  Watchdog& operator=(Watchdog&& o) noexcept;
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog();

  pid_t pid() const { return pid_; }
  // Normal end: tells the watchdog to leave quietly and reaps it.
  void release();

 private:
  pid_t pid_ = -1;
  int fd_ = -1;  // write end of the pipe
};

}  // namespace osmp
