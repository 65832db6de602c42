// osmprun: the standalone launcher. See launcher/launch.hpp.
#include <cstdio>
#include <string>
#include <vector>

#include "core/main.hpp"
#include "launcher/launch.hpp"
#include "osmp/build_info.hpp"

namespace {
int run(int argc, char** argv) {
  const sigset_t ranks_mask = osmp::block_launcher_signals();
  std::vector<std::string> args(argv + 1, argv + argc);
  auto opts = osmp::parse_launch_options(args);
  if (!opts.ok()) {
    std::fprintf(stderr, "osmprun: %s\n%s", opts.status().message().c_str(), osmp::kLaunchUsage);
    return 2;
  }
  if (opts->help) {
    std::fputs(osmp::kLaunchUsage, stdout);
    return 0;
  }
  if (opts->version) {
    osmp::build_info::print_version("osmprun");
    return 0;
  }
  return osmp::run_launcher(*opts, ranks_mask);
}
}  // namespace

int main(int argc, char** argv) {
  return osmp::guarded_main("osmprun", [&] { return run(argc, argv); });
}
