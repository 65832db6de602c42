// A job whose ranks are threads of one process: the bootstrap for tests
// (UCC's ThreadAllgather idea). Segments are still real shared memory.
#pragma once

#include <condition_variable>
#include <mutex>

#include "team/bootstrap.hpp"

namespace osmp {

class ThreadJob {
 public:
  explicit ThreadJob(int size, std::uint64_t job_id = 0);
  int size() const { return size_; }
  std::uint64_t job_id() const { return job_id_; }

 private:
  friend class ThreadBootstrap;
  int size_;
  std::uint64_t job_id_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::uint64_t generation_ = 0;  // completed exchanges
  int arrived_ = 0;
  std::vector<std::vector<std::byte>> items_;   // this exchange's contributions
  std::vector<std::vector<std::byte>> result_;  // the last completed exchange
};

class ThreadBootstrap final : public Bootstrap {
 public:
  ThreadBootstrap(ThreadJob& job, int rank) : job_(job), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return job_.size(); }
  std::uint64_t job_id() const override { return job_.job_id(); }
  Status allgather(const void* in, std::size_t len, void* out) override;
  Status broadcast(void* buf, std::size_t len, int root) override;

 private:
  Status exchange(const void* in, std::size_t len, std::vector<std::vector<std::byte>>& all);
  ThreadJob& job_;
  int rank_;
};

}  // namespace osmp
