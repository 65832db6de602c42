// recommend(): virtual-hierarchy specs ranked by the model (model.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/strings.hpp"
#include "tuning/model.hpp"
#include "virtual_hier/split.hpp"

namespace osmp {

namespace {

struct SplitLevel {
  std::string name;
  int max_degree;
};

std::string spec_text(const std::vector<SplitLevel>& levels, const std::vector<int>& degrees) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < levels.size(); ++i)
    if (degrees[i] > 1) items.push_back(cat(levels[i].name, ":", degrees[i]));
  return items.empty() ? "none" : join(items, ",");
}

// Two specs that give the same groups give the same predictions.
std::string signature(const Tree& t) {
  std::string s;
  for (const Domain& d : t.domains()) {
    s += d.level + ":";
    for (int r : d.group) s += cat(r, ",");
    s += ";";
  }
  return s;
}

double geomean(const std::vector<double>& v) {
  double logs = 0;
  for (double x : v) {
    if (x <= 0) return 0;
    logs += std::log(x);
  }
  return v.empty() ? 0 : std::exp(logs / static_cast<double>(v.size()));
}

// Scores equal to the picosecond are ties (summation order must not decide).
long long quantum(double us) { return std::llround(us * 1e6); }

long long degree_product(const Candidate& c) {
  long long p = 1;
  for (int d : c.degrees) p *= d;
  return p;
}

bool better(double a, double b, const Candidate& x, const Candidate& y) {
  if (quantum(a) != quantum(b)) return quantum(a) < quantum(b);
  if (x.levels != y.levels) return x.levels < y.levels;
  if (degree_product(x) != degree_product(y)) return degree_product(x) < degree_product(y);
  return x.degrees < y.degrees;
}

int group_levels(const Tree& t) {
  int n = 0;
  for (const auto& l : t.levels()) n += l.groups > 0;
  return n;
}

class Search {
 public:
  Search(const TreeBuilder& build, const Calibration& cal, const CollectiveConfig& cfg, const Workload& work,
         const ModelOptions& opt)
      : build_(build), cal_(cal), cfg_(cfg), work_(work), opt_(opt) {}

  std::vector<SplitLevel> levels;
  std::vector<Candidate> found;

  // Predicts the candidate with these degrees (once): its index in `found`,
  // or -1 when its tree is one seen before.
  Result<int> evaluate(const std::vector<int>& degrees) {
    if (auto it = by_degrees_.find(degrees); it != by_degrees_.end()) return it->second;
    by_degrees_[degrees] = -1;
    Candidate c;
    c.spec = spec_text(levels, degrees);
    c.degrees = degrees;
    OSMP_ASSIGN_OR_RETURN(VhSpec spec, parse_spec(c.spec));
    OSMP_ASSIGN_OR_RETURN(Tree tree, build_(spec));
    if (!seen_.insert(signature(tree)).second) return -1;
    c.levels = group_levels(tree);
    std::vector<double> all;
    for (OpKind op : work_.ops) {
      c.us.emplace_back();
      for (std::size_t bytes : work_.sizes) {
        OSMP_ASSIGN_OR_RETURN(Prediction p, predict(tree, cal_, cfg_, op, bytes, opt_));
        c.us.back().push_back(p.us);
        all.push_back(p.us);
      }
      c.op_us.push_back(geomean(c.us.back()));
    }
    c.score_us = geomean(all);
    found.push_back(std::move(c));
    return by_degrees_[degrees] = static_cast<int>(found.size()) - 1;
  }

  Status exhaustive() {
    std::vector<int> d(levels.size(), 1);
    while (true) {
      OSMP_RETURN_IF_ERROR(evaluate(d).status());
      std::size_t i = levels.size();
      while (i > 0 && d[i - 1] == levels[i - 1].max_degree) d[--i] = 1;
      if (i == 0) return {};
      ++d[i - 1];
    }
  }

  // Top-down, each level's best degree with the levels above fixed.
  Status greedy() {
    std::vector<int> d(levels.size(), 1);
    for (std::size_t i = 0; i < levels.size(); ++i) {
      int best = 1, best_c = -1;
      for (int k = 1; k <= levels[i].max_degree; ++k) {
        d[i] = k;
        OSMP_ASSIGN_OR_RETURN(int c, evaluate(d));
        if (c < 0) continue;
        const Candidate& x = found[static_cast<std::size_t>(c)];
        if (best_c < 0 || better(x.score_us, found[static_cast<std::size_t>(best_c)].score_us, x,
                                 found[static_cast<std::size_t>(best_c)]))
          best = k, best_c = c;
      }
      d[i] = best;
    }
    return {};
  }

 private:
  const TreeBuilder& build_;
  const Calibration& cal_;
  const CollectiveConfig& cfg_;
  const Workload& work_;
  ModelOptions opt_;
  std::map<std::vector<int>, int> by_degrees_;
  std::set<std::string> seen_;
};

}  // namespace

Result<Recommendation> recommend(const TreeBuilder& build, const Calibration& cal, const CollectiveConfig& config,
                                 const Workload& work, const ModelOptions& options) {
  if (work.ops.empty() || work.sizes.empty()) {
    return Status(Errc::invalid_argument, "recommend: no operation or no size to weigh");
  }
  OSMP_ASSIGN_OR_RETURN(Tree base, build(VhSpec{}));
  Search s(build, cal, config, work, options);
  std::size_t combos = 1;
  for (const LevelInfo& l : base.levels()) {
    if (l.is_virtual || l.max_group < kMinSplitMembers) continue;
    s.levels.push_back({l.name, std::min(l.max_group - 1, kMaxDegree)});
    combos = std::min<std::size_t>(combos * static_cast<std::size_t>(s.levels.back().max_degree), kMaxExhaustive + 1);
  }
  Recommendation r;
  r.exhaustive = combos <= kMaxExhaustive;
  OSMP_RETURN_IF_ERROR(r.exhaustive ? s.exhaustive() : s.greedy());
  for (const auto& l : s.levels) r.levels.push_back(l.name);
  r.candidates = std::move(s.found);
  std::sort(r.candidates.begin(), r.candidates.end(),
            [](const Candidate& a, const Candidate& b) { return better(a.score_us, b.score_us, a, b); });
  r.best = r.candidates.front().spec;
  for (std::size_t op = 0; op < work.ops.size(); ++op) {
    const Candidate* best = &r.candidates.front();
    for (const Candidate& c : r.candidates)
      if (better(c.op_us[op], best->op_us[op], c, *best)) best = &c;
    r.best_per_op.push_back(best->spec);
  }
  return r;
}

Result<Recommendation> recommend(const MachineTree& machine, std::span<const CpuSet> places,
                                 const BuildOptions& build_options, const Calibration& cal,
                                 const CollectiveConfig& config, const Workload& work, const ModelOptions& options) {
  TreeBuilder build = [&](const VhSpec& spec) { return build_tree(machine, places, build_options, spec); };
  return recommend(build, cal, config, work, options);
}

}  // namespace osmp
