// osmp-model: what the per-level cost model (tuning/model.hpp) predicts for
// osmp's collectives on a topology, a placement and a virtual-hierarchy
// spec, and which spec it recommends.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/main.hpp"
#include "core/strings.hpp"
#include "osmp/build_info.hpp"
#include "topology/levels.hpp"
#include "topology/placed.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"
#include "tuning/model.hpp"
#include "tuning/tuning_file.hpp"
#include "virtual_hier/split.hpp"

namespace {

const std::string kUsage = std::string("usage: osmp-model [options]\n") + osmp::kPlacementUsage +
                           "  --vh SPEC          the virtual hierarchy to predict (default: OSMP_VH)\n"
                           "  --op LIST          operations (default allreduce,bcast,reduce,gather,barrier)\n"
                           "  --sizes LIST       bytes per rank, K/M suffixes (default 8,4K,64K,1M)\n"
                           "  --base-case SPEC   base cases as OSMP_BASE_CASE (default: OSMP_BASE_CASE, auto)\n"
                           "  --alpha LEVEL=US,...     hand-off latency per level, microseconds\n"
                           "  --beta LEVEL=GBPS,...    bandwidth per level, GB/s\n"
                           "  --gamma US_PER_KIB       cost of combining a KiB in a reduction\n"
                           "  --contention C     extra cost per extra reader of one source, as a fraction\n"
                           "  --tuning FILE      the costs osmp-tune measured (its tuning file's calibration);\n"
                           "                     --alpha/--beta/--gamma/--contention still override them\n"
                           "                     Default: typical figures for every level (tuning/costs.hpp).\n"
                           "                     A domain standing for several levels (Package+L3Cache) pays\n"
                           "                     the deepest cache's costs: see the 'costs of' column.\n"
                           "  --heap             every rank's buffers in the shared heaps (osmp_alloc, MPI\n"
                           "                     shared windows): the heap's single copy where it applies\n"
                           "  --recommend        rank the virtual hierarchies of this machine and placement\n"
                           "  --json             machine-readable output\n"
                           "  -h, --help, --version\n";

struct Options {
  osmp::PlacementArgs where;
  std::string vh;
  bool vh_given = false;
  std::string ops = "allreduce,bcast,reduce,gather,barrier";
  std::string sizes = "8,4K,64K,1M";
  std::string base_case;
  bool base_case_given = false;
  std::string alpha, beta, gamma, contention, tuning;
  bool recommend = false;
  bool json = false;
  bool heap = false;
};

int fail(const std::string& msg) {
  std::fprintf(stderr, "osmp-model: %s\n", msg.c_str());
  return 2;
}

// Returns 0 to go on, 1 when done (help), 2 on a bad command line.
int parse(int argc, char** argv, Options& o) {
  const std::vector<std::pair<std::string, std::string*>> valued = {{"--topology", &o.where.topology},
                                                                    {"--map-by", &o.where.map_by},
                                                                    {"--bind-to", &o.where.bind_to},
                                                                    {"--vh", &o.vh},
                                                                    {"--op", &o.ops},
                                                                    {"--sizes", &o.sizes},
                                                                    {"--base-case", &o.base_case},
                                                                    {"--alpha", &o.alpha},
                                                                    {"--beta", &o.beta},
                                                                    {"--gamma", &o.gamma},
                                                                    {"--contention", &o.contention},
                                                                    {"--tuning", &o.tuning}};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") return std::fputs(kUsage.c_str(), stdout), 1;
    if (a == "--version") return osmp::build_info::print_version("osmp-model"), 1;
    if (a == "--heap") {
      o.heap = true;
      continue;
    }
    if (a == "--json" || a == "--recommend" || a == "--oversubscribe") {
      (a == "--json" ? o.json : a == "--recommend" ? o.recommend : o.where.oversubscribe) = true;
      continue;
    }
    std::string* slot = nullptr;
    for (const auto& [name, target] : valued)
      if (a == name) slot = target;
    if (slot == nullptr && a != "-n" && a != "--np") return fail("unknown option '" + a + "' (see -h)");
    if (i + 1 >= argc) return fail(a + " needs a value");
    const char* v = argv[++i];
    if (slot != nullptr) {
      *slot = v;
      o.where.topology_given |= a == "--topology";
      o.vh_given |= a == "--vh";
      o.base_case_given |= a == "--base-case";
      continue;
    }
    auto n = osmp::parse_int(v, 1, 1 << 20, "process count (-n)");
    if (!n.ok()) return fail(n.status().message());
    o.where.np = static_cast<int>(*n);
  }
  return 0;
}

