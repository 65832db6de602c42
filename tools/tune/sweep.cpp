#include "tools/tune/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "api/access.hpp"
#include "collectives/config.hpp"
#include "core/strings.hpp"
#include "team/team.hpp"

namespace osmp::tune {
namespace {

constexpr const char* kBaseCases[] = {"flat", "knomial:2", "knomial:4"};
constexpr const char* kSymmetric[] = {"0", "4", "16"};           // default 8
constexpr const char* kCmaMin[] = {"64K", "256K", "1M", "64M"};  // default auto (per operation); 64M: off
constexpr std::size_t kSmall = 4096, kLarge = 256 * 1024;

// Every setting a profile has, at osmp's defaults: the sweep starts there.
Settings defaults() {
  CollectiveConfig c;
  return {{"OSMP_VH", ""},
          {"OSMP_BASE_CASE", "auto"},
          {"OSMP_FLAT_MAX", cat(c.flat_max)},
          {"OSMP_KNOMIAL_RADIX", cat(c.radix)},
          {"OSMP_SYMMETRIC_MAX", cat(c.sym_max)},
          {"OSMP_SYMMETRIC_SLOT_MAX", cat(c.sym_slot_max)},
          {"OSMP_CMA", "auto"},
          {"OSMP_CMA_MIN", "auto"},
          {"OSMP_CMA_MAX", cat(c.cma_range.max)}};
}

std::vector<std::size_t> sizes_of(const Plan& p, OpKind op) {
  return moves_data(op) ? p.sizes : std::vector<std::size_t>{0};
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(std::max(x, 1e-3));
  return v.empty() ? 0 : std::exp(s / static_cast<double>(v.size()));
}

// The groups a spec gives, as text: equal texts are the same tree.
std::string shape(const TeamCore& core, const std::string& vh) {
  auto tree = core.tree_with(vh);
  if (!tree.ok()) return "";
  std::string s;
  for (const auto& d : tree->domains()) {
    if (!d.has_group()) continue;
    for (int r : d.group) s += cat(r, ",");
    s += ";";
  }
  return s;
}

class Runner {
 public:
  Runner(Team& t, const Plan& p, const Progress& progress, int total)
      : t_(t),
        plan_(p),
        progress_(progress),
        total_(total),
        buffers_(t.size(), *std::max_element(p.sizes.begin(), p.sizes.end())) {}

  // Times `op` at `bytes` with `settings` on that operation (and `team` for all).
  Result<double> point(OpKind op, std::size_t bytes, const std::string& stage, const Settings& op_settings,
                       const Settings& team = {}) {
    if (t_.rank() == 0 && progress_)
      progress_(done_, total_, cat(op_label(op), " ", bytes, " B ", describe(op_settings), describe(team)));
    OSMP_RETURN_IF_ERROR(t_.configure(team, {{op, op_settings}}));
    OSMP_ASSIGN_OR_RETURN(double us, time_op(t_, op, bytes, buffers_, plan_.target_us, plan_.reps));
    Settings all = op_settings;
    for (const auto& [k, v] : team) all[k] = v;
    out_.points.push_back({op, bytes, stage, describe(all), all, us});
    ++done_;
    return us;
  }

  // Geometric mean over the op's sizes (those in `only` when given).
  Result<double> score(OpKind op, const std::string& stage, const Settings& s, const Settings& team = {},
                       const std::vector<std::size_t>& only = {}) {
    std::vector<double> v;
    for (std::size_t b : only.empty() ? sizes_of(plan_, op) : only) {
      OSMP_ASSIGN_OR_RETURN(double us, point(op, b, stage, s, team));
      v.push_back(us);
    }
    return geomean(v);
  }

  // Points counted in the plan that will not run (no confirmation needed).
  void skip(int points) { total_ -= points; }
  Outcome& out() { return out_; }
  Team& team() { return t_; }
  const Plan& plan() const { return plan_; }

