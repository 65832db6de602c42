#include "launcher/launch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "core/clock.hpp"
#include "core/killpoint.hpp"
#include "core/random.hpp"
#include "core/strings.hpp"
#include "launcher/output.hpp"
#include "launcher/watchdog.hpp"
#include "shm/layout.hpp"
#include "shm/segment.hpp"
#include "shm/wait.hpp"
#include "team/shm_bootstrap.hpp"
#include "topology/build.hpp"
#include "topology/topology.hpp"
#include "virtual_hier/split.hpp"

namespace osmp {
namespace {

constexpr int kSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void say(const std::string& line) {
  std::string l = "osmprun: " + line + "\n";
  ssize_t rc = ::write(STDERR_FILENO, l.data(), l.size());
  (void)rc;
}

int allowed_cpus() {
  cpu_set_t set;
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    int s = WTERMSIG(status);
    return cat("was killed by signal ", s, " (", ::strsignal(s), ")");
  }
  return cat("exited with status ", WEXITSTATUS(status));
}

int exit_code_of(int status) { return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status); }

class Launcher {
 public:
  Launcher(LaunchOptions o, const sigset_t& ranks_mask) : o_(std::move(o)), saved_mask_(ranks_mask) {}

  int run() {
    // The order matters: signals are handled (blocked since main() began,
    // read from a signalfd) and the watchdog exists before anything is
    // created, so that whenever
    // osmprun is interrupted or killed, something ends the job.
    kill_point(KillPoint::launcher_started, -1);
    open_signalfd();
    if (Status st = start_watchdog(); !st.ok()) return bad_request(st);
    if (Status st = prepare(); !st.ok()) return bad_request(st);
    kill_point(KillPoint::launcher_prepared, -1);
    if (Status st = create_job(); !st.ok()) return bad_request(st);
    kill_point(KillPoint::launcher_created, -1);
    if (interrupted_before_start()) return exit_code_;
    if (Status st = spawn_all(); !st.ok()) {
      say(st.message());
      stop(SIGKILL);
    }
    kill_point(KillPoint::launcher_spawned, -1);
    monitor();
    finish();
    return exit_code_;
  }

 private:
  int bad_request(const Status& st) {
    say(st.message());
    return 2;
  }

  Status prepare() {
    if (o_.shm_dir) ::setenv("OSMP_SHM_DIR", o_.shm_dir->c_str(), 1);  // the ranks inherit it
    if (o_.wait) OSMP_RETURN_IF_ERROR(parse_wait_policy(*o_.wait).status());
    auto source = o_.topology.empty() ? TopologySource::from_env() : TopologySource::parse(o_.topology);
    auto topo = Topology::load(source);
    if (!topo.ok()) return topo.status();
    topo_ = std::move(topo).value();
    virtual_ = !topo_->is_this_system();
    if (o_.np > allowed_cpus() && !o_.oversubscribe) {
      return Status(Errc::invalid_argument, cat(o_.np, " processes but only ", allowed_cpus(),
                                                " CPUs are allowed here; add --oversubscribe to run them anyway"));
    }
    auto places = place_ranks(topo_->machine(), {o_.np, o_.map_by, o_.binding(), o_.oversubscribe});
    if (!places.ok()) return places.status();
    places_ = std::move(places).value();
    // Check the virtual-hierarchy spec against this machine now, not in every rank.
    std::string vh = o_.vh ? *o_.vh : env_or("OSMP_VH");
    auto spec = parse_spec(vh);
    if (!spec.ok()) return spec.status();
    BuildOptions bo;
    bo.allow_oversubscribe = true;
    return build_tree(topo_->machine(), places_, bo, *spec).status();
  }

