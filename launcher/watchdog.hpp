// A small process that outlives osmprun if osmprun is killed: it then raises
// the job's abort word and stops the ranks at once (SIGTERM, SIGKILL 0.25 s
// later), so the job ends within half a second of osmprun's death.
//
// osmprun forks it first thing, before it creates anything, and later hands
// it the job segment's descriptor over a unix socket pair; it learns of
// osmprun's death by EOF on that socket. It follows the ranks by pidfd (a
// zombie counts as gone, a reused pid is never signalled), from the pids
// osmprun's children wrote in the job segment before they ran the program.
// There is nothing to sweep: the job's segments have no names.
#pragma once

#include <sys/types.h>

#include "core/status.hpp"
#include "shm/segment.hpp"

namespace osmp {

class Watchdog {
 public:
  static Result<Watchdog> start();
  Watchdog() = default;
  Watchdog(Watchdog&& o) noexcept;
  Watchdog& operator=(Watchdog&& o) noexcept;
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog();

  // Gives the watchdog the job segment (before any rank starts).
  Status watch(const Segment& job, std::uint64_t job_id, int ranks);
  pid_t pid() const { return pid_; }
  // Normal end: tells the watchdog to leave quietly and reaps it.
  void release();

 private:
  pid_t pid_ = -1;
  int sock_ = -1;  // osmprun's end of the socket pair
};

// How long ranks get between SIGTERM and SIGKILL when osmprun is interrupted
// or killed.
inline constexpr double kStopGraceSeconds = 0.25;

}  // namespace osmp
