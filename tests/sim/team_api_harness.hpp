// N ranks as threads, each with a public osmp::Team over a ThreadBootstrap.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "osmp.hpp"
#include "support/collective_suite.hpp"
#include "team/thread_bootstrap.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"

namespace osmp::test {

struct ThreadTeams {
  std::vector<std::unique_ptr<Team>> teams;
  std::vector<Status> status;
  bool ok() const {
    for (const auto& s : status)
      if (!s.ok()) return false;
    return true;
  }
  std::string first_error() const {
    for (const auto& s : status)
      if (!s.ok()) return s.to_string();
    return "";
  }
};

// A configuration: topology, process count, mapping, virtual hierarchy.
struct Config {
  std::string name;
  std::string topology;  // "" = this machine (the threads share its binding)
  int n = 2;
  MapBy map_by = MapBy::core;
  std::string vh;
  std::string base_case;  // OSMP_BASE_CASE syntax, "" = auto
  std::string check;      // OSMP_CHECK: "lazy", "strict", "" = the default
};

// `adjust`: any other option, on every rank, before the team is created.
inline ThreadTeams make_teams(const Config& c, const std::function<void(Options&)>& adjust = nullptr) {
  ThreadTeams out;
  out.teams.resize(static_cast<std::size_t>(c.n));
  out.status.resize(static_cast<std::size_t>(c.n));
  std::vector<CpuSet> places;
  if (!c.topology.empty()) {
    auto topo = Topology::load(TopologySource::parse(c.topology));
    places = *place_ranks(topo->machine(), {c.n, c.map_by, BindTo::core, true});
  }
  ThreadJob job(c.n);
  std::vector<std::thread> th;
  for (int r = 0; r < c.n; ++r) {
    th.emplace_back([&, r] {
      ThreadBootstrap boot(job, r);
      Options o;
      if (!c.topology.empty()) {
        o.settings["OSMP_TOPOLOGY"] = c.topology;
        o.settings["OSMP_PLACE"] = places[static_cast<std::size_t>(r)].to_string();
      }
      o.settings["OSMP_VH"] = c.vh;
      if (!c.base_case.empty()) o.settings["OSMP_BASE_CASE"] = c.base_case;
      if (!c.check.empty()) o.settings["OSMP_CHECK"] = c.check;
      if (adjust) adjust(o);
      auto t = Team::create(boot, o);
      out.status[static_cast<std::size_t>(r)] = t.status();
      if (t.ok()) out.teams[static_cast<std::size_t>(r)] = std::make_unique<Team>(std::move(t).value());
    });
  }
  for (auto& t : th) t.join();
  return out;
}

// fn(rank's team) on every rank's thread.
inline void on_all(ThreadTeams& tt, const std::function<void(Team&)>& fn) {
  std::vector<std::thread> th;
  for (auto& t : tt.teams) th.emplace_back([&] { fn(*t); });
  for (auto& t : th) t.join();
}

// Runs `cases` in order on every rank (case i with seed + i); "" when all
// were right, else the first failure seen, named.
inline std::string run_cases(ThreadTeams& tt, const std::vector<CollCase>& cases, std::uint32_t seed,
                             Mode mode = Mode::blocking) {
  std::mutex m;
  std::string first;
  on_all(tt, [&](Team& t) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      std::string bad = run_case(t, cases[i], seed + static_cast<std::uint32_t>(i), mode);
      if (bad.empty()) continue;
      std::lock_guard lock(m);
      if (first.empty()) first = cases[i].name() + ": " + bad;
    }
  });
  return first;
}

}  // namespace osmp::test

namespace osmp::test {
inline void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }
}  // namespace osmp::test