  // A signal that came while osmprun prepared: nothing was started.
  bool interrupted_before_start() {
    signalfd_siginfo si;
    while (::read(sigfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
      if (si.ssi_signo == SIGCHLD) continue;
      say(cat("received ", ::strsignal(static_cast<int>(si.ssi_signo)), " before the job started"));
      exit_code_ = 128 + static_cast<int>(si.ssi_signo);
      return true;
    }
    return false;
  }

  // The job segment, unnamed: the watchdog gets it first, then the ranks.
  Status create_job() {
    job_id_ = random_id();
    OSMP_ASSIGN_OR_RETURN(layout_, job_layout(o_.np));
    SegmentInfo info = job_info(job_id_, o_.np);
    OSMP_ASSIGN_OR_RETURN(job_, Segment::create(shm_dir(), layout_.total, info));
    return watchdog_.watch(job_, job_id_, o_.np);
  }

  static std::string env_or(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
  }

  ControlBlock& control() { return *job_.at<ControlBlock>(layout_.control); }
  RankLine& line(int r) { return *job_.at<RankLine>(layout_.rank_line(r)); }

  void open_signalfd() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kSignals) sigaddset(&set, s);
    sigfd_ = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  }

  Status start_watchdog() {
    OSMP_ASSIGN_OR_RETURN(watchdog_, Watchdog::start());
    return {};
  }

  Status spawn_all() {
    if (o_.tag_output) output_.emplace(o_.np);
    for (int r = 0; r < o_.np; ++r) {
      if (output_) output_->prepare(r);
      pid_t pid = ::fork();
      if (pid < 0) return Status(Errc::system, cat("cannot fork rank ", r, ": ", std::strerror(errno)));
      if (pid == 0) exec_rank(r);  // never returns
      pids_[pid] = r;
      if (output_) output_->parent_after_fork(r);
      if (o_.report_bindings) report_binding(r, pid);
    }
    return {};
  }

  [[noreturn]] void exec_rank(int r) {
    ::sigprocmask(SIG_SETMASK, &saved_mask_, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != launcher_pid_) ::_exit(1);  // the launcher is already gone
    // Who osmprun started as rank r: only this process (or one it starts)
    // may claim the rank. Stored before the program runs, so the watchdog
    // can always stop it.
    line(r).launched.store(static_cast<std::uint64_t>(::getpid()), std::memory_order_relaxed);
    // The descriptor survives exec for this child only (the parent's copy
    // stays close-on-exec).
    ::fcntl(job_.fd(), F_SETFD, 0);
    char job[32];
    std::snprintf(job, sizeof job, "%016" PRIx64, job_id_);
    ::setenv("OSMP_JOB_ID", job, 1);
    ::setenv("OSMP_JOB_FD", std::to_string(job_.fd()).c_str(), 1);
    ::setenv("OSMP_RANK", std::to_string(r).c_str(), 1);
    ::setenv("OSMP_SIZE", std::to_string(o_.np).c_str(), 1);
    if (!o_.topology.empty()) ::setenv("OSMP_TOPOLOGY", o_.topology.c_str(), 1);
    if (virtual_) ::setenv("OSMP_PLACE", places_[static_cast<std::size_t>(r)].to_string().c_str(), 1);
    if (o_.vh) ::setenv("OSMP_VH", o_.vh->c_str(), 1);
    if (o_.wait) ::setenv("OSMP_WAIT", o_.wait->c_str(), 1);
    for (const auto& e : o_.env) {
      auto eq = e.find('=');
      if (eq != std::string::npos) ::setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
    }
    if (output_) output_->child_after_fork(r);
    if (!virtual_ && o_.binding() != BindTo::none) {
      cpu_set_t set;
      CPU_ZERO(&set);
      const CpuSet& p = places_[static_cast<std::size_t>(r)];
      for (int c = p.first(); c >= 0 && c < CPU_SETSIZE; c = p.next(c)) CPU_SET(c, &set);
      if (::sched_setaffinity(0, sizeof set, &set) != 0) {
        std::fprintf(stderr, "osmprun: rank %d: cannot bind to PUs %s: %s\n", r, p.to_string().c_str(),
                     std::strerror(errno));
      }
    }
    std::vector<char*> argv;
    for (const auto& a : o_.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "osmprun: rank %d: cannot run '%s': %s\n", r, argv[0], std::strerror(errno));
    ::_exit(127);
  }

  void report_binding(int r, pid_t pid) {
    const CpuSet& p = places_[static_cast<std::size_t>(r)];
    const MachineTree& m = topo_->machine();
    int home = home_node(m, p);
    int node = m.ancestor_of_level(home, level_of(o_.binding()));
    const MachineNode& n = m.nodes[static_cast<std::size_t>(node >= 0 ? node : home)];
    std::string where = cat(n.level, " L#", n.logical_index, " (PUs ", p.to_string(), ")");
    if (r == 0) say(cat("topology: ", topo_->describe()));
    if (virtual_) {
      say(cat("rank ", r, " (pid ", pid, "): virtual place ", where));
    } else if (o_.binding() == BindTo::none) {
      say(cat("rank ", r, " (pid ", pid, "): not bound"));
    } else {
      say(cat("rank ", r, " (pid ", pid, "): bound to ", where));
    }
  }

  // Signals every rank still running.
  void stop(int sig) {
    for (auto& [pid, r] : pids_) ::kill(pid, sig);
  }

  void begin_stopping(AbortCode why, int rank, std::uint64_t now) {
    raise_abort(control().abort, why, rank);
    if (phase_ == Phase::running) {
      phase_ = Phase::grace;
      deadline_ = now + static_cast<std::uint64_t>(o_.grace_s * 1e9);
    }
  }

  void on_child(pid_t pid, int status, std::uint64_t now) {
    auto it = pids_.find(pid);
    if (it == pids_.end()) return;
    int r = it->second;
    pids_.erase(it);
    line(r).launched.store(0, std::memory_order_relaxed);  // the watchdog must not signal a reused pid
    bool failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (failed && !failure_reported_ && phase_ != Phase::terminate && phase_ != Phase::kill) {
      failure_reported_ = true;
      exit_code_ = exit_code_of(status);
      say(cat("rank ", r, " (pid ", pid, ") ", describe_exit(status), "; stopping the job"));
      begin_stopping(WIFSIGNALED(status) ? AbortCode::peer_dead : AbortCode::rank_failed, r, now);
    } else if (failed && exit_code_ == 0) {
      exit_code_ = exit_code_of(status);
    }
  }

  void on_signal(const signalfd_siginfo& si, std::uint64_t now) {
    if (si.ssi_signo == SIGCHLD) return;
    int sig = static_cast<int>(si.ssi_signo);
    if (interrupted_) {  // a second interrupt: no more patience
      stop(SIGKILL);
      phase_ = Phase::kill;
      return;
    }
    interrupted_ = true;
    // Terminal signals (SI_KERNEL) already reached the ranks, who share our
    // process group; only pass on what was sent to osmprun alone.
    if (si.ssi_code != SI_KERNEL) stop(sig);
    if (!failure_reported_) {
      failure_reported_ = true;
      exit_code_ = 128 + sig;
      say(cat("received ", ::strsignal(sig), "; stopping the job"));
    }
    // An interrupted job ends within half a second: the ranks have the
    // signal now and SIGKILL soon after.
    raise_abort(control().abort, AbortCode::launcher, -1);
    phase_ = Phase::terminate;
    deadline_ = now + static_cast<std::uint64_t>(kStopGraceSeconds * 1e9);
  }

  void on_deadline(std::uint64_t now) {
    switch (phase_) {
      case Phase::running:  // the job's --timeout
        say(cat("timeout of ", o_.timeout_s, " s expired; stopping the job"));
        if (!failure_reported_) exit_code_ = 124;
        failure_reported_ = true;
        raise_abort(control().abort, AbortCode::timeout, -1);
        stop(SIGTERM);
        phase_ = Phase::terminate;
        deadline_ = now + static_cast<std::uint64_t>(std::max(o_.grace_s, 1.0) * 1e9);
        break;
      case Phase::grace:
        stop(SIGTERM);
        phase_ = Phase::terminate;
        deadline_ = now + 1'000'000'000ULL;
        break;
      case Phase::terminate:
        stop(SIGKILL);
        phase_ = Phase::kill;
        deadline_ = 0;
        break;
      case Phase::kill: break;
    }
  }

  void reap(std::uint64_t now) {
    // Everything that ended since the last look, killed ranks first: when a
    // rank is killed, the others fail because of it, and it is the one to name.
    std::vector<std::pair<pid_t, int>> ended;
    for (int status = 0;;) {
      pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid <= 0) break;
      if (pid != watchdog_.pid()) ended.emplace_back(pid, status);
    }
    std::stable_sort(ended.begin(), ended.end(),
                     [](const auto& a, const auto& b) { return WIFSIGNALED(a.second) > WIFSIGNALED(b.second); });
    for (const auto& [pid, status] : ended) on_child(pid, status, now);
  }

  void monitor() {
    if (o_.timeout_s > 0) deadline_ = now_ns() + static_cast<std::uint64_t>(o_.timeout_s * 1e9);
    while (!pids_.empty()) {
      std::vector<pollfd> fds{{sigfd_, POLLIN, 0}};
      if (output_) output_->add_poll_fds(fds);
      int timeout_ms = -1;
      std::uint64_t now = now_ns();
      if (deadline_) timeout_ms = deadline_ > now ? static_cast<int>((deadline_ - now) / 1'000'000 + 1) : 0;
      ::poll(fds.data(), fds.size(), timeout_ms);
      now = now_ns();
      signalfd_siginfo si;
      while (::read(sigfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) on_signal(si, now);
      if (output_) output_->on_poll(fds);
      reap(now);
      if (deadline_ && now_ns() >= deadline_) on_deadline(now_ns());
    }
  }

  void finish() {
    if (output_) output_->drain();
    watchdog_.release();
  }

  enum class Phase { running, grace, terminate, kill };

  LaunchOptions o_;
  std::optional<Topology> topo_;
  bool virtual_ = false;
  std::vector<CpuSet> places_;
  std::uint64_t job_id_ = 0;
  ControlLayout layout_;
  Segment job_;
  Watchdog watchdog_;
  std::optional<TaggedOutput> output_;
  std::map<pid_t, int> pids_;  // ranks still running
  const pid_t launcher_pid_ = ::getpid();
  sigset_t saved_mask_;
  int sigfd_ = -1;
  Phase phase_ = Phase::running;
  std::uint64_t deadline_ = 0;
  bool failure_reported_ = false;
  bool interrupted_ = false;
  int exit_code_ = 0;
};

}  // namespace

sigset_t block_launcher_signals() {
  sigset_t set, before;
  sigemptyset(&set);
  for (int s : kSignals) sigaddset(&set, s);
  ::sigprocmask(SIG_BLOCK, &set, &before);
  return before;
}

int run_launcher(const LaunchOptions& options, const sigset_t& ranks_mask) {
  return Launcher(options, ranks_mask).run();
}

}  // namespace osmp
