#include "team/thread_bootstrap.hpp"

#include <cstring>

#include "core/random.hpp"

namespace osmp {

ThreadJob::ThreadJob(int size, std::uint64_t job_id)
    : size_(size), job_id_(job_id ? job_id : random_id()), items_(static_cast<std::size_t>(size)) {}

Status ThreadBootstrap::exchange(const void* in, std::size_t len, std::vector<std::vector<std::byte>>& all) {
  std::unique_lock lock(job_.mutex_);
  auto& mine = job_.items_[static_cast<std::size_t>(rank_)];
  mine.assign(static_cast<const std::byte*>(in), static_cast<const std::byte*>(in) + (in ? len : 0));
  std::uint64_t gen = job_.generation_;
  if (++job_.arrived_ == job_.size_) {
    job_.result_ = job_.items_;
    job_.arrived_ = 0;
    ++job_.generation_;
    job_.cv_.notify_all();
  } else if (!job_.cv_.wait_for(lock, std::chrono::seconds(120), [&] { return job_.generation_ != gen; })) {
    return Status(Errc::timeout, cat("thread bootstrap: rank ", rank_, " waited 120 s for the others"));
  }
  // The next exchange cannot complete before we return (it needs us), so
  // result_ still holds ours.
  all = job_.result_;
  return {};
}

Status ThreadBootstrap::allgather(const void* in, std::size_t len, void* out) {
  std::vector<std::vector<std::byte>> all;
  OSMP_RETURN_IF_ERROR(exchange(in, len, all));
  for (std::size_t r = 0; r < all.size() && out; ++r) {
    if (all[r].size() != len) {
      return Status(Errc::mismatch,
                    cat("allgather: rank ", r, " gave ", all[r].size(), " bytes, rank ", rank_, " ", len));
    }
    std::memcpy(static_cast<std::byte*>(out) + r * len, all[r].data(), len);
  }
  return {};
}

Status ThreadBootstrap::broadcast(void* buf, std::size_t len, int root) {
  std::vector<std::vector<std::byte>> all;
  OSMP_RETURN_IF_ERROR(exchange(rank_ == root ? buf : nullptr, len, all));
  const auto& src = all.at(static_cast<std::size_t>(root));
  if (src.size() != len) {
    return Status(Errc::mismatch,
                  cat("broadcast: root ", root, " gave ", src.size(), " bytes, rank ", rank_, " expected ", len));
  }
  if (rank_ != root && len) std::memcpy(buf, src.data(), len);
  return {};
}

}  // namespace osmp
