// What osmp's own code above the team layer (the MPI glue, the tools, the
// tests) reaches inside an osmp::Team for. Internal: not installed, and no
// public header leads here.
#pragma once

#include "osmp.hpp"

namespace osmp {

class TeamCore;

struct TeamAccess {
  // The team every operation runs on unless configured otherwise (the base
  // view). Throws std::logic_error for a team that was moved from.
  static TeamCore& core(Team& t);
  static const TeamCore& core(const Team& t);
};

inline TeamCore& core_of(Team& t) { return TeamAccess::core(t); }
inline const TeamCore& core_of(const Team& t) { return TeamAccess::core(t); }

}  // namespace osmp