 private:
  Team& t_;
  const Plan& plan_;
  const Progress& progress_;
  int total_, done_ = 0;
  Buffers buffers_;
  Outcome out_;
};

// The levels of the tree `vh` gives whose groups have three or more members
// (where flat and k-nomial differ), top-down.
std::vector<std::string> split_levels(const TeamCore& core, const std::string& vh) {
  std::vector<std::string> out;
  auto tree = core.tree_with(vh);
  if (!tree.ok()) return out;
  for (const auto& l : tree->levels())
    if (l.max_group > 2) out.push_back(l.name);
  return out;
}

// "L3Cache=flat,Package-v1=knomial:2,*=auto" (OSMP_BASE_CASE syntax).
std::string base_spec(const std::map<std::string, std::string>& per_level) {
  std::string s;
  for (const auto& [level, c] : per_level) s += cat(level, "=", c, ",");
  return s + "*=auto";
}

Settings profile(const std::string& vh, const std::string& base) { return {{"OSMP_VH", vh}, {"OSMP_BASE_CASE", base}}; }

// A winner of the sweep against the defaults again, interleaved, best of
// three each: on a shared or oversubscribed machine one lucky loop must not
// decide.
Result<Settings> confirm(Runner& r, OpKind op, const Settings& best) {
  double def = 1e300, cand = 1e300;
  for (int i = 0; i < 3; ++i) {
    OSMP_ASSIGN_OR_RETURN(double d, r.score(op, "confirm-default", profile("", "auto")));
    OSMP_ASSIGN_OR_RETURN(double c, r.score(op, "confirm", best));
    def = std::min(def, d);
    cand = std::min(cand, c);
  }
  return cand < def * (1 - r.plan().min_gain) ? best : profile("", "auto");
}

// The virtual hierarchy, then the base case, for one operation.
Result<Settings> tune_op(Runner& r, OpKind op, const std::vector<std::string>& specs, bool bases) {
  OSMP_ASSIGN_OR_RETURN(const double base_score, r.score(op, "default", profile("", "auto")));
  Settings best = profile("", "auto");
  double best_score = base_score;
  for (const auto& vh : specs) {
    if (vh.empty()) continue;
    OSMP_ASSIGN_OR_RETURN(double s, r.score(op, "vh", profile(vh, "auto")));
    if (s < best_score) best_score = s, best = profile(vh, "auto");
  }
  if (bases) {
    // Every level alike, then level by level (LEVEL=CASE, the others as
    // chosen so far): the levels of the tree this operation now runs on.
    const int n = static_cast<int>(sizes_of(r.plan(), op).size());
    const auto levels = split_levels(core_of(r.team()), best["OSMP_VH"]);
    r.skip(-3 * n * static_cast<int>(levels.size()));  // the plan counted the all-levels round only
    for (const char* b : kBaseCases) {
      Settings cand = profile(best["OSMP_VH"], b);
      OSMP_ASSIGN_OR_RETURN(double s, r.score(op, "base", cand));
      if (s < best_score) best_score = s, best = cand;
    }
    std::map<std::string, std::string> per_level;
    for (const auto& level : levels) {
      for (const char* b : kBaseCases) {
        auto trial = per_level;
        trial[level] = b;
        Settings cand = profile(best["OSMP_VH"], base_spec(trial));
        OSMP_ASSIGN_OR_RETURN(double s, r.score(op, "base", cand));
        if (s < best_score) best_score = s, best = cand, per_level = trial;
      }
    }
  }
  if (best_score > base_score * (1 - r.plan().min_gain)) {
    r.skip(6 * static_cast<int>(sizes_of(r.plan(), op).size()));
    return profile("", "auto");
  }
  return confirm(r, op, best);
}

// One team-wide threshold over the operations and sizes it affects.
// The best of `values` for setting `name` (each with the settings `with`
// too) against the defaults, or "" where none gains enough.
Result<std::string> tune_threshold(Runner& r, const char* name, const char* const* values, int n,
                                   const std::vector<OpKind>& ops, const std::vector<std::size_t>& sizes,
                                   const Settings& with = {}) {
  auto candidate = [&](const std::string& value) {
    Settings s = with;
    s[name] = value;
    return s;
  };
  auto back_to_defaults_settings = [&] {  // the defaults of every setting a candidate sets
    Settings s = with;
    s[name] = "";
    for (auto& [k, v] : s) v = defaults().at(k);
    return s;
  };
  auto back_to_defaults = [&] { return r.team().configure(back_to_defaults_settings()); };
  auto total = [&](const Settings& team, const std::string& stage) -> Result<double> {
    std::vector<double> v;
    for (OpKind op : ops) {
      OSMP_ASSIGN_OR_RETURN(double s, r.score(op, stage, profile("", "auto"), team,
                                              moves_data(op) ? sizes : std::vector<std::size_t>{0}));
      v.push_back(s);
    }
    return geomean(v);
  };
  OSMP_ASSIGN_OR_RETURN(const double base, total({}, "threshold"));
  std::string best;
  double best_score = base;
  for (int i = 0; i < n; ++i) {
    OSMP_ASSIGN_OR_RETURN(double s, total(candidate(values[i]), "threshold"));
    if (s < best_score) best_score = s, best = values[i];
  }
  if (best.empty() || best_score >= base * (1 - r.plan().min_gain)) {
    r.skip(6 * static_cast<int>(ops.size() * sizes.size()));
    OSMP_RETURN_IF_ERROR(back_to_defaults());
    return std::string();
  }
  // Confirmed against the default, interleaved, best of three each.
  double def = 1e300, cand = 1e300;
  for (int i = 0; i < 3; ++i) {
    OSMP_ASSIGN_OR_RETURN(double d, total(back_to_defaults_settings(), "confirm-default"));
    OSMP_ASSIGN_OR_RETURN(double c, total(candidate(best), "confirm"));
    def = std::min(def, d);
    cand = std::min(cand, c);
  }
  OSMP_RETURN_IF_ERROR(back_to_defaults());
  return cand < def * (1 - r.plan().min_gain) ? best : "";
}

std::vector<OpKind> present(const Plan& p, std::initializer_list<OpKind> want) {
  std::vector<OpKind> out;
  for (OpKind k : want)
    if (std::find(p.ops.begin(), p.ops.end(), k) != p.ops.end()) out.push_back(k);
  return out;
}

std::vector<std::size_t> sizes_where(const Plan& p, bool small) {
  std::vector<std::size_t> out;
  for (std::size_t b : p.sizes)
    if (small ? b <= kSmall : b >= kLarge) out.push_back(b);
  return out;
}

int max_group(const TeamCore& core) {
  int m = 0;
  for (const auto& l : core.tree().levels()) m = std::max(m, l.max_group);
  return m;
}

// The defaults and the choices, each timed twice, interleaved.
Status final_pass(Runner& r, const Outcome& chosen) {
  Team& t = r.team();
  for (int round = 0; round < 2; ++round) {
    // Alternating which goes first cancels any drift over the run.
    for (bool tuned : round == 0 ? std::vector<bool>{false, true} : std::vector<bool>{true, false}) {
      OSMP_RETURN_IF_ERROR(t.configure(defaults()));
      if (tuned && !chosen.team.empty()) OSMP_RETURN_IF_ERROR(t.configure(chosen.team));
      for (OpKind op : r.plan().ops) {
        Settings s = profile("", "auto");
        if (tuned && chosen.per_op.count(op)) s = chosen.per_op.at(op);
        for (std::size_t b : sizes_of(r.plan(), op))
          OSMP_RETURN_IF_ERROR(r.point(op, b, tuned ? "final-tuned" : "final-default", s).status());
      }
    }
  }
  OSMP_RETURN_IF_ERROR(t.configure(defaults()));
  if (!chosen.team.empty()) OSMP_RETURN_IF_ERROR(t.configure(chosen.team));
  for (const auto& [op, s] : chosen.per_op) OSMP_RETURN_IF_ERROR(t.configure({}, {{op, s}}));
  return {};
}

int count_points(const Plan& p, int specs, bool bases) {
  int per_op_sizes = 0;
  for (OpKind op : p.ops) per_op_sizes += static_cast<int>(sizes_of(p, op).size());
  // default, specs, base cases, a confirmation (at most), the final pass
  int n = per_op_sizes * (specs + (bases ? 3 : 0)) + 6 * per_op_sizes + 4 * per_op_sizes;
  if (p.thresholds) {
    int small = 0, large = 0;
    for (OpKind op : present(p, {OpKind::barrier, OpKind::bcast, OpKind::reduce, OpKind::allreduce}))
      small += moves_data(op) ? static_cast<int>(sizes_where(p, true).size()) : 1;
    large = static_cast<int>(present(p, {OpKind::gather, OpKind::allgather, OpKind::scatter}).size() *
                             sizes_where(p, false).size());
    n += (4 + 6) * small + (5 + 6) * large;
  }
  return n;
}

}  // namespace

std::string op_label(OpKind k) { return to_string(k); }

std::string describe(const Settings& s) {
  std::string out;
  for (const auto& [k, v] : s) {
    if (k == "OSMP_VH" && v.empty()) continue;
    if (k == "OSMP_BASE_CASE" && v == "auto") continue;
    out += cat(out.empty() ? "" : " ", k.substr(5), "=", v);
  }
  return out;
}

std::vector<std::string> vh_candidates(const TeamCore& core) {
  std::vector<std::string> out{""};
  std::set<std::string> seen{shape(core, "")};
  for (const auto& l : core.tree().levels()) {
    if (l.is_virtual || l.max_group < 3) continue;
    for (int d = 2; d <= std::min(l.max_group - 1, 8); ++d) {
      std::string spec = cat(l.name, ":", d);
      if (seen.insert(shape(core, spec)).second) out.push_back(spec);
    }
  }
  if (seen.insert(shape(core, "auto")).second) out.emplace_back("auto");
  return out;
}

Result<Outcome> sweep(Team& t, const Plan& plan, const Progress& progress) {
  OSMP_RETURN_IF_ERROR(t.configure(defaults()));
  const auto specs = vh_candidates(core_of(t));
  const bool bases = max_group(core_of(t)) > 2;
  Runner r(t, plan, progress, count_points(plan, static_cast<int>(specs.size()), bases));
  Outcome chosen;
  for (OpKind op : plan.ops) {
    OSMP_ASSIGN_OR_RETURN(Settings s, tune_op(r, op, specs, bases));
    if (s != profile("", "auto")) chosen.per_op[op] = s;
  }
  OSMP_RETURN_IF_ERROR(t.configure(defaults()));
  if (plan.thresholds) {
    auto small_ops = present(plan, {OpKind::barrier, OpKind::bcast, OpKind::reduce, OpKind::allreduce});
    auto small = sizes_where(plan, true);
    if (!small_ops.empty() && !small.empty()) {
      OSMP_ASSIGN_OR_RETURN(std::string v, tune_threshold(r, "OSMP_SYMMETRIC_MAX", kSymmetric, 3, small_ops, small));
      if (!v.empty()) chosen.team["OSMP_SYMMETRIC_MAX"] = v;
    }
    auto cma_ops = present(plan, {OpKind::bcast, OpKind::allreduce, OpKind::gather, OpKind::allgather, OpKind::scatter,
                                  OpKind::reduce_scatter_block});
    auto large = sizes_where(plan, false);
    if (!cma_ops.empty() && !large.empty()) {
      // With OSMP_CMA=1: the default, auto, may have found that CMA does not
      // pay here, where it still may from some size on.
      OSMP_ASSIGN_OR_RETURN(std::string v,
                            tune_threshold(r, "OSMP_CMA_MIN", kCmaMin, 4, cma_ops, large, {{"OSMP_CMA", "1"}}));
      if (!v.empty()) chosen.team["OSMP_CMA"] = "1", chosen.team["OSMP_CMA_MIN"] = v;
    }
  }
  OSMP_RETURN_IF_ERROR(final_pass(r, chosen));
  Outcome out = std::move(r.out());
  out.team = chosen.team;
  out.per_op = chosen.per_op;
  return out;
}

}  // namespace osmp::tune