osmp::Status bad(const std::string& option, const std::string& what) {
  return osmp::Status(osmp::Errc::invalid_argument, osmp::cat(option, ": ", what));
}

osmp::Result<double> number(std::string_view text, const std::string& option, bool zero_ok = false) {
  std::string s(osmp::trim(text));
  char* end = nullptr;
  double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || (v == 0 && !zero_ok))
    return bad(option, osmp::cat("'", s, "' is not a ", zero_ok ? "non-negative" : "positive", " number"));
  return v;
}

osmp::Result<std::vector<osmp::OpKind>> parse_ops(const std::string& list) {
  std::vector<osmp::OpKind> ops;
  for (std::string_view item : osmp::split(list, ',')) {
    auto kind = osmp::parse_op_kind(osmp::trim(item));
    if (!kind.ok()) {
      std::string known;
      for (osmp::OpKind k : osmp::kOpKinds) known += osmp::cat(known.empty() ? "" : ", ", osmp::to_string(k));
      return bad("--op", osmp::cat("unknown operation '", osmp::trim(item), "' (expected ", known, ")"));
    }
    ops.push_back(*kind);
  }
  return ops;
}

osmp::Result<std::vector<std::size_t>> parse_sizes(const std::string& list) {
  std::vector<std::size_t> sizes;
  for (std::string_view item : osmp::split(list, ',')) {
    auto v = osmp::parse_size(osmp::trim(item), "--sizes");
    if (!v.ok()) return v.status();
    if (*v == 0 || *v > (1ull << 40)) return bad("--sizes", osmp::cat("'", osmp::trim(item), "' is not in 1 .. 1T"));
    sizes.push_back(static_cast<std::size_t>(*v));
  }
  return sizes;
}

// Sets alpha or beta of the levels named in "LEVEL=VALUE,...".
osmp::Status apply_level_costs(const std::string& list, const std::string& option, const osmp::MachineTree& machine,
                               osmp::Calibration& cal) {
  for (std::string_view item : osmp::split(list, ',')) {
    auto eq = item.find('=');
    if (eq == std::string_view::npos) return bad(option, osmp::cat("'", osmp::trim(item), "' is not LEVEL=VALUE"));
    std::string_view name = osmp::trim(item.substr(0, eq));
    auto canon = osmp::canonical_level(name);
    osmp::LevelCost* entry = nullptr;
    for (auto& l : cal.levels)
      if (canon && l.level == *canon) entry = &l;
    if (entry == nullptr) {
      return bad(option, osmp::cat("unknown level '", name,
                                   "' (levels of this topology: ", osmp::join(machine.level_names(), ", "), ")"));
    }
    OSMP_ASSIGN_OR_RETURN(double v, number(item.substr(eq + 1), option));
    if (option == "--alpha") entry->alpha_us = v;
    if (option == "--beta") entry->beta_us_per_kib = osmp::us_per_kib(v);
  }
  return {};
}

