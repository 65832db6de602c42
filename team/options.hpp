// Everything a team can be told, from the API or the environment.
//
//   OSMP_TOPOLOGY    topology source (see topology/topology.hpp); default this machine
//   OSMP_VH          virtual-hierarchy spec (see virtual_hier/spec.hpp); default none
//   OSMP_WAIT        spin | yield | futex | auto (default)
//   OSMP_SLOT_SIZE   bytes per member data slot, default 64K (K/M suffixes)
//   OSMP_BCAST_SIZE  bytes of each broadcast buffer, default 64K
//   OSMP_SHM_LIMIT   most bytes of shared memory one team may use; default none
//   OSMP_HEAP_SIZE   bytes of this process's shared heap (team/heaps.hpp);
//                    0 or off: none; default a quarter of what the shm
//                    directory has free, shared among the team's ranks.
//                    May differ per rank.
//   OSMP_PLACE       this process's place (cpuset list) on a topology that is
//                    not this system; osmprun sets it
//
// Every rank must pass the same settings (except the place): team creation
// checks and names the ones that differ.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/status.hpp"
#include "shm/layout.hpp"
#include "shm/wait.hpp"
#include "topology/cpuset.hpp"
#include "topology/topology.hpp"

namespace osmp {

struct TeamOptions {
  TopologySource topology = TopologySource::native();
  std::string vh;  // virtual-hierarchy spec text
  WaitPolicy wait = WaitPolicy::automatic;
  std::size_t slot_bytes = kDefaultSlotBytes;
  std::size_t bcast_bytes = kDefaultBcastBytes;
  std::uint64_t shm_limit = 0;            // 0: no limit
  std::optional<CpuSet> place;            // default: the binding, or OSMP_PLACE
  std::optional<std::size_t> heap_bytes;  // OSMP_HEAP_SIZE; unset: default_heap_bytes()
  bool allow_oversubscribe = true;        // a team runs whatever the launcher started
  // Settings of the layers above (collectives) that every rank must share;
  // compared as text at team creation.
  std::string protocol;

  // Sets one of the OSMP_* settings above by name, from its text (the
  // environment variable's syntax; empty: the default). Errors name
  // `source` and the setting: "environment variable OSMP_WAIT: ...".
  Status set(std::string_view name, std::string_view value, std::string_view source = "setting");
  // Every name set() knows, in a fixed order.
  static std::span<const std::string_view> names();
  static bool known(std::string_view name);
  // Defaults overridden by the OSMP_* variables above; errors name the variable.
  static Result<TeamOptions> from_env();
};

}  // namespace osmp
