// Level names. We use hwloc's type names (Machine, Group0, Package, Die,
// NUMANode, L3Cache, L2Cache, Core, PU) and accept the usual aliases.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osmp {

// Canonical name for a level typed by a user, case-insensitive:
// Machine (alias Node), Package (Socket), Die, NUMANode (NUMA), L3Cache (L3),
// L2Cache (L2), L1Cache (L1), Core, PU (HWThread, Thread), GroupN (Group = Group0).
// Virtual level names ("Package-v1") are returned unchanged when well formed.
std::optional<std::string> canonical_level(std::string_view name);

// When several levels hold exactly the same processes they become one domain,
// named after the most telling of them: Machine, Package, Die, NUMANode, L3Cache,
// Core, L2Cache, L1Cache, PU, then Groups (hwloc's generic helper objects).
// Lower value = preferred.
int level_naming_priority(std::string_view canonical);

// "Package-v2": the second virtual level under a Package domain.
std::string virtual_level_name(std::string_view parent_level, int nesting);
bool is_virtual_level_name(std::string_view name);

}  // namespace osmp
