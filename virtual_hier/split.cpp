#include "virtual_hier/split.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/strings.hpp"
#include "topology/levels.hpp"

namespace osmp {
namespace {

// A member of a domain being split: a child domain or a directly placed rank.
struct Unit {
  int domain = -1;  // id in the raw domain vector, or -1 for a rank
  int rank = -1;
  int weight = 1;  // processes it holds
};

class Splitter {
 public:
  explicit Splitter(const Tree& tree) : tree_(tree), raw_(tree.domains()) {}

  Result<Tree> run(const VhSpec& spec, SpecReport* report) {
    OSMP_RETURN_IF_ERROR(validate(spec));
    for (const auto& item : spec.items)
      effects_.push_back({item.token, item.level, item.kind == SpecItem::Kind::degree, 0, 0, 0});
    // raw_ grows while we go: virtual domains are visited too, so that an
    // every-level limit (?N) also applies inside the parts of a LEVEL:D split.
    for (std::size_t d = 0; d < raw_.size(); ++d) split_domain(static_cast<int>(d), spec);
    if (report) *report = effects_;
    return Tree::from_domains(std::move(raw_), tree_.places());
  }

 private:
  Status validate(const VhSpec& spec) const {
    const auto& valid = tree_.machine_levels();
    for (const auto& item : spec.items) {
      if (item.level.empty() || std::find(valid.begin(), valid.end(), item.level) != valid.end()) continue;
      return Status(Errc::invalid_argument,
                    cat("virtual-hierarchy spec '", spec.text, "': unknown level '", item.level, "' in '", item.token,
                        "'; levels of this topology: ", join(valid, ", ")));
    }
    return {};
  }

