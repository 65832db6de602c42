// Bootstrap over the job segment, for processes started by osmprun (or by any
// launcher that sets OSMP_JOB_ID, OSMP_RANK and OSMP_SIZE).
//
// The job segment has no name (shm/segment.hpp). How a rank gets it:
// - osmprun creates it before starting the ranks and hands each one a
//   descriptor (OSMP_JOB_FD); it also says which process it started as each
//   rank (RankLine::launched), so a process that is neither that one nor a
//   descendant of it cannot claim the rank.
// - With another launcher, rank 0 creates it and serves it through an
//   abstract unix socket (shm/rendezvous.hpp) to processes of its own user
//   until every rank has claimed its line; the others find that socket. The
//   first process to claim a rank has it: a second one gets an error naming
//   the first and does not join. OSMP_BOOTSTRAP_TIMEOUT seconds (default 60)
//   bound the wait for the others.
// Every rank claims its line (RankLine::pid); from then on a wait for a rank
// that died is an error naming it, not a timeout.
#pragma once

#include <memory>

#include "shm/layout.hpp"
#include "shm/rendezvous.hpp"
#include "shm/segment.hpp"
#include "shm/wait.hpp"
#include "team/bootstrap.hpp"

namespace osmp {

struct JobEnv {
  std::uint64_t job_id = 0;
  int rank = -1;
  int size = 0;
  int job_fd = -1;                   // OSMP_JOB_FD: the job segment, from osmprun
  static Result<JobEnv> from_env();  // OSMP_JOB_ID (hex), OSMP_RANK, OSMP_SIZE, OSMP_JOB_FD
  static bool present();             // is OSMP_JOB_ID set?
};

// Exchange areas of the job segment: an item per rank for allgather, chunked
// for larger data, and a broadcast area.
inline constexpr std::size_t kJobItemBytes = 4096;
inline constexpr std::size_t kJobBcastBytes = 256 * 1024;

// What rank 0's rendezvous sends along with the job segment's descriptor.
struct JobGreeting {
  std::uint64_t job_id;
  std::uint64_t size;
};

// The job segment's layout for `ranks` ranks, and its header.
Result<ControlLayout> job_layout(int ranks);
SegmentInfo job_info(std::uint64_t job_id, int ranks);

class ShmBootstrap final : public Bootstrap {
 public:
  // Gets the job segment (see above), claims this rank and waits until every
  // rank has claimed its own.
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
  Status from_launcher();
  Status create_and_serve();
  Status find_rank0(std::uint64_t deadline);
  Status claim();
  Status await_claims(std::uint64_t deadline);
  void tell_latecomers(std::uint64_t deadline);
  void mark_started();
  Status wait_all(bool done_flags, std::uint64_t step);
  Status wait_one(const Flag& f, std::uint64_t step, int rank);
  Status failure(WaitStatus ws, int rank, std::uint64_t step);

  JobEnv env_;
  ControlLayout layout_;
  SegmentInfo expect_;
  Segment seg_;
  Rendezvous rendezvous_;  // rank 0 without osmprun, until every rank has claimed
  Rendezvous started_;     // rank 0, once every rank has claimed (mark_started)
  PeerWatch peers_;
  Waiter waiter_;
  std::uint64_t step_ = 0;
  std::uint64_t timeout_ns_ = 0;
};

}  // namespace osmp
