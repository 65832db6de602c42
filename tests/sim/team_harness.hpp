// Runs N ranks as threads of this process, each creating a Team through a
// ThreadBootstrap; the segments are real shared memory.
#pragma once

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "core/random.hpp"
#include "support/shm_probe.hpp"
#include "team/team.hpp"
#include "team/thread_bootstrap.hpp"
#include "topology/placement.hpp"

namespace osmp::test {

struct RankResult {
  Status status;
  std::unique_ptr<TeamCore> team;
};

// options_for(rank) gives each rank its options (the place differs per rank).
inline std::vector<RankResult> create_teams(int n, const std::function<TeamOptions(int)>& options_for,
                                            std::uint64_t job_id = 0) {
  ThreadJob job(n, job_id);
  std::vector<RankResult> out(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      ThreadBootstrap boot(job, r);
      auto t = TeamCore::create(boot, options_for(r));
      auto& res = out[static_cast<std::size_t>(r)];
      res.status = t.status();
      if (t.ok()) res.team = std::move(t).value();
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

// Each rank runs fn(team) on its own thread; returns when all are done.
inline void run_on_teams(std::vector<RankResult>& teams, const std::function<void(TeamCore&)>& fn) {
  std::vector<std::thread> threads;
  for (auto& r : teams) threads.emplace_back([&] { fn(*r.team); });
  for (auto& t : threads) t.join();
}

// Options placing n ranks on `topology` with the given mapping.
inline std::function<TeamOptions(int)> placed_on(const std::string& topology, int n, MapBy map_by = MapBy::core,
                                                 const std::string& vh = "", BindTo bind_to = BindTo::core) {
  auto topo = Topology::load(TopologySource::parse(topology));
  PlacementRequest req{n, map_by, bind_to, true};
  auto places = std::make_shared<std::vector<CpuSet>>(*place_ranks(topo->machine(), req));
  return [=](int r) {
    TeamOptions o;
    o.topology = TopologySource::parse(topology);
    o.vh = vh;
    o.place = (*places)[static_cast<std::size_t>(r)];
    return o;
  };
}

}  // namespace osmp::test
