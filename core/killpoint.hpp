// Fault injection for the crash-safety tests: OSMP_TEST_KILL="POINT:RANK"
// (several separated by commas; RANK "*" for any rank) makes the process
// that reaches POINT as that rank of the team being built SIGKILL itself
// there, the worst moment a real crash could choose. "POINT:RANK:SIGNAL"
// sends SIGNAL (INT, TERM, KILL or a number) instead. osmprun's own points
// (launcher.*) ignore the rank. Unset, a kill point costs one load of a flag
// that is already in cache.
#pragma once

#include <optional>
#include <string_view>

namespace osmp {

// Where a process can be killed; each name says what has just happened.
enum class KillPoint : int {
  bootstrap_claimed,   // the rank claimed its line of the job segment
  bootstrap_attached,  // every rank has the job segment (before its rendezvous closes)
  team_settings,       // team creation: settings agreed
  team_created,        // team creation: this rank created its segments, nobody attached yet
  team_shared,         // team creation: every rank has the creators' handles, nobody attached yet
  team_attached,       // team creation: this rank attached, creators still hold their descriptors
  team_ready,          // team creation finished on this rank
  reconfigure_begin,   // a runtime reconfiguration started
  reconfigure_built,   // the new trees' teams exist, not yet installed
  finalize,            // the team is being freed
  launcher_started,    // osmprun: main() began, its signals are blocked
  launcher_prepared,   // osmprun: watchdog forked, topology loaded, nothing created
  launcher_created,    // osmprun: the job segment exists, no rank started
  launcher_spawned,    // osmprun: every rank started
};
inline constexpr KillPoint kKillPoints[] = {
    KillPoint::bootstrap_claimed, KillPoint::bootstrap_attached, KillPoint::team_settings,
    KillPoint::team_created,      KillPoint::team_shared,        KillPoint::team_attached,
    KillPoint::team_ready,        KillPoint::reconfigure_begin,  KillPoint::reconfigure_built,
    KillPoint::finalize,          KillPoint::launcher_started,   KillPoint::launcher_prepared,
    KillPoint::launcher_created,  KillPoint::launcher_spawned};

const char* to_string(KillPoint p);
std::optional<KillPoint> parse_kill_point(std::string_view name);

// Signals this process (SIGKILL unless told otherwise) if OSMP_TEST_KILL
// names (p, rank).
void kill_point(KillPoint p, int rank);

}  // namespace osmp
