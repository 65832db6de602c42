// Bootstrap over the job segment, for processes started by osmprun (or by any
// launcher that sets OSMP_JOB_ID, OSMP_RANK and OSMP_SIZE).
//
// osmprun creates the job segment before starting the ranks and keeps it
// mapped, so that it can raise the job's abort word when a rank dies. When no
// launcher made it, rank 0 creates it (O_EXCL, 0600) and the others wait for
// it to appear (OSMP_BOOTSTRAP_TIMEOUT seconds, default 60). Its name is
// removed once every rank has attached.
#pragma once

#include <memory>

#include "shm/layout.hpp"
#include "shm/segment.hpp"
#include "shm/wait.hpp"
#include "team/bootstrap.hpp"

namespace osmp {

struct JobEnv {
  std::uint64_t job_id = 0;
  int rank = -1;
  int size = 0;
  static Result<JobEnv> from_env();  // OSMP_JOB_ID (hex), OSMP_RANK, OSMP_SIZE
  static bool present();             // is OSMP_JOB_ID set?
};

// Exchange areas of the job segment: an item per rank for allgather, chunked
// for larger data, and a broadcast area.
inline constexpr std::size_t kJobItemBytes = 4096;
inline constexpr std::size_t kJobBcastBytes = 256 * 1024;

// The job segment's layout for `ranks` ranks, and its header.
Result<ControlLayout> job_layout(int ranks);
SegmentInfo job_info(std::uint64_t job_id, int ranks);

class ShmBootstrap final : public Bootstrap {
 public:
  // Attaches to (or, as rank 0 without a launcher, creates) the job segment.
  static Result<std::unique_ptr<ShmBootstrap>> connect(const JobEnv& env);
  // One per process, connected on first use from the environment.
  static Result<ShmBootstrap*> instance();

  int rank() const override { return env_.rank; }
  int size() const override { return env_.size; }
  std::uint64_t job_id() const override { return env_.job_id; }
  Status allgather(const void* in, std::size_t len, void* out) override;
  Status broadcast(void* buf, std::size_t len, int root) override;
  const std::atomic<std::uint64_t>* job_abort() const override { return &control()->abort; }

 private:
  ShmBootstrap() = default;
  ControlBlock* control() const { return seg_.at<ControlBlock>(layout_.control); }
  RankLine& line(int r) const { return *seg_.at<RankLine>(layout_.rank_line(r)); }
  Status wait_all(bool done_flags, std::uint64_t step);
  Status wait_one(const Flag& f, std::uint64_t step, int rank);
  Status failure(WaitStatus ws, int rank, std::uint64_t step);

  JobEnv env_;
  ControlLayout layout_;
  Segment seg_;
  Waiter waiter_;
  std::uint64_t step_ = 0;
  std::uint64_t timeout_ns_ = 0;
};

}  // namespace osmp
