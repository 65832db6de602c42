// Test helpers: load topologies we don't have and build trees on them.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "topology/build.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"
#include "virtual_hier/split.hpp"

namespace osmp::test {

// Loads a preset name, synthetic string or XML path; fails the test on error.
Topology load(const std::string& source);
std::string data_path(const std::string& relative);  // under tests/data

// Places n ranks with the given policy and builds the tree (with `spec`),
// asserting success and that check() holds.
Tree tree_for(const MachineTree& m, int n, MapBy map_by = MapBy::core, BindTo bind_to = BindTo::core,
              const std::string& spec = "", bool oversubscribe = false);
Tree tree_from_places(const MachineTree& m, const std::vector<CpuSet>& places, const std::string& spec = "",
                      bool oversubscribe = false);

// "Machine 1x2 Package 2x4": levels that have groups, as "name groups x size"
// (size as "min-max" when uneven).
std::string level_summary(const Tree& t);

CpuSet cpus(const std::string& list);

}  // namespace osmp::test
