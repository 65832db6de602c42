// osmp-tune: finds the best virtual hierarchy, base cases and size thresholds
// for this machine and placement, and writes the tuning file the runtime
// loads when a team is created there.
//
// Run as a command, it starts itself under osmprun (next to it) with the
// placement given; each rank then sweeps collectively (tools/tune/), rank 0
// reports. The file is keyed by the fingerprint of the topology and the
// placement: programs started the same way pick it up; others ignore it.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/access.hpp"
#include "core/env.hpp"
#include "core/log.hpp"
#include "core/main.hpp"
#include "core/strings.hpp"
#include "osmp.hpp"
#include "osmp/build_info.hpp"
#include "team/team.hpp"
#include "tools/tune/report.hpp"
#include "tools/tune/sweep.hpp"
#include "tuning/tuning_file.hpp"

namespace {

const char* kUsage =
    "usage: osmp-tune [options]\n"
    "  -n, --np N          processes (default: one per allowed CPU)\n"
    "  --map-by POLICY     core (default), pu, l3, numa, package, scatter (as osmprun)\n"
    "  --bind-to WIDTH     core (default), pu, l3, numa, package, none (as osmprun)\n"
    "  --oversubscribe     allow more processes than CPUs (added when N exceeds them)\n"
    "  --ops LIST          operations (default: all eight)\n"
    "  --sizes LIST        bytes per rank (default 8,4K,64K,1M; K/M suffixes)\n"
    "  --quick             sizes 8,64K, shorter loops, no threshold sweep\n"
    "  --no-thresholds     keep OSMP_SYMMETRIC_MAX and OSMP_CMA_MIN at their defaults\n"
    "  -o, --output FILE   the tuning file (default: OSMP_TUNING_FILE, else\n"
    "                      $XDG_CONFIG_HOME/osmp/tuning.json or ~/.config/osmp/tuning.json)\n"
    "  --plot FILE.png     degree against latency (default: FILE with -degrees.png)\n"
    "  -h, --help, --version\n";

struct Options {
  int np = 0;
  std::vector<std::string> launch;  // passed to osmprun
  std::string placement;            // the worker gets the command's (--placement-text)
  std::string output, plot;
  osmp::tune::Plan plan;
  bool worker = false;
};

int fail(const std::string& msg) {
  std::fprintf(stderr, "osmp-tune: %s\n", msg.c_str());
  return 2;
}

osmp::Status parse_list(const std::string& text, Options& o, bool sizes) {
  for (auto item : osmp::split(text, ',')) {
    if (sizes) {
      OSMP_ASSIGN_OR_RETURN(auto b, osmp::parse_size(osmp::trim(item), "--sizes"));
      if (b > (64u << 20)) return osmp::Status(osmp::Errc::invalid_argument, "--sizes: at most 64M per rank");
      o.plan.sizes.push_back(static_cast<std::size_t>(b));
    } else {
      OSMP_ASSIGN_OR_RETURN(auto k, osmp::parse_op_kind(osmp::trim(item)));
      o.plan.ops.push_back(k);
    }
  }
  return {};
}

// 0: go on; 1: done (help); 2: bad command line.
int parse(int argc, char** argv, Options& o) {
  std::string map_by = "core", bind_to = "core";
  bool sizes_given = false, oversubscribe = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "-h" || a == "--help") return std::fputs(kUsage, stdout), 1;
    if (a == "--version") return osmp::build_info::print_version("osmp-tune"), 1;
    if (a == "--worker")
      o.worker = true;
    else if (a == "--quick")
      o.plan.thresholds = false, o.plan.target_us = 2000, o.plan.reps = 3;
    else if (a == "--no-thresholds")
      o.plan.thresholds = false;
    else if (a == "--oversubscribe")
      oversubscribe = true;
    else if (a == "-n" || a == "--np" || a == "--map-by" || a == "--bind-to" || a == "--ops" || a == "--sizes" ||
             a == "-o" || a == "--output" || a == "--plot") {
      v = value();
      if (!v) return fail(a + " needs a value");
      osmp::Status st;
      if (a == "-n" || a == "--np") {
        auto n = osmp::parse_int(v, 1, 4096, "-n");
        if (!n.ok()) return fail(n.status().message());
        o.np = static_cast<int>(*n);
      } else if (a == "--map-by")
        map_by = v;
      else if (a == "--bind-to")
        bind_to = v;
      else if (a == "--ops")
        st = parse_list(v, o, false);
      else if (a == "--sizes")
        st = parse_list(v, o, true), sizes_given = true;
      else if (a == "-o" || a == "--output")
        o.output = v;
      else
        o.plot = v;
      if (!st.ok()) return fail(st.message());
    } else {
      return fail("unknown option '" + a + "' (see -h)");
    }
  }
  if (o.plan.ops.empty()) o.plan.ops.assign(std::begin(osmp::kOpKinds), std::end(osmp::kOpKinds));
  if (!sizes_given)
    o.plan.sizes =
        o.plan.thresholds ? std::vector<std::size_t>{8, 4096, 65536, 1 << 20} : std::vector<std::size_t>{8, 65536};
  if (o.np == 0) o.np = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  if (o.np > ::sysconf(_SC_NPROCESSORS_ONLN)) oversubscribe = true;
  o.launch = {"-n", std::to_string(o.np), "--map-by", map_by, "--bind-to", bind_to};
  if (oversubscribe) o.launch.emplace_back("--oversubscribe");
  if (o.placement.empty()) o.placement = osmp::cat("map-by ", map_by, ", bind-to ", bind_to);
  return 0;
}

