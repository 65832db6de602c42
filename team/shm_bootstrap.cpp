#include "team/shm_bootstrap.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "core/clock.hpp"
#include "core/env.hpp"
#include "core/killpoint.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"

namespace osmp {
namespace {

constexpr std::uint64_t kLatecomerGraceNs = 2'000'000'000ULL;
// Connections the started marker queues (it never accepts): each process
// that comes later takes one, until the job ends.
constexpr int kStartedBacklog = 64;

std::uint64_t bootstrap_timeout_ns() {
  auto s = env_int("OSMP_BOOTSTRAP_TIMEOUT", 60, 1, 86400);
  return static_cast<std::uint64_t>(s.ok() ? *s : 60) * 1'000'000'000ULL;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
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
  OSMP_ASSIGN_OR_RETURN(long long fd, env_int("OSMP_JOB_FD", -1, 0, 1 << 30));
  e.size = static_cast<int>(size);
  e.rank = static_cast<int>(rank);
  e.job_fd = static_cast<int>(fd);
  return e;
}

Result<ControlLayout> job_layout(int ranks) { return make_control_layout({ranks, kJobItemBytes, kJobBcastBytes}); }

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
  b->expect_ = job_info(env.job_id, env.size);
  b->expect_.total_size = b->layout_.total;
  const std::uint64_t deadline = now_ns() + b->timeout_ns_;
  if (env.job_fd >= 0) {
    OSMP_RETURN_IF_ERROR(b->from_launcher());
  } else if (env.rank == 0) {
    OSMP_RETURN_IF_ERROR(b->create_and_serve());
  } else {
    OSMP_RETURN_IF_ERROR(b->find_rank0(deadline));
  }
  OSMP_RETURN_IF_ERROR(b->claim());
  kill_point(KillPoint::bootstrap_claimed, env.rank);
  if (Status st = b->await_claims(deadline); !st.ok()) {
    b->tell_latecomers(deadline);
    return st;
  }
  kill_point(KillPoint::bootstrap_attached, env.rank);
  return b;
}

// osmprun's descriptor; it must have started this process (or an ancestor of
// it) as this rank.
Status ShmBootstrap::from_launcher() {
  OSMP_ASSIGN_OR_RETURN(seg_, Segment::adopt(env_.job_fd, expect_));
  const auto launched = static_cast<pid_t>(line(rank()).launched.load(std::memory_order_relaxed));
  if (!descends_from(launched)) {
    return Status(Errc::invalid_argument, cat("rank ", rank(), " of job ", hex(env_.job_id), ": this process (pid ",
                                              ::getpid(), ") is not the one osmprun started as rank ", rank(), " (pid ",
                                              launched, ") nor a descendant of it; refusing to join"));
  }
  return {};
}

// Rank 0 without osmprun: the segment, and the rendezvous that serves it.
Status ShmBootstrap::create_and_serve() {
  // Another rank 0 of this job id already serving means the id is taken.
  for (const auto& name : abstract_sockets(rendezvous_prefix(env_.job_id))) {
    auto s = connect_abstract(name);
    if (!s.ok()) continue;
    auto who = peer_cred(*s);
    ::close(*s);
    if (who.ok() && who->uid == ::geteuid()) {
      return Status(Errc::invalid_argument,
                    cat("rank 0 of job ", hex(env_.job_id), ": pid ", who->pid,
                        " is already rank 0 of this job (two processes were started with the same "
                        "OSMP_JOB_ID and OSMP_RANK=0); refusing to join"));
    }
  }
  OSMP_ASSIGN_OR_RETURN(seg_, Segment::create(shm_dir(), layout_.total, expect_));
  OSMP_ASSIGN_OR_RETURN(rendezvous_, Rendezvous::listen(env_.job_id, std::max(16, size())));
  return {};
}

Status ShmBootstrap::find_rank0(std::uint64_t deadline) {
  const std::string prefix = rendezvous_prefix(env_.job_id), started = started_prefix(env_.job_id);
  std::string refused;
  for (int pause_us = 200;; pause_us = std::min(pause_us * 2, 20'000)) {
    std::vector<pid_t> ours;
    for (const auto& name : abstract_sockets(prefix)) {
      auto s = connect_abstract(name);
      if (!s.ok()) continue;
      auto who = peer_cred(*s);
      if (!who.ok() || who->uid != ::geteuid()) {  // another user's socket: never trusted
        refused = cat(" (ignored @", name, " of uid ", who.ok() ? static_cast<long>(who->uid) : -1L, ")");
        ::close(*s);
        continue;
      }
      if (name.rfind(started, 0) == 0) {  // the job's marker (mark_started): every rank has joined
        ::close(*s);
        return Status(Errc::invalid_argument,
                      cat("rank ", rank(), " of job ", hex(env_.job_id), ": the job has already started (all its ",
                          size(), " ranks joined; its rank 0 is pid ", who->pid, "), so rank ", rank(),
                          " is taken (two processes were started with the same OSMP_JOB_ID and OSMP_RANK); this one "
                          "(pid ",
                          ::getpid(), ") does not join"));
      }
      ours.push_back(who->pid);
      if (ours.size() > 1) {
        ::close(*s);
        return Status(Errc::invalid_argument,
                      cat("rank ", rank(), " of job ", hex(env_.job_id), ": pids ", ours[0], " and ", ours[1],
                          " both serve as rank 0 (two processes were started with the same OSMP_JOB_ID and "
                          "OSMP_RANK=0)"));
      }
      if (seg_.mapped()) {
        ::close(*s);
        continue;
      }
      JobGreeting g{};
      auto fd = recv_fd(*s, &g, sizeof g, 1000);
      ::close(*s);
      if (!fd.ok()) continue;
      if (g.job_id != env_.job_id || g.size != static_cast<std::uint64_t>(size())) {
        ::close(*fd);
        return Status(Errc::mismatch,
                      cat("rank ", rank(), ": rank 0 (pid ", ours[0], ") runs job ", hex(g.job_id), " of ", g.size,
                          " ranks, this process expected job ", hex(env_.job_id), " of ", size()));
      }
      OSMP_ASSIGN_OR_RETURN(seg_, Segment::adopt(*fd, expect_));
    }
    if (seg_.mapped()) return {};
    if (now_ns() > deadline) {
      return Status(Errc::timeout, cat("rank ", rank(), ": rank 0 of job ", hex(env_.job_id), " did not appear within ",
                                       timeout_ns_ / 1'000'000'000ULL, " s (OSMP_BOOTSTRAP_TIMEOUT)", refused));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
  }
}

Status ShmBootstrap::claim() {
  std::uint64_t none = 0;
  const auto me = static_cast<std::uint64_t>(::getpid());
  // acq_rel: a later claimant's failed exchange acquires my pid, and the
  // others' await_claims() read it with acquire.
  if (!line(rank()).pid.compare_exchange_strong(none, me, std::memory_order_acq_rel, std::memory_order_acquire)) {
    return Status(Errc::invalid_argument,
                  cat("rank ", rank(), " of job ", hex(env_.job_id), " is already taken by pid ", none,
                      " (two processes were started with the same OSMP_JOB_ID and OSMP_RANK); this one "
                      "(pid ",
                      me, ") does not join"));
  }
  return {};
}

Status ShmBootstrap::await_claims(std::uint64_t deadline) {
  std::vector<pid_t> pids(static_cast<std::size_t>(size()), 0);
  const JobGreeting greeting{env_.job_id, static_cast<std::uint64_t>(size())};
  PeerWatch claimed;
  int known = -1;
  for (int pause_us = 50;; pause_us = std::min(pause_us * 2, 5'000)) {
    std::vector<int> missing;
    for (int r = 0; r < size(); ++r) {
      auto& p = pids[static_cast<std::size_t>(r)];
      if (!p) p = static_cast<pid_t>(line(r).pid.load(std::memory_order_acquire));  // pairs with claim()
      if (!p) missing.push_back(r);
    }
    if (missing.empty()) break;
    auto absent = [&] {
      std::string who;
      for (std::size_t i = 0; i < missing.size() && i < 8; ++i) who += cat(i ? ", " : "", missing[i]);
      return cat("rank", missing.size() > 1 ? "s " : " ", who, missing.size() > 8 ? ", ..." : "", " never joined job ",
                 hex(env_.job_id));
    };
    if (const int now_known = size() - static_cast<int>(missing.size()); now_known != known) {
      claimed = PeerWatch(pids);  // pidfds of the ranks claimed so far
      known = now_known;
    }
    const int dead = claimed.first_dead();
    // The abort word after the death: a rank that failed because another died
    // first says so there before it exits.
    if (std::uint64_t w = control()->abort.load(std::memory_order_acquire)) {
      return Status(abort_errc(w), cat("bootstrap: ", describe_abort(w)));
    }
    if (dead >= 0) {
      raise_abort(control()->abort, AbortCode::peer_dead, dead);
      return Status(Errc::peer_dead, cat("bootstrap: rank ", dead, " (pid ", pids[static_cast<std::size_t>(dead)],
                                         ") exited while the job was starting (", absent(), ")"));
    }
    if (now_ns() > deadline) {
      return Status(Errc::timeout, cat("rank ", rank(), ": ", absent(), " (waited ", timeout_ns_ / 1'000'000'000ULL,
                                       " s, OSMP_BOOTSTRAP_TIMEOUT)"));
    }
    if (rendezvous_.open()) {
      rendezvous_.serve(seg_.fd(), &greeting, sizeof greeting, pause_us / 1000 + 1);
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
    }
  }
  // Everyone has the segment: nothing may reach it any more.
  rendezvous_.close();
  seg_.close_fd();
  mark_started();
  peers_ = PeerWatch(std::move(pids));
  waiter_.watch(AbortWords{nullptr, &control()->abort}, &peers_);
  return {};
}

// Rank 0, once every rank has joined: the marker that refuses a process
// coming later with this job's id at once (shm/rendezvous.hpp). Without it
// (a socket that cannot be made) such a process waits for the bootstrap
// timeout instead, as it would have.
void ShmBootstrap::mark_started() {
  if (rank() != 0) return;
  auto marker = Rendezvous::listen(env_.job_id, kStartedBacklog, true);
  if (!marker.ok()) {
    log(LogLevel::debug, "bootstrap: no started marker: ", marker.status().message());
    return;
  }
  started_ = std::move(*marker);
}

// Rank 0 whose job failed while starting: ranks that have not connected yet
// would only time out. For a little while they still get the segment, whose
// abort word tells them why (kLatecomerGrace, within the bootstrap timeout).
void ShmBootstrap::tell_latecomers(std::uint64_t deadline) {
  // Only a cause in the abort word (a rank died) is worth passing on.
  if (!rendezvous_.open() || !control()->abort.load(std::memory_order_acquire)) return;
  const JobGreeting greeting{env_.job_id, static_cast<std::uint64_t>(size())};
  const std::uint64_t end = std::min(deadline, now_ns() + kLatecomerGraceNs);
  for (bool all = false; !all && now_ns() < end;) {
    rendezvous_.serve(seg_.fd(), &greeting, sizeof greeting, 10);
    all = true;
    for (int r = 0; r < size(); ++r) all = all && line(r).pid.load(std::memory_order_acquire) != 0;
  }
  rendezvous_.close();
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
    case WaitStatus::aborted: {
      const std::uint64_t w = control()->abort.load(std::memory_order_acquire);
      return Status(abort_errc(w), cat("bootstrap: ", describe_abort(w)));
    }
    case WaitStatus::peer_dead:
      raise_abort(control()->abort, AbortCode::peer_dead, rank);  // the others hear it from the first to see it
      return Status(Errc::peer_dead, cat("bootstrap: rank ", rank, " died"));
    case WaitStatus::stale:  // the bootstrap's waiter watches no calls
    case WaitStatus::timeout:
      return Status(Errc::timeout, cat("bootstrap: rank ", this->rank(), " waited ", timeout_ns_ / 1'000'000'000ULL,
                                       " s for rank ", rank, " at step ", step, " (OSMP_BOOTSTRAP_TIMEOUT)"));
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
