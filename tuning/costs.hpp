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
  std::string level;             // canonical level name (Machine, Package, L3Cache, ...)
  double alpha_us = 0;           // one hand-off: a flag and its cache line, microseconds
  double beta_us_per_kib = 0;    // one KiB written by one and read by the other, microseconds
};

struct Calibration {
  std::vector<LevelCost> levels;  // top-down (Machine first)
  double gamma_us_per_kib = 0;    // combining one KiB into another in a reduction (float sum)
  std::string source;             // "measured ..." or "given ..."

  bool empty() const { return levels.empty(); }
};

}  // namespace osmp
