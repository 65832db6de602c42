// osmp-tune's sweep: for each operation and size class, the virtual
// hierarchy (a degree per level of this tree), then the base case, then the
// team-wide size thresholds, each switched at runtime on the running team
// (Team::configure) and timed on every rank.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "osmp.hpp"
#include "team/team.hpp"
#include "tools/tune/measure.hpp"

namespace osmp::tune {

struct Plan {
  std::vector<OpKind> ops;
  std::vector<std::size_t> sizes;  // bytes per rank (barrier: one point)
  bool thresholds = true;          // also OSMP_SYMMETRIC_MAX and OSMP_CMA_MIN
  double target_us = 5000;         // length of one timed loop
  int reps = 3;                    // loops per point, the best kept
  double min_gain = 0.03;          // a choice must beat the default by this much
};

// One timed point.
struct Point {
  OpKind op;
  std::size_t bytes;
  std::string stage;      // "default", "vh", "base", "confirm", "confirm-default", "threshold",
                          // "final-default", "final-tuned"
  std::string candidate;  // "OSMP_VH=Package:4 OSMP_BASE_CASE=flat", "" = the defaults
  Settings settings;
  double us = 0;
};

struct Outcome {
  Settings team;                      // team-wide choices that differ from the defaults
  std::map<OpKind, Settings> per_op;  // per-operation choices
  std::vector<Point> points;
};

// Called on rank 0 before each point, with the points done and in all.
using Progress = std::function<void(int done, int total, const std::string& what)>;

// The virtual-hierarchy specs worth trying on this team's tree: for every
// level whose groups have three or more members, degrees 2..min(members-1, 8);
// "" (none) first, "auto" last; specs giving the same groups kept once.
std::vector<std::string> vh_candidates(const TeamCore& core);

// Collective: runs the whole plan; the team ends configured with the result.
Result<Outcome> sweep(Team& t, const Plan& plan, const Progress& progress);

std::string op_label(OpKind k);
std::string describe(const Settings& s);

}  // namespace osmp::tune
