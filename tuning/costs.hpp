// What it costs to move data between two processes at each level of a
// machine: measured on this machine by osmp-tune's calibration, or given for
// machines we do not have. The input of the model (model.hpp) and part of the
// tuning file (tuning_file.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace osmp {

// Hockney parameters of one level: two processes whose lowest shared domain
// is `level` hand off a flag in alpha and copy a KiB through shared memory
// in beta.
struct LevelCost {
  std::string level;           // canonical level name (Machine, Package, L3Cache, ...)
  double alpha_us = 0;         // one hand-off: a flag and its cache line, microseconds
  double beta_us_per_kib = 0;  // one KiB written by one and read by the other, microseconds
};

// Why 0.3: readers of one line are served one after the other by the line's
// home (same-address requests are serialised there), and serving one more
// is about an L3 hit (~10 ns on Rome, ~17 ns on Cascade Lake: AnandTech's
// Rome review) against a core-to-core hand-off of ~25-50 ns on one socket
// (nviennot/core-to-core-latency): a ratio of 0.2-0.45, taken low because
// the requests partly overlap. Not fitted to any collective's timing.
inline constexpr double kTypicalContention = 0.3;

// CMA: a process_vm_readv of one page about a microsecond (a system call,
// the peer's mm looked up, a page pinned), ~8 GB/s beyond (pinning each
// 4 KiB page, then a copy between caches). Round figures, not measured on
// any machine of the paper; osmp-tune measures this machine's.
inline constexpr double kTypicalCmaCallUs = 1.0;
inline constexpr double kTypicalCmaUsPerKib = 1.024 / 8;

struct Calibration {
  std::vector<LevelCost> levels;  // top-down (Machine first)
  double gamma_us_per_kib = 0;    // combining one KiB into another in a reduction (float sum)
  std::string source;             // "measured ..." or "given ..."
  // When r processes read from one source at once, the last one's hand-off
  // costs contention * (r - 1) alphas more and each gets 1 / (1 + contention
  // * (r - 1)) of the bandwidth (the hsplit paper's "improved latency and
  // bandwidth per level"). Used by the model (model.hpp).
  double contention = kTypicalContention;
  // CMA's single copy (process_vm_readv, collectives/ops/cma.cpp): one call's
  // own cost (the system call, pinning the first page) and a KiB more of
  // it, between two ranks of the team's top level. osmp-tune measures them
  // where the kernel lets ranks read each other; else, and in a tuning
  // file that has none, the typical figures below.
  double cma_call_us = kTypicalCmaCallUs;
  double cma_us_per_kib = kTypicalCmaUsPerKib;

  bool empty() const { return levels.empty(); }
  // The entry for a canonical level name, or nullptr.
  const LevelCost* find(std::string_view level) const {
    for (const auto& l : levels)
      if (l.level == level) return &l;
    return nullptr;
  }
};

// GB/s to microseconds per KiB, and back.
constexpr double us_per_kib(double gb_per_s) { return 1.024 / gb_per_s; }
constexpr double gb_per_s(double us_per_kib) { return 1.024 / us_per_kib; }

// Typical figures per kind of level, for machines nobody calibrated (the
// model's default_calibration()). Not measured on any machine of the paper.
//
// alpha: one-way core-to-core hand-off of a cache line, the medians of
// nviennot/core-to-core-latency (CAS ping-pong, one way): hyper-threads of
// one core 4-10 ns; cores sharing an AMD CCX's L3 16-25 ns; cores on one
// Intel mesh sharing its L3 47-48 ns (Cascade Lake 8275CL, Gold 6242); other
// CCX of the same socket 84-107 ns (Zen 2, Zen 3); other socket 108-136 ns
// (Intel), 197 ns (Milan). L3: 35 ns, between the CCX and the mesh. A shared
// L2 (POWER9 core pairs, A64FX CMGs, Atom modules) sits between a core and
// an L3. Package above NUMANode/Die/Group when both exist: the far side of
// one socket.
// beta: round figures for one core copying from another core's cache: tens
// of GB/s inside a cache, ~10 GB/s over a socket's fabric (shm/copy.hpp
// measured 64 KiB in 5 us, ~13 GB/s, into shared memory here), less across
// sockets.
// gamma: a vectorised float sum of a KiB in cache, assuming ~30 GB/s of
// input for one core (not measured here).
inline LevelCost typical_level_cost(std::string_view level) {
  struct Figure {
    double alpha_us, gb_per_s;
  };
  const bool cache = level.size() > 6 && level[0] == 'L' && level.substr(level.size() - 5) == "Cache";
  Figure f{0.160, 8};  // Machine (or anything unknown): the other socket
  if (level == "PU" || level == "Core" || level == "L1Cache")
    f = {0.008, 40};
  else if (level == "L2Cache")
    f = {0.020, 30};
  else if (cache)
    f = {0.035, 20};  // L3 and beyond: the last level of a CCX or a socket
  else if (level == "NUMANode" || level == "Die" || level.substr(0, 5) == "Group")
    f = {0.100, 12};
  else if (level == "Package")
    f = {0.110, 10};
  return {std::string(level), f.alpha_us, us_per_kib(f.gb_per_s)};
}
inline constexpr double kTypicalGammaUsPerKib = 0.03;

}  // namespace osmp