// The costs to model with: typical figures for the machine, then what the
// command line says. (A calibration read from a tuning file would take the
// place of default_calibration() here.)
osmp::Result<osmp::Calibration> calibration_from(const Options& o, const osmp::MachineTree& machine) {
  osmp::Calibration cal = osmp::default_calibration(machine);
  if (!o.tuning.empty()) {
    OSMP_ASSIGN_OR_RETURN(osmp::TuningFile f, osmp::load_tuning(o.tuning));
    if (f.calibration.empty())
      return osmp::Status(osmp::Errc::invalid_argument, osmp::cat("--tuning: ", o.tuning, " holds no calibration"));
    // Measured levels replace the typical ones; levels it lacks keep theirs.
    for (const auto& l : f.calibration.levels) {
      bool found = false;
      for (auto& mine : cal.levels)
        if (mine.level == l.level) mine = l, found = true;
      if (!found) cal.levels.push_back(l);
    }
    cal.gamma_us_per_kib = f.calibration.gamma_us_per_kib;
    cal.contention = f.calibration.contention;
    cal.cma_call_us = f.calibration.cma_call_us;
    cal.cma_us_per_kib = f.calibration.cma_us_per_kib;
    cal.source = osmp::cat(f.calibration.source, " (", o.tuning, ", ", f.created, ")");
  }
  if (!o.alpha.empty()) OSMP_RETURN_IF_ERROR(apply_level_costs(o.alpha, "--alpha", machine, cal));
  if (!o.beta.empty()) OSMP_RETURN_IF_ERROR(apply_level_costs(o.beta, "--beta", machine, cal));
  if (!o.gamma.empty()) {
    OSMP_ASSIGN_OR_RETURN(cal.gamma_us_per_kib, number(o.gamma, "--gamma", true));
  }
  if (!o.contention.empty()) {
    OSMP_ASSIGN_OR_RETURN(cal.contention, number(o.contention, "--contention", true));
  }
  if (!o.alpha.empty() || !o.beta.empty() || !o.gamma.empty() || !o.contention.empty())
    cal.source += ", with costs given on the command line";
  return cal;
}

std::string size_text(std::size_t b) {
  if (b >= (1u << 30) && b % (1u << 30) == 0) return osmp::cat(b >> 30, "G");
  if (b >= (1u << 20) && b % (1u << 20) == 0) return osmp::cat(b >> 20, "M");
  if (b >= 1024 && b % 1024 == 0) return osmp::cat(b >> 10, "K");
  return osmp::cat(b);
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string tree_summary(const osmp::Tree& t) {
  std::vector<std::string> parts;
  for (const auto& l : t.levels()) {
    if (l.groups == 0) continue;
    parts.push_back(
        osmp::cat(l.name, l.is_virtual ? "(v)" : "", " ", l.groups, "x",
                  l.min_group == l.max_group ? osmp::cat(l.max_group) : osmp::cat(l.min_group, "-", l.max_group)));
  }
  return parts.empty() ? "no groups (one process)" : osmp::join(parts, "  ");
}

// The machine and its costs, for the text output.
std::string describe_costs(const osmp::Calibration& cal) {
  std::string out = osmp::cat(
      "costs: ", cal.source, "\n", "  gamma ", fmt("%.3f", cal.gamma_us_per_kib), " us/KiB, contention ",
      fmt("%.2f", cal.contention), " per extra reader\n", "  CMA ", fmt("%.2f", cal.cma_call_us), " us per call, ",
      fmt("%.1f", osmp::gb_per_s(cal.cma_us_per_kib)), " GB/s\n", "  level        alpha(us)  beta(GB/s)\n");
  for (const auto& l : cal.levels) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "  %-12s %9.3f  %10.1f\n", l.level.c_str(), l.alpha_us,
                  osmp::gb_per_s(l.beta_us_per_kib));
    out += buf;
  }
  return out;
}

// The inputs every mode shares.
struct Setup {
  osmp::MachineTree machine;
  std::string topology;
  int nprocs = 0;
  std::string placement;  // "map-by core, bind-to core"
  std::vector<osmp::CpuSet> places;
  osmp::BuildOptions build;
  osmp::Calibration cal;
  osmp::CollectiveConfig config;
  osmp::Workload work;
  osmp::ModelOptions model;  // --heap
};

