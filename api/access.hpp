// What osmp's own code above the team layer (the MPI glue, the tools, the
// tests) reaches inside an osmp::Team for. Internal: not installed, and no
// public header leads here.
#pragma once

#include <stdexcept>

#include "api/views.hpp"
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
  static Status run(Team& t, const CollArgs& a) { return t.run(a); }
  static Request start(Team& t, const CollArgs& a) { return t.start(a); }
  // The engine operation `k` runs on: a caller that names the operation
  // runs its call there itself (Ops<K>::entry.call: the C entries, which
  // ask on every call, so inline). Throws std::logic_error for a team that
  // was moved from.
  static Engine& engine(Team& t, OpKind k) {
    if (!t.views_) [[unlikely]]
      moved_from();
    return t.views_->engine(k);
  }
  // Leaving many teams at once (MPI_Finalize): announce on every team
  // first, then finish each alone (collectives/calls.hpp, Calls::finish):
  // no rank waits for another's finish of a team, whatever the order.
  static void announce_finish(Team& t);
  static Status finish_alone(Team& t);
  // Leaving without waiting for anybody (MPI_Comm_free, which real MPIs do
  // not synchronise): an error already raised for a call up to the last.
  static Status leave(Team& t);
  // Between two owners of one team (the interposer's kept teams): the calls
  // started before end, and an error already raised comes back; the team
  // stays, its next call (the same on every rank) continues the numbering.
  static Status pause(Team& t);

 private:
  [[noreturn]] static void moved_from();
};

inline TeamCore& core_of(Team& t) { return TeamAccess::core(t); }
inline const TeamCore& core_of(const Team& t) { return TeamAccess::core(t); }

}  // namespace osmp
