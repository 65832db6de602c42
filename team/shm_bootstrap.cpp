#include "team/shm_bootstrap.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <thread>

#include "core/clock.hpp"
#include "core/env.hpp"
#include "core/strings.hpp"

namespace osmp {
namespace {

std::uint64_t bootstrap_timeout_ns() {
  auto s = env_int("OSMP_BOOTSTRAP_TIMEOUT", 60, 1, 86400);
  return static_cast<std::uint64_t>(s.ok() ? *s : 60) * 1'000'000'000ULL;
}

int online_cpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

bool JobEnv::present() { return env_get("OSMP_JOB_ID").has_value(); }

Result<JobEnv> JobEnv::from_env() {
  JobEnv e;
  auto id = env_get("OSMP_JOB_ID");
  if (!id) return Status(Errc::not_found, "OSMP_JOB_ID is not set (start the program with osmprun)");
  char* end = nullptr;
  errno = 0;
  e.job_id = std::strtoull(id->c_str(), &end, 16);
  if (id->empty() || *end != '\0' || errno != 0 || e.job_id == 0) {
    return Status(Errc::invalid_argument, cat("OSMP_JOB_ID='", *id, "' is not a non-zero hex number"));
  }
  OSMP_ASSIGN_OR_RETURN(long long size, env_int("OSMP_SIZE", 0, 1, 1 << 20));
  if (size == 0) return Status(Errc::not_found, "OSMP_SIZE is not set (start the program with osmprun)");
  OSMP_ASSIGN_OR_RETURN(long long rank, env_int("OSMP_RANK", -1, 0, size - 1));
  if (rank < 0) return Status(Errc::not_found, "OSMP_RANK is not set (start the program with osmprun)");
  e.size = static_cast<int>(size);
  e.rank = static_cast<int>(rank);
  return e;
}

Result<ControlLayout> job_layout(int ranks) {
  return make_control_layout({ranks, kJobItemBytes, kJobBcastBytes});
}

SegmentInfo job_info(std::uint64_t job_id, int ranks) {
  SegmentInfo h;
  h.kind = SegmentKind::job;
  h.job_id = job_id;
  h.members = static_cast<std::uint32_t>(ranks);
  h.params[0] = kJobItemBytes;
  h.params[1] = kJobBcastBytes;
  return h;
}

Result<std::unique_ptr<ShmBootstrap>> ShmBootstrap::connect(const JobEnv& env) {
  std::unique_ptr<ShmBootstrap> b(new ShmBootstrap());
  b->env_ = env;
  b->timeout_ns_ = bootstrap_timeout_ns();
  b->waiter_ = Waiter(WaitPolicy::automatic, env.size > online_cpus());
  OSMP_ASSIGN_OR_RETURN(b->layout_, job_layout(env.size));
  const std::string dir = shm_dir();
  const std::string name = segment_name(env.job_id, "job");
  SegmentInfo expect = job_info(env.job_id, env.size);
  expect.total_size = b->layout_.total;

  const std::uint64_t deadline = now_ns() + b->timeout_ns_;
  for (bool created = false;;) {
    auto seg = Segment::attach(dir, name, expect);
    if (seg.ok()) {
      b->seg_ = std::move(seg).value();
      break;
    }
    if (env.rank == 0 && !created && seg.status().code() == Errc::not_found) {
      // No launcher made it: rank 0 does. EEXIST means another rank or a launcher won.
      auto mine = Segment::create(dir, name, b->layout_.total, expect);
      if (mine.ok()) {
        b->seg_ = std::move(mine).value();
        break;
      }
      if (mine.status().code() != Errc::mismatch) return mine.status();
      created = true;
    }
    if (now_ns() > deadline) {
      return Status(Errc::timeout, cat("rank ", env.rank, ": job segment ", dir, "/", name,
                                       " did not appear in time: ", seg.status().message()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  b->line(env.rank).pid.store(static_cast<std::uint64_t>(::getpid()), std::memory_order_relaxed);
  b->waiter_.watch(AbortWords{nullptr, &b->control()->abort}, nullptr);
  // Once everyone is attached the name can go: a crash from now on leaves nothing.
  OSMP_RETURN_IF_ERROR(b->barrier());
  if (env.rank == 0) {
    b->seg_.adopt_name();
    OSMP_RETURN_IF_ERROR(b->seg_.unlink());
  }
  return b;
}

Result<ShmBootstrap*> ShmBootstrap::instance() {
  static std::mutex m;
  static std::unique_ptr<ShmBootstrap> inst;
  std::lock_guard lock(m);
  if (!inst) {
    OSMP_ASSIGN_OR_RETURN(JobEnv env, JobEnv::from_env());
    OSMP_ASSIGN_OR_RETURN(inst, connect(env));
  }
  return inst.get();
}

Status ShmBootstrap::failure(WaitStatus ws, int rank, std::uint64_t step) {
  switch (ws) {
    case WaitStatus::ok: return {};
    case WaitStatus::aborted:
      return Status(Errc::aborted, cat("bootstrap: ", describe_abort(control()->abort.load(std::memory_order_acquire))));
    case WaitStatus::peer_dead: return Status(Errc::peer_dead, cat("bootstrap: rank ", rank, " died"));
    case WaitStatus::timeout:
      return Status(Errc::timeout, cat("bootstrap: rank ", this->rank(), " waited ",
                                       timeout_ns_ / 1'000'000'000ULL, " s for rank ", rank,
                                       " at step ", step, " (OSMP_BOOTSTRAP_TIMEOUT)"));
  }
  return {};
}

Status ShmBootstrap::wait_one(const Flag& f, std::uint64_t step, int rank) {
  return failure(waiter_.wait(f, step, rank, timeout_ns_), rank, step);
}

Status ShmBootstrap::wait_all(bool done_flags, std::uint64_t step) {
  for (int r = 0; r < size(); ++r) {
    OSMP_RETURN_IF_ERROR(wait_one(done_flags ? line(r).done : line(r).arrive, step, r));
  }
  return {};
}

Status ShmBootstrap::allgather(const void* in, std::size_t len, void* out) {
  const std::size_t item = layout_.params.item_bytes;
  const std::size_t chunks = std::max<std::size_t>(1, (len + item - 1) / item);
  for (std::size_t k = 0; k < chunks; ++k) {
    const std::uint64_t step = ++step_;
    const std::size_t off = k * item;
    const std::size_t n = len ? std::min(item, len - off) : 0;
    OSMP_RETURN_IF_ERROR(wait_all(true, step - 1));  // my item is free once all read the last step
    if (n) std::memcpy(seg_.at<std::byte>(layout_.item(rank()), n), static_cast<const std::byte*>(in) + off, n);
    publish(line(rank()).arrive, step, waiter_.may_sleep());
    OSMP_RETURN_IF_ERROR(wait_all(false, step));
    for (int r = 0; n && r < size(); ++r) {
      std::memcpy(static_cast<std::byte*>(out) + static_cast<std::size_t>(r) * len + off,
                  seg_.at<std::byte>(layout_.item(r), n), n);
    }
    publish(line(rank()).done, step, waiter_.may_sleep());
  }
  return {};
}

Status ShmBootstrap::broadcast(void* buf, std::size_t len, int root) {
  if (root < 0 || root >= size()) return Status(Errc::invalid_argument, cat("broadcast root ", root));
  const std::size_t area = layout_.params.bcast_bytes;
  const std::size_t chunks = std::max<std::size_t>(1, (len + area - 1) / area);
  for (std::size_t k = 0; k < chunks; ++k) {
    const std::uint64_t step = ++step_;
    const std::size_t off = k * area;
    const std::size_t n = len ? std::min(area, len - off) : 0;
    std::byte* shared = seg_.at<std::byte>(layout_.bcast, std::max<std::size_t>(n, 1));
    if (rank() == root) {
      OSMP_RETURN_IF_ERROR(wait_all(true, step - 1));
      if (n) std::memcpy(shared, static_cast<const std::byte*>(buf) + off, n);
      publish(line(root).arrive, step, waiter_.may_sleep());
    } else {
      OSMP_RETURN_IF_ERROR(wait_one(line(root).arrive, step, root));
      if (n) std::memcpy(static_cast<std::byte*>(buf) + off, shared, n);
    }
    publish(line(rank()).done, step, waiter_.may_sleep());
  }
  return {};
}

}  // namespace osmp