// The command: run this program's worker on every rank under osmprun.
int launch(const Options& o, int argc, char** argv) {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return fail("cannot find this program (/proc/self/exe)");
  self[n] = 0;
  std::string dir(self, static_cast<std::size_t>(std::strrchr(self, '/') - self));
  std::string osmprun = dir + "/osmprun";
  if (::access(osmprun.c_str(), X_OK) != 0) return fail("cannot run " + osmprun + ": " + std::strerror(errno));
  std::string output = o.output.empty() ? osmp::default_tuning_path() : o.output;
  if (output.empty()) return fail("no output file: give -o FILE (OSMP_TUNING_FILE is set but empty)");
  std::string plot =
      o.plot.empty()
          ? (osmp::ends_with(output, ".json") ? output.substr(0, output.size() - 5) : output) + "-degrees.png"
          : o.plot;
  std::vector<std::string> args{osmprun};
  args.insert(args.end(), o.launch.begin(), o.launch.end());
  args.insert(args.end(), {"--", self, "--worker", "--output", output, "--plot", plot});
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" || a == "--output" || a == "--plot" || a == "-n" || a == "--np" || a == "--map-by" ||
        a == "--bind-to") {
      ++i;
      continue;
    }
    if (a != "--oversubscribe") args.push_back(a);
  }
  args.insert(args.end(), {"--placement-text", o.placement});
  std::vector<char*> cargv;
  for (auto& s : args) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  ::execv(osmprun.c_str(), cargv.data());
  return fail("cannot run " + osmprun + ": " + std::strerror(errno));
}

int work(Options& o) {
  auto options = osmp::Options::from_env();
  if (!options.ok()) return fail(options.status().to_string());
  options->tuning_file.clear();  // tune from the defaults, whatever is saved
  auto team = osmp::Team::create(*options);
  if (!team.ok()) return fail(team.status().to_string());
  osmp::Team& t = *team;
  const bool lead = t.rank() == 0;
  if (lead) {
    std::printf("osmp-tune: %d processes (%s) on %s\n", t.size(), o.placement.c_str(),
                core_of(t).topology_description().c_str());
    std::printf("  virtual hierarchies to try: ");
    for (const auto& s : osmp::tune::vh_candidates(core_of(t))) std::printf("%s ", s.empty() ? "none" : s.c_str());
    std::printf("\n");
    std::fflush(stdout);
  }
  auto cal = osmp::tune::calibrate(t);
  if (!cal.ok()) return fail(cal.status().to_string());
  cal->source = osmp::cat(
      "measured by osmp-tune (alpha, beta: flag and 64 KiB copy ping-pong per level; gamma: "
      "float sum; ",
      cal->source, ")", core_of(t).oversubscribed() ? ", oversubscribed: scheduling included" : "",
      "; contention: typical");
  if (lead) osmp::tune::print_calibration(stdout, *cal), std::fflush(stdout);
  osmp::tune::ProgressBar bar(stderr);
  auto outcome =
      osmp::tune::sweep(t, o.plan, [&](int done, int total, const std::string& what) { bar(done, total, what); });
  if (!outcome.ok()) return fail(outcome.status().to_string());
  if (!lead) return 0;
  bar.finish();
  osmp::TuningFile file = osmp::tune::make_file(core_of(t), *outcome, *cal, o.placement);
  osmp::tune::print_results(stdout, *outcome, file);
  if (auto st = osmp::save_tuning(file, o.output); !st.ok()) return fail(st.to_string());
  std::printf("\nwrote %s (fingerprint %s): osmp programs with %d processes placed %s load it\n", o.output.c_str(),
              file.fingerprint.c_str(), t.size(), o.placement.c_str());
  std::string why = osmp::tune::plot_degrees(*outcome, o.plot);
  if (why.empty())
    std::printf("plot: %s\n", o.plot.c_str());
  else
    std::printf("no plot: %s\n", why.c_str());
  return 0;
}

}  // namespace

namespace {
int run(int argc, char** argv) {
  Options o;
  // The worker's own arguments: --placement-text comes from the command.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--placement-text") == 0 && i + 1 < argc) {
      o.placement = argv[++i];
      continue;
    }
    args.push_back(argv[i]);
  }
  if (int rc = parse(static_cast<int>(args.size()), args.data(), o)) return rc == 1 ? 0 : rc;
  if (!o.worker) return launch(o, argc, argv);
  if (!osmp::env_get("OSMP_JOB_ID")) return fail("--worker runs under osmprun only");
  return work(o);
}
}  // namespace

int main(int argc, char** argv) {
  return osmp::guarded_main("osmp-tune", [&] { return run(argc, argv); });
}
