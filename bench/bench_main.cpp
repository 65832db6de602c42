// Shared main for every benchmark: records the context a number needs to be
// compared later (git hash, build type, topology source, CPU count).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <string>

#include "core/env.hpp"

int main(int argc, char** argv) {
  benchmark::AddCustomContext("osmp_git", OSMP_GIT);
  benchmark::AddCustomContext("osmp_build_type", OSMP_BUILD_TYPE);
  benchmark::AddCustomContext("osmp_topology", osmp::env_get("OSMP_TOPOLOGY").value_or("native"));
  benchmark::AddCustomContext("online_cpus", std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
