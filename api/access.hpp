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
  // Any operation's call, run or started as its entry point (Team::bcast,
  // Team::ibcast, ...) would: `a` as collectives/engine.hpp's as_called
  // makes it (the arguments its operation does not take cleared). For the
  // layers that hold the operation as a value (the MPI glue, osmp-tune): no
  // switch on it.
  // Inline: the C entries (api/capi.cpp) call them on every call.
  static Status run(Team& t, const CollArgs& a) { return t.run(a); }
  static Request start(Team& t, const CollArgs& a) { return t.start(a); }
  // Leaving many teams at once (MPI_Finalize): announce on every team
  // first, then finish each alone (collectives/calls.hpp, Calls::finish):
  // no rank waits for another's finish of a team, whatever the order.
  static void announce_finish(Team& t);
  static Status finish_alone(Team& t);
  // Leaving without waiting for anybody (MPI_Comm_free, which real MPIs do
  // not synchronise): an error already raised for a call up to the last.
  static Status leave(Team& t);
};

inline TeamCore& core_of(Team& t) { return TeamAccess::core(t); }
inline const TeamCore& core_of(const Team& t) { return TeamAccess::core(t); }

}  // namespace osmp
