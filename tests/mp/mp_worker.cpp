// A program for the multi-process tests (label mp), started by osmprun.
//
//   mp_worker ring ROUNDS      pass a token round all ranks ROUNDS times (0: forever)
//   mp_worker cycles K         create and destroy the team K times
//   mp_worker info             print this rank's place and groups (* leads the
//                              group's domain, - does not lead its unit)
//   mp_worker exit R CODE      rank R exits with CODE after joining; the others ring
//   mp_worker where            print the directories of the segments this rank maps
//
// MP_DELAY_MS=T (and MP_DELAY_RANK=R: only rank R) waits T ms before joining
// the job, so that a test can play an impostor in the meantime.
//
// Every rank prints "job <id>" and "pid <rank> <pid>" first. On an osmp error
// a rank prints "rank <r>: error: <message>" and exits with status 3.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "team/shm_bootstrap.hpp"
#include "team/team.hpp"

namespace {

int g_rank = -1;

void line(const std::string& s) {
  std::string l = s + "\n";
  ssize_t rc = ::write(STDOUT_FILENO, l.data(), l.size());
  (void)rc;
}

[[noreturn]] void die(const osmp::Status& st) {
  line(osmp::cat("rank ", g_rank, ": error: ", st.to_string()));
  std::exit(3);
}

// "/dev/shm" for "... /dev/shm/#1234 (deleted)": where this rank's segments live.
std::string segment_dirs() {
  std::string dirs;
  if (FILE* f = std::fopen("/proc/self/maps", "r")) {
    char l[512];
    while (std::fgets(l, sizeof l, f)) {
      const char* path = std::strchr(l, '/');
      const char* hash = path ? std::strstr(path, "/#") : nullptr;
      if (!hash || !std::strstr(hash, "(deleted)")) continue;
      std::string d(path, hash);
      if (dirs.find(" " + d + " ") == std::string::npos) dirs += " " + d + " ";
    }
    std::fclose(f);
  }
  return dirs;
}

void delay_if_asked(int rank) {
  const char* ms = std::getenv("MP_DELAY_MS");
  const char* who = std::getenv("MP_DELAY_RANK");
  if (ms && (!who || std::atoi(who) == rank)) ::usleep(static_cast<useconds_t>(std::atoi(ms)) * 1000);
}

std::unique_ptr<osmp::TeamCore> make_team() {
  auto boot = osmp::ShmBootstrap::instance();
  if (!boot.ok()) die(boot.status());
  auto opts = osmp::TeamOptions::from_env();
  if (!opts.ok()) die(opts.status());
  auto team = osmp::TeamCore::create(**boot, *opts);
  if (!team.ok()) die(team.status());
  return std::move(team).value();
}

void ring(osmp::TeamCore& t, std::uint64_t rounds) {
  const int prev = (t.rank() + t.size() - 1) % t.size();
  std::uint64_t base = t.rank_flag(t.rank()).value.load();
  for (std::uint64_t r = 1; rounds == 0 || r <= rounds; ++r) {
    std::uint64_t want = t.rank() == 0 ? base + r - 1 : base + r;
    if (t.size() > 1 && (t.rank() != 0 || r > 1)) {
      osmp::WaitStatus ws = t.waiter().wait(t.rank_flag(prev), want, prev);
      if (ws != osmp::WaitStatus::ok) die(t.fail(ws));
    }
    osmp::publish(t.rank_flag(t.rank()), base + r, t.waiter().may_sleep());
  }
  // The last hand-off: rank 0 waits for the token to come back once more.
  if (t.rank() == 0 && t.size() > 1) {
    osmp::WaitStatus ws = t.waiter().wait(t.rank_flag(prev), base + rounds, prev);
    if (ws != osmp::WaitStatus::ok) die(t.fail(ws));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string mode = argv[1];
  auto env = osmp::JobEnv::from_env();
  if (!env.ok()) die(env.status());
  g_rank = env->rank;
  if (g_rank == 0) line(osmp::cat("job ", std::getenv("OSMP_JOB_ID")));
  line(osmp::cat("pid ", g_rank, " ", ::getpid()));
  delay_if_asked(g_rank);

  if (mode == "cycles") {
    int k = argc > 2 ? std::atoi(argv[2]) : 10;
    for (int i = 0; i < k; ++i) make_team();  // created and destroyed
    line(osmp::cat("rank ", g_rank, " ok"));
    return 0;
  }
  auto team = make_team();
  if (mode == "ring") {
    ring(*team, argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000);
  } else if (mode == "info") {
    std::string groups;
    for (const auto& g : team->groups()) {
      groups += osmp::cat(groups.empty() ? "" : " ", team->tree().domain(g.domain).level, ":", g.members.size(),
                          g.leader()       ? "*"
                          : g.leads_unit() ? ""
                                           : "-");
    }
    line(osmp::cat("rank ", g_rank, " place ", team->tree().place(g_rank).to_string(), " groups ", groups,
                   team->oversubscribed() ? " oversubscribed" : ""));
  } else if (mode == "where") {
    line(osmp::cat("rank ", g_rank, " segments in", segment_dirs()));
  } else if (mode == "exit") {
    int who = std::atoi(argv[2]);
    if (g_rank == who) std::exit(std::atoi(argv[3]));
    ring(*team, 0);
  } else {
    return 2;
  }
  line(osmp::cat("rank ", g_rank, " ok"));
  return 0;
}
