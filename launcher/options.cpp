#include "launcher/options.hpp"

#include <cmath>
#include <cstdlib>

#include "core/strings.hpp"

namespace osmp {

const char* const kLaunchUsage =
    "usage: osmprun -n N [options] program [args...]\n"
    "  -n, --np N              number of processes\n"
    "  --map-by POLICY         core (default), pu, l3, numa, package, scatter\n"
    "  --bind-to WIDTH         core (default), pu, l3, numa, package, none\n"
    "  --oversubscribe         allow more processes than allowed CPUs (or cores to map on)\n"
    "  --report-bindings       print where each rank runs\n"
    "  --topology SRC          run on a machine we don't have: an hwloc synthetic string,\n"
    "                          FILE.xml, or rome, cascadelake, power9, a64fx ...; ranks get\n"
    "                          a virtual place on it (and are not bound)\n"
    "  --vh SPEC               virtual hierarchy (OSMP_VH): LEVEL:DEGREE,..., ?MAX, auto\n"
    "  --wait POLICY           spin, yield, futex, auto (OSMP_WAIT)\n"
    "  --timeout SECONDS       stop the job after this long (exit status 124)\n"
    "  --grace SECONDS         after a rank fails, wait this long before killing the\n"
    "                          others (default 2)\n"
    "  -x VAR[=VALUE]          pass VAR (with VALUE) to every rank (OSMP_VH, OSMP_WAIT,\n"
    "                          OSMP_TOPOLOGY, OSMP_SHM_DIR apply to osmprun too)\n"
    "  --tag-output            prefix every line of output with [rank]\n"
    "  -h, --help, --version\n";

namespace {

Result<double> seconds(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(d) || d < 0 || d > 1e7) {
    return Status(Errc::invalid_argument, cat(opt, ": '", v, "' is not a number of seconds"));
  }
  return d;
}

// -x NAME=VALUE of a variable osmprun reads itself: the launcher must see the
// same value as the ranks, so it becomes the option. -x NAME (pass the
// launcher's own value) needs nothing: both already read the same variable.
Status per_rank_variable(const std::string& name) {
  static const char* const kPerRank[] = {"OSMP_JOB_ID", "OSMP_RANK", "OSMP_SIZE", "OSMP_JOB_FD", "OSMP_PLACE"};
  for (const char* v : kPerRank) {
    if (name == v) {
      return Status(Errc::invalid_argument,
                    cat("-x ", name, ": osmprun sets ", name, " for each rank itself; it cannot be overridden"));
    }
  }
  return {};
}

Status launcher_variable(LaunchOptions& o, const std::string& name, const std::string& value, bool& taken) {
  struct Bound {
    const char* var;
    const char* option;
    std::optional<std::string> LaunchOptions::*field;
  };
  static const Bound kBound[] = {{"OSMP_VH", "--vh", &LaunchOptions::vh},
                                 {"OSMP_WAIT", "--wait", &LaunchOptions::wait},
                                 {"OSMP_SHM_DIR", nullptr, &LaunchOptions::shm_dir}};
  taken = true;
  if (name == "OSMP_TOPOLOGY") {
    if (!o.topology.empty() && o.topology != value) {
      return Status(Errc::invalid_argument, cat("-x OSMP_TOPOLOGY=", value, " contradicts --topology ", o.topology));
    }
    o.topology = value;
    return {};
  }
  for (const Bound& b : kBound) {
    if (name != b.var) continue;
    auto& field = o.*(b.field);
    if (field && *field != value) {
      return Status(Errc::invalid_argument,
                    cat("-x ", name, "=", value, " contradicts ", b.option ? b.option : "an earlier -x", " ", *field));
    }
    field = value;
    return {};
  }
  taken = false;
  return {};
}

}  // namespace

Result<LaunchOptions> parse_launch_options(const std::vector<std::string>& args) {
  LaunchOptions o;
  std::size_t i = 0;
  auto value = [&](const std::string& opt) -> Result<std::string> {
    if (i + 1 >= args.size()) return Status(Errc::invalid_argument, cat(opt, " needs a value"));
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;  // the program
    if (a == "-h" || a == "--help") {
      o.help = true;
      return o;
    }
    if (a == "--version") {
      o.version = true;
      return o;
    }
    if (a == "--oversubscribe") {
      o.oversubscribe = true;
    } else if (a == "--report-bindings") {
      o.report_bindings = true;
    } else if (a == "--tag-output") {
      o.tag_output = true;
    } else if (a == "-n" || a == "--np" || a == "-np") {
      OSMP_ASSIGN_OR_RETURN(std::string v, value(a));
      OSMP_ASSIGN_OR_RETURN(long long n, parse_int(v, 1, 1 << 16, cat(a)));
      o.np = static_cast<int>(n);
    } else if (a == "--map-by") {
      OSMP_ASSIGN_OR_RETURN(std::string v, value(a));
      OSMP_ASSIGN_OR_RETURN(o.map_by, parse_map_by(v));
    } else if (a == "--bind-to") {
      OSMP_ASSIGN_OR_RETURN(std::string v, value(a));
      OSMP_ASSIGN_OR_RETURN(BindTo b, parse_bind_to(v));
      o.bind_to = b;
    } else if (a == "--topology") {
      OSMP_ASSIGN_OR_RETURN(o.topology, value(a));
    } else if (a == "--vh") {
      OSMP_ASSIGN_OR_RETURN(std::string v, value(a));
      o.vh = v;
    } else if (a == "--wait") {
      OSMP_ASSIGN_OR_RETURN(std::string v, value(a));
      o.wait = v;
    } else if (a == "--timeout") {
      OSMP_ASSIGN_OR_RETURN(std::string v, value(a));
      OSMP_ASSIGN_OR_RETURN(o.timeout_s, seconds(a, v));
    } else if (a == "--grace") {
      OSMP_ASSIGN_OR_RETURN(std::string v, value(a));
      OSMP_ASSIGN_OR_RETURN(o.grace_s, seconds(a, v));
    } else if (a == "-x") {
      OSMP_ASSIGN_OR_RETURN(std::string v, value(a));
      std::string name = v.substr(0, v.find('='));
      if (name.empty() || name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
                              std::string::npos) {
        return Status(Errc::invalid_argument, cat("-x: '", v, "' is not VAR or VAR=VALUE"));
      }
      OSMP_RETURN_IF_ERROR(per_rank_variable(name));
      bool taken = false;
      if (v.find('=') != std::string::npos) {
        OSMP_RETURN_IF_ERROR(launcher_variable(o, name, v.substr(v.find('=') + 1), taken));
      }
      if (!taken) o.env.push_back(v);
    } else {
      return Status(Errc::invalid_argument, cat("unknown option '", a, "'"));
    }
  }
  o.argv.assign(args.begin() + static_cast<long>(i), args.end());
  if (o.argv.empty()) return Status(Errc::invalid_argument, "no program to run");
  if (o.np == 0) return Status(Errc::invalid_argument, "the number of processes (-n N) is missing");
  return o;
}

}  // namespace osmp