osmp::Status set_up(const Options& o, Setup& s) {
  OSMP_ASSIGN_OR_RETURN(osmp::Placed placed, osmp::load_and_place(o.where));
  s.machine = placed.topology.machine();
  s.topology = placed.topology.describe();
  s.places = std::move(placed.places);
  s.nprocs = placed.request.nprocs;
  s.placement = placed.placement;
  s.build.allow_oversubscribe = o.where.oversubscribe;
  OSMP_ASSIGN_OR_RETURN(s.config, osmp::CollectiveConfig::from_env());
  if (o.base_case_given) OSMP_RETURN_IF_ERROR(s.config.set_base_cases(o.base_case).prefix("--base-case"));
  OSMP_ASSIGN_OR_RETURN(s.work.ops, parse_ops(o.ops));
  OSMP_ASSIGN_OR_RETURN(s.work.sizes, parse_sizes(o.sizes));
  s.model.in_heap = o.heap;
  OSMP_ASSIGN_OR_RETURN(s.cal, calibration_from(o, s.machine));
  return {};
}

// --- text ------------------------------------------------------------------

std::string prediction_text(const osmp::Prediction& p) {
  std::string out =
      osmp::cat(osmp::to_string(p.op), " ", size_text(p.bytes), ": ", fmt("%.3f", p.us), " us (", p.path, ")\n");
  if (p.terms.empty()) return out;
  out += "  phase         depth  level          groups  size  base        costs of        bytes        us\n";
  for (const auto& t : p.terms) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "  %-12s  %5d  %-13s  %6d  %4d  %-10s  %-10s %11.0f %9.3f\n", t.phase.c_str(),
                  t.depth, t.level.c_str(), t.groups, t.group_size, t.base.c_str(), t.cost_level.c_str(), t.bytes,
                  t.us);
    out += buf;
  }
  return out;
}

std::string pad(const std::string& v, std::size_t width) {
  return v.size() >= width ? v : std::string(width - v.size(), ' ') + v;
}

// One row per name: its extra columns, then one column per op and size.
using Grid = std::vector<std::vector<double>>;  // [op][size]
std::string us_table(const Setup& s, const std::vector<std::string>& names, const std::vector<Grid>& us,
                     const std::vector<std::string>& extra_name, const std::vector<std::vector<std::string>>& extra) {
  std::size_t w = 4;
  for (const auto& n : names) w = std::max(w, n.size());
  std::vector<std::size_t> ew;
  for (std::size_t e = 0; e < extra_name.size(); ++e) {
    ew.push_back(extra_name[e].size());
    for (const auto& row : extra) ew[e] = std::max(ew[e], row[e].size());
  }
  std::vector<std::string> cols;
  for (auto op : s.work.ops)
    for (auto b : s.work.sizes) cols.push_back(osmp::cat(osmp::to_string(op), " ", size_text(b)));
  std::string out(w, ' ');
  for (std::size_t e = 0; e < extra_name.size(); ++e) out += "  " + pad(extra_name[e], ew[e]);
  for (const auto& c : cols) out += "  " + pad(c, 12);
  out += "\n";
  for (std::size_t r = 0; r < names.size(); ++r) {
    out += names[r] + std::string(w - names[r].size(), ' ');
    for (std::size_t e = 0; e < extra_name.size(); ++e) out += "  " + pad(extra[r][e], ew[e]);
    std::size_t c = 0;
    for (const auto& per_op : us[r])
      for (double v : per_op) out += "  " + pad(fmt("%.3f", v), std::max<std::size_t>(12, cols[c++].size()));
    out += "\n";
  }
  return out;
}

