// osmprun's command line, parsed by a pure function (unit-tested).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "topology/placement.hpp"

namespace osmp {

struct LaunchOptions {
  int np = 0;
  MapBy map_by = MapBy::core;
  std::optional<BindTo> bind_to;  // default: core (pu with --map-by pu)
  bool oversubscribe = false;
  bool report_bindings = false;
  bool tag_output = false;
  std::string topology;                // "" = OSMP_TOPOLOGY or this machine
  std::optional<std::string> vh;       // --vh; else the environment's OSMP_VH passes through
  std::optional<std::string> wait;     // --wait POLICY (OSMP_WAIT)
  std::optional<std::string> shm_dir;  // -x OSMP_SHM_DIR=D: osmprun's own segment goes there too
  double timeout_s = 0;                // 0: none
  double grace_s = 2;                  // after a failure, before killing the others
  std::vector<std::string> env;        // -x: "VAR" (pass through) or "VAR=value"
  std::vector<std::string> argv;       // program and its arguments
  bool help = false;
  bool version = false;

  BindTo binding() const { return bind_to.value_or(map_by == MapBy::pu ? BindTo::pu : BindTo::core); }
};

extern const char* const kLaunchUsage;

// Parses osmprun's arguments (without argv[0]). Errors name the bad option.
// -x of a variable osmprun acts on itself (OSMP_TOPOLOGY, OSMP_VH, OSMP_WAIT,
// OSMP_SHM_DIR) sets it for osmprun as well as for the ranks, as the option
// would; -x of one it sets per rank (OSMP_JOB_ID, OSMP_RANK, ...) is refused.
Result<LaunchOptions> parse_launch_options(const std::vector<std::string>& args);

}  // namespace osmp
