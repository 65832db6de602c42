#include "core/killpoint.hpp"

#include <unistd.h>
#include <csignal>

#include <vector>

#include "core/env.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"

namespace osmp {
namespace {

struct Target {
  KillPoint point;
  int rank;  // -1: any
  int signal;
};

int parse_signal(std::string_view s) {
  if (s.empty() || s == "KILL") return SIGKILL;
  if (s == "INT") return SIGINT;
  if (s == "TERM") return SIGTERM;
  auto n = parse_int(s, 1, 64, "signal");
  return n.ok() ? static_cast<int>(*n) : -1;
}

std::vector<Target> parse_plan() {
  std::vector<Target> plan;
  auto text = env_get("OSMP_TEST_KILL");
  if (!text) return plan;
  for (std::string_view item : split(*text, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    auto f = split(item, ':');
    auto point = parse_kill_point(f[0]);
    auto rank = f.size() < 2 || f[1] == "*" ? Result<long long>(-1) : parse_int(f[1], 0, 1 << 30, "rank");
    int sig = parse_signal(f.size() > 2 ? f[2] : "");
    if (!point || !rank.ok() || sig < 0 || f.size() > 3) {
      log(LogLevel::error, "OSMP_TEST_KILL: ignoring '", item, "' (expected POINT:RANK[:SIGNAL])");
      continue;
    }
    plan.push_back({*point, static_cast<int>(*rank), sig});
  }
  return plan;
}

}  // namespace

const char* to_string(KillPoint p) {
  switch (p) {
    case KillPoint::bootstrap_claimed: return "bootstrap.claimed";
    case KillPoint::bootstrap_attached: return "bootstrap.attached";
    case KillPoint::team_settings: return "team.settings";
    case KillPoint::team_created: return "team.created";
    case KillPoint::team_shared: return "team.shared";
    case KillPoint::team_attached: return "team.attached";
    case KillPoint::team_ready: return "team.ready";
    case KillPoint::reconfigure_begin: return "reconfigure.begin";
    case KillPoint::reconfigure_built: return "reconfigure.built";
    case KillPoint::finalize: return "finalize";
    case KillPoint::launcher_started: return "launcher.started";
    case KillPoint::launcher_prepared: return "launcher.prepared";
    case KillPoint::launcher_created: return "launcher.created";
    case KillPoint::launcher_spawned: return "launcher.spawned";
  }
  return "?";
}

std::optional<KillPoint> parse_kill_point(std::string_view name) {
  for (KillPoint p : kKillPoints)
    if (name == to_string(p)) return p;
  return std::nullopt;
}

void kill_point(KillPoint p, int rank) {
  static const std::vector<Target> plan = parse_plan();
  for (const Target& t : plan) {
    if (t.point == p && (t.rank < 0 || t.rank == rank)) {
      log(LogLevel::info, "OSMP_TEST_KILL: rank ", rank, " sends itself signal ", t.signal, " at ", to_string(p));
      ::kill(::getpid(), t.signal);
    }
  }
}

}  // namespace osmp