std::string recommend_text(const Setup& s, const osmp::Recommendation& r) {
  const std::string over = r.levels.empty() ? "no level (no group has 4 or more members)" : osmp::join(r.levels, ", ");
  std::string out = osmp::cat("candidates: ", r.candidates.size(), " specs over ", over,
                              r.exhaustive ? " (every combination)" : " (greedy, level by level)", "\n");
  out += "predicted latency, us; score: geometric mean over every op and size\n";
  std::vector<std::string> names;
  std::vector<Grid> us;
  std::vector<std::vector<std::string>> extra;
  for (const auto& c : r.candidates) {
    names.push_back(c.spec);
    us.push_back(c.us);
    extra.push_back({osmp::cat(c.levels), fmt("%.3f", c.score_us)});
  }
  out += us_table(s, names, us, {"levels", "score"}, extra);
  for (std::size_t op = 0; op < s.work.ops.size(); ++op)
    out += osmp::cat("best for ", osmp::to_string(s.work.ops[op]), ": ", r.best_per_op[op], "\n");
  out += osmp::cat("recommended: ", r.best, "\n");
  return out;
}

// --- JSON ------------------------------------------------------------------

std::string jstr(const std::string& v) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : v) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += '\\';
    if (u < 0x20) {
      out += osmp::cat("\\u00", kHex[u >> 4], kHex[u & 15]);
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string jnum(double v) { return fmt("%.6g", v); }

std::string calibration_json(const osmp::Calibration& cal) {
  std::string out = osmp::cat("{\"source\": ", jstr(cal.source), ", \"gamma_us_per_kib\": ", jnum(cal.gamma_us_per_kib),
                              ", \"contention\": ", jnum(cal.contention), ", \"cma_call_us\": ", jnum(cal.cma_call_us),
                              ", \"cma_us_per_kib\": ", jnum(cal.cma_us_per_kib), ", \"levels\": [");
  for (std::size_t i = 0; i < cal.levels.size(); ++i) {
    const auto& l = cal.levels[i];
    out += osmp::cat(i ? ", " : "", "{\"level\": ", jstr(l.level), ", \"alpha_us\": ", jnum(l.alpha_us),
                     ", \"beta_us_per_kib\": ", jnum(l.beta_us_per_kib), "}");
  }
  return out + "]}";
}

std::string prediction_json(const osmp::Prediction& p) {
  std::string out = osmp::cat("{\"op\": ", jstr(osmp::to_string(p.op)), ", \"bytes\": ", p.bytes,
                              ", \"us\": ", jnum(p.us), ", \"path\": ", jstr(p.path), ", \"terms\": [");
  for (std::size_t i = 0; i < p.terms.size(); ++i) {
    const auto& t = p.terms[i];
    out += osmp::cat(i ? ", " : "", "{\"phase\": ", jstr(t.phase), ", \"depth\": ", t.depth,
                     ", \"level\": ", jstr(t.level), ", \"cost_level\": ", jstr(t.cost_level),
                     ", \"groups\": ", t.groups, ", \"group_size\": ", t.group_size, ", \"base\": ", jstr(t.base),
                     ", \"bytes\": ", jnum(t.bytes), ", \"us\": ", jnum(t.us), "}");
  }
  return out + "]}";
}

std::string recommend_json(const Setup& s, const osmp::Recommendation& r) {
  std::vector<std::string> levels, best, cands;
  for (const auto& l : r.levels) levels.push_back(jstr(l));
  for (std::size_t op = 0; op < s.work.ops.size(); ++op)
    best.push_back(osmp::cat(jstr(osmp::to_string(s.work.ops[op])), ": ", jstr(r.best_per_op[op])));
  for (const auto& c : r.candidates) {
    std::vector<std::string> ops;
    for (std::size_t op = 0; op < s.work.ops.size(); ++op) {
      std::vector<std::string> sizes;
      for (std::size_t b = 0; b < s.work.sizes.size(); ++b)
        sizes.push_back(osmp::cat("\"", s.work.sizes[b], "\": ", jnum(c.us[op][b])));
      ops.push_back(osmp::cat(jstr(osmp::to_string(s.work.ops[op])), ": {", osmp::join(sizes, ", "), "}"));
    }
    cands.push_back(osmp::cat("{\"spec\": ", jstr(c.spec), ", \"levels\": ", c.levels,
                              ", \"score_us\": ", jnum(c.score_us), ", \"us\": {", osmp::join(ops, ", "), "}}"));
  }
  return osmp::cat("{\"levels\": [", osmp::join(levels, ", "), "], \"exhaustive\": ", r.exhaustive ? "true" : "false",
                   ", \"best\": ", jstr(r.best), ", \"best_per_op\": {", osmp::join(best, ", "), "}, \"candidates\": [",
                   osmp::join(cands, ",\n  "), "]}");
}

// --- modes -----------------------------------------------------------------

// What every output starts with: the machine, the placement, the costs.
std::string opening(const Setup& s, bool json) {
  if (json) {
    return osmp::cat("{\"topology\": ", jstr(s.topology), ", \"processes\": ", s.nprocs,
                     ", \"placement\": ", jstr(s.placement), ",\n \"calibration\": ", calibration_json(s.cal));
  }
  return osmp::cat("topology: ", s.topology, "\nprocesses: ", s.nprocs, " (", s.placement, ")\n");
}

int print(const std::string& out) {
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int run_recommend(const Setup& s, bool json) {
  auto r = osmp::recommend(s.machine, s.places, s.build, s.cal, s.config, s.work, s.model);
  if (!r.ok()) return fail(r.status().message());
  if (json) return print(osmp::cat(opening(s, true), ",\n \"recommendation\": ", recommend_json(s, *r), "}\n"));
  return print(osmp::cat(opening(s, false), describe_costs(s.cal), "\n", recommend_text(s, *r)));
}

int run_predict(const Setup& s, const osmp::VhSpec& spec, bool json) {
  auto tree = osmp::build_tree(s.machine, s.places, s.build, spec);
  if (!tree.ok()) return fail(tree.status().message());
  std::vector<osmp::Prediction> all;
  std::vector<std::vector<double>> us;
  for (auto op : s.work.ops) {
    us.emplace_back();
    for (auto b : s.work.sizes) {
      auto p = osmp::predict(*tree, s.cal, s.config, op, b, s.model);
      if (!p.ok()) return fail(p.status().message());
      us.back().push_back(p->us);
      all.push_back(std::move(p).value());
    }
  }
  const std::string spec_text = spec.empty() ? "none" : spec.text;
  if (json) {
    std::vector<std::string> preds;
    for (const auto& p : all) preds.push_back(prediction_json(p));
    return print(osmp::cat(opening(s, true), ", \"spec\": ", jstr(spec_text), ", \"tree\": ", jstr(tree_summary(*tree)),
                           ",\n \"predictions\": [", osmp::join(preds, ",\n  "), "]}\n"));
  }
  std::string out =
      osmp::cat(opening(s, false), "virtual hierarchy: ", spec_text, "\ntree: ", tree_summary(*tree), "\n",
                describe_costs(s.cal), "\npredicted latency, us\n", us_table(s, {spec_text}, {us}, {}, {}));
  for (const auto& p : all) out += "\n" + prediction_text(p);
  return print(out);
}

}  // namespace

namespace {
int run(int argc, char** argv) {
  Options o;
  if (int rc = parse(argc, argv, o)) return rc == 1 ? 0 : rc;
  Setup s;
  if (auto st = set_up(o, s); !st.ok()) return fail(st.message());
  if (o.recommend) {
    if (o.vh_given) return fail("--vh and --recommend do not go together (--recommend tries every spec)");
    return run_recommend(s, o.json);
  }
  auto spec = o.vh_given ? osmp::parse_spec(o.vh) : osmp::spec_from_env();
  if (!spec.ok()) return fail(spec.status().message());
  return run_predict(s, *spec, o.json);
}
}  // namespace

int main(int argc, char** argv) {
  return osmp::guarded_main("osmp-model", [&] { return run(argc, argv); });
}