  // Items for domain d, innermost level first, then the every-level ones.
  std::vector<const SpecItem*> items_for(const Domain& d, const VhSpec& spec) const {
    std::vector<std::pair<double, const SpecItem*>> found;
    for (const auto& item : spec.items) {
      if (item.level.empty()) {
        found.emplace_back(-1e9, &item);
        continue;
      }
      for (const auto& a : d.aliases)
        if (a.name == item.level) found.emplace_back(a.order, &item);
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<const SpecItem*> out;
    for (auto& f : found) out.push_back(f.second);
    return out;
  }

  std::vector<Unit> units_of(int d) const {
    std::vector<Unit> units;
    for (int c : raw_[d].children) units.push_back({c, -1, weight_of(c)});
    for (int r : raw_[d].direct) units.push_back({-1, r, 1});
    return units;
  }

  int weight_of(int d) const {
    int w = static_cast<int>(raw_[d].direct.size());
    for (int c : raw_[d].children) w += weight_of(c);
    return w;
  }

  void split_domain(int d, const VhSpec& spec) {
    std::vector<std::vector<int>> rounds;  // virtual domains made by each split, bottom-up
    for (const SpecItem* item : items_for(raw_[d], spec)) {
      SpecItemEffect& effect = effects_[static_cast<std::size_t>(item - spec.items.data())];
      const std::size_t before = rounds.size();
      ++effect.domains;
      effect.max_members = std::max(effect.max_members, static_cast<int>(units_of(d).size()));
      if (item->kind == SpecItem::Kind::degree) {
        rounds.push_back(split_once(d, item->value, /*by_weight=*/true));
      } else {
        while (static_cast<int>(units_of(d).size()) > item->value) {
          int units = static_cast<int>(units_of(d).size());
          int parts = (units + item->value - 1) / item->value;
          rounds.push_back(split_once(d, parts, /*by_weight=*/false));
        }
      }
      for (std::size_t r = before; r < rounds.size(); ++r)
        if (!rounds[r].empty()) {
          ++effect.split;
          break;
        }
    }
    name_virtual_levels(d, rounds);
  }

  // Partitions d's units into `parts` runs; each run of two or more units
  // becomes a virtual domain under d.
  std::vector<int> split_once(int d, int parts, bool by_weight) {
    std::vector<Unit> units = units_of(d);
    if (parts < 2 || units.size() < 2) return {};
    std::vector<int> weights;
    for (const auto& u : units) weights.push_back(by_weight ? u.weight : 1);
    std::vector<int> runs = balanced_runs(weights, std::min<int>(parts, static_cast<int>(units.size())));
    std::vector<int> children, direct, made;
    std::size_t next = 0;
    for (int len : runs) {
      std::vector<Unit> run(units.begin() + static_cast<long>(next),
                            units.begin() + static_cast<long>(next + static_cast<std::size_t>(len)));
      next += static_cast<std::size_t>(len);
      if (run.size() == 1) {
        if (run[0].domain >= 0)
          children.push_back(run[0].domain);
        else
          direct.push_back(run[0].rank);
        continue;
      }
      int v = make_virtual(d, run);
      children.push_back(v);
      made.push_back(v);
    }
    raw_[d].children = children;
    raw_[d].direct = direct;
    return made;
  }

  int make_virtual(int parent, const std::vector<Unit>& run) {
    Domain v;
    v.is_virtual = true;
    v.parent = parent;
    for (const auto& u : run) {
      if (u.domain >= 0) {
        v.children.push_back(u.domain);
        v.cpuset |= raw_[u.domain].cpuset;
        raw_[u.domain].parent = static_cast<int>(raw_.size());
      } else {
        v.direct.push_back(u.rank);
        v.cpuset |= raw_[parent].cpuset;  // a directly placed rank may run anywhere in parent
      }
    }
    raw_.push_back(std::move(v));
    return static_cast<int>(raw_.size()) - 1;
  }

  // The last split made the level nearest to d: it is v1, the first split the deepest.
  void name_virtual_levels(int d, const std::vector<std::vector<int>>& rounds) {
    std::vector<const std::vector<int>*> made;
    for (const auto& r : rounds)
      if (!r.empty()) made.push_back(&r);
    double base = 0;
    for (const auto& a : raw_[d].aliases) base = std::max(base, a.order);
    // Splits inside a virtual domain continue its numbering: Package-v1 -> Package-v2.
    std::string parent_level = tree_.domain(0).level;
    int first = 1;
    if (raw_[d].is_virtual) {
      const std::string& name = raw_[d].aliases.front().name;
      auto dash = name.rfind("-v");
      parent_level = name.substr(0, dash);
      first = std::stoi(name.substr(dash + 2)) + 1;
    } else {
      parent_level = tree_.domain(d).level;
    }
    int total = static_cast<int>(made.size());
    for (int i = 0; i < total; ++i) {
      int nesting = total - i;  // 1 = nearest to d
      for (int v : *made[static_cast<std::size_t>(i)]) {
        raw_[v].aliases = {
            LevelAlias{virtual_level_name(parent_level, first + nesting - 1), base + 0.001 * nesting, 0}};
      }
    }
  }

  const Tree& tree_;
  std::vector<Domain> raw_;
  SpecReport effects_;
};

// "Package:2 .. Package:11", "?2 .. ?7", or "" when no value would do.
std::string values_that_split(const SpecItemEffect& e) {
  const int lo = 2, hi = e.max_members - 1;  // D (or N) in [2, members - 1]
  if (hi < lo) return "";
  const std::string pre = e.level + (e.degree ? ":" : "?");
  return hi == lo ? cat(pre, lo) : cat(pre, lo, " .. ", pre, hi);
}

}  // namespace

std::vector<int> balanced_runs(std::span<const int> weights, int parts) {
  int n = static_cast<int>(weights.size());
  parts = std::clamp(parts, 1, std::max(n, 1));
  std::vector<long long> prefix(static_cast<std::size_t>(n) + 1, 0);
  for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + weights[static_cast<std::size_t>(i)];
  long long total = prefix[static_cast<std::size_t>(n)];
  std::vector<int> runs;
  int start = 0;
  for (int p = 1; p < parts; ++p) {
    // Cut where the prefix weight is closest to p/parts of the total, leaving
    // at least one unit for each remaining run; ties go to the later cut.
    double target = static_cast<double>(total) * p / parts;
    int best = start + 1;
    for (int j = start + 1; j <= n - (parts - p); ++j) {
      if (std::abs(static_cast<double>(prefix[j]) - target) <= std::abs(static_cast<double>(prefix[best]) - target))
        best = j;
    }
    runs.push_back(best - start);
    start = best;
  }
  runs.push_back(n - start);
  return runs;
}

Result<Tree> apply_spec(const Tree& tree, const VhSpec& spec, SpecReport* report) {
  if (report) report->clear();
  if (spec.empty()) return tree;
  return Splitter(tree).run(spec, report);
}

Result<Tree> build_tree(const MachineTree& machine, std::span<const CpuSet> places, const BuildOptions& options,
                        const VhSpec& spec, SpecReport* report) {
  OSMP_ASSIGN_OR_RETURN(Tree tree, build_tree(machine, places, options));
  return apply_spec(tree, spec, report);
}

std::vector<std::string> ineffective_items(const SpecReport& report) {
  std::vector<std::string> out;
  for (const SpecItemEffect& e : report) {
    if (e.split > 0) continue;
    const std::string what = e.level.empty() ? "group" : e.level + " domain";
    std::string why =
        e.domains == 0
            ? cat("no domain of this tree stands for ", e.level, " (its domains hold one process each, or none)")
            : cat("no ", what, " has more than ", e.max_members, e.max_members == 1 ? " member here" : " members here");
    const std::string would = values_that_split(e);
    out.push_back(cat("'", e.token, "' had no effect: ", why, "; ",
                      would.empty() ? std::string("no value would split it") : would + " would split it"));
  }
  return out;
}

}  // namespace osmp
