#include "topology/tree.hpp"

#include <algorithm>
#include <map>

#include "topology/levels.hpp"

namespace osmp {
namespace {

const LevelAlias& primary_alias(const std::vector<LevelAlias>& aliases) {
  return *std::min_element(aliases.begin(), aliases.end(), [](const auto& a, const auto& b) {
    int pa = level_naming_priority(a.name), pb = level_naming_priority(b.name);
    return pa != pb ? pa < pb : a.order < b.order;
  });
}

// Works on a scratch copy of the raw domains.
class Normalizer {
 public:
  explicit Normalizer(std::vector<Domain> raw) : raw_(std::move(raw)) {}

  std::vector<Domain> run() {
    count_members(0);
    emit(0, -1, 0);
    name_and_group();
    return std::move(out_);
  }

 private:
  void count_members(int d) {
    auto& dom = raw_[d];
    dom.members = dom.direct;
    for (int c : dom.children) {
      count_members(c);
      dom.members.insert(dom.members.end(), raw_[c].members.begin(), raw_[c].members.end());
    }
    std::sort(dom.members.begin(), dom.members.end());
  }

  // Folds chains of domains holding the same processes into one domain.
  // Physical over physical: the upper one stays and takes the lower one's
  // names. A virtual domain never survives a merge: it only exists to split.
  int collapse(int d) {
    for (;;) {
      auto& dom = raw_[d];
      std::vector<int> live;
      for (int c : dom.children)
        if (!raw_[c].members.empty()) live.push_back(c);
      dom.children = live;
      if (!dom.direct.empty() || dom.children.size() != 1) return d;
      int c = dom.children.front();
      if (dom.is_virtual) {
        d = c;  // the child replaces the virtual domain
        continue;
      }
      auto& child = raw_[c];
      if (!child.is_virtual) {
        dom.aliases.insert(dom.aliases.end(), child.aliases.begin(), child.aliases.end());
      }
      dom.children = child.children;
      dom.direct = child.direct;
    }
  }

  void emit(int d, int parent, int depth) {
    d = collapse(d);
    if (parent < 0 && raw_[d].is_virtual) raw_[d].is_virtual = false;  // never a virtual root
    int id = static_cast<int>(out_.size());
    out_.push_back(raw_[d]);
    out_[id].parent = parent;
    out_[id].depth = depth;
    out_[id].children.clear();
    if (parent >= 0) out_[parent].children.push_back(id);
    std::vector<int> kids = raw_[d].children;
    for (int c : kids) emit(c, id, depth + 1);
  }

  void name_and_group() {
    std::map<std::string, int> virtual_count;
    for (auto& dom : out_) {
      std::sort(dom.direct.begin(), dom.direct.end());
      const LevelAlias& p = primary_alias(dom.aliases);
      dom.level = p.name;
      dom.order = p.order;
      dom.logical_index = dom.is_virtual ? virtual_count[dom.level]++ : p.logical_index;
      dom.leader = dom.members.front();
      dom.group.clear();
      if (dom.members.size() >= 2) {
        dom.group = dom.direct;
        for (int c : dom.children) dom.group.push_back(out_[c].members.front());
        std::sort(dom.group.begin(), dom.group.end());
      }
    }
  }

  std::vector<Domain> raw_;
  std::vector<Domain> out_;
};

std::vector<LevelInfo> summarize(const std::vector<Domain>& domains) {
  std::map<std::string, LevelInfo> by_name;
  for (const auto& d : domains) {
    auto [it, inserted] = by_name.try_emplace(d.level);
    LevelInfo& li = it->second;
    if (inserted) {
      li.name = d.level;
      li.is_virtual = d.is_virtual;
      li.order = d.order;
    }
    li.order = std::min(li.order, d.order);
    ++li.domains;
    if (d.has_group()) {
      int g = static_cast<int>(d.group.size());
      li.min_group = li.groups ? std::min(li.min_group, g) : g;
      li.max_group = std::max(li.max_group, g);
      ++li.groups;
    }
  }
  std::vector<LevelInfo> out;
  for (auto& [name, li] : by_name) out.push_back(li);
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.order != b.order ? a.order < b.order : a.name < b.name; });
  return out;
}

}  // namespace

bool Domain::stands_for(std::string_view canonical_level) const {
  for (const auto& a : aliases)
    if (a.name == canonical_level) return true;
  return false;
}

Result<Tree> Tree::from_domains(std::vector<Domain> domains, std::vector<CpuSet> places) {
  if (domains.empty()) return Status(Errc::internal, "tree: no domains");
  if (places.empty()) return Status(Errc::invalid_argument, "tree: the process set is empty");
  for (const auto& d : domains) {
    if (d.aliases.empty()) return Status(Errc::internal, "tree: a domain without a level name");
  }
  Tree t;
  std::map<std::string, double> names;
  for (const auto& d : domains) {
    for (const auto& a : d.aliases) {
      auto [it, fresh] = names.emplace(a.name, a.order);
      if (!fresh) it->second = std::min(it->second, a.order);
    }
  }
  std::vector<std::pair<double, std::string>> sorted;
  for (const auto& [n, o] : names) sorted.emplace_back(o, n);
  std::sort(sorted.begin(), sorted.end());
  for (auto& s : sorted) t.machine_levels_.push_back(s.second);
  t.domains_ = Normalizer(std::move(domains)).run();
  t.places_ = std::move(places);
  t.leaf_.assign(t.places_.size(), -1);
  for (std::size_t id = 0; id < t.domains_.size(); ++id) {
    for (int r : t.domains_[id].direct) {
      if (r < 0 || r >= t.size()) {
        return Status(Errc::internal, cat("tree: rank ", r, " out of range"));
      }
      t.leaf_[static_cast<std::size_t>(r)] = static_cast<int>(id);
    }
  }
  t.levels_ = summarize(t.domains_);
  return t;
}

const LevelInfo* Tree::level(std::string_view name) const {
  for (const auto& l : levels_)
    if (l.name == name) return &l;
  return nullptr;
}

std::vector<int> Tree::path(int rank) const {
  std::vector<int> p;
  for (int d = leaf(rank); d >= 0; d = domains_[static_cast<std::size_t>(d)].parent) p.push_back(d);
  return p;
}

std::vector<int> Tree::group_path(int rank) const {
  std::vector<int> p;
  for (int d : path(rank))
    if (domain(d).has_group()) p.push_back(d);
  return p;
}

std::optional<int> Tree::domain_at(int rank, std::string_view level) const {
  auto canon = canonical_level(level);
  if (!canon) return std::nullopt;
  for (int d : path(rank))
    if (domain(d).stands_for(*canon)) return d;
  return std::nullopt;
}

Result<int> Tree::lowest_common(std::span<const int> ranks) const {
  if (ranks.empty()) return Status(Errc::invalid_argument, "lowest_common: no ranks given");
  for (int r : ranks) {
    if (r < 0 || r >= size()) {
      return Status(Errc::invalid_argument, cat("lowest_common: rank ", r, " is not in [0, ", size(), ")"));
    }
  }
  std::vector<int> common = path(ranks[0]);
  std::reverse(common.begin(), common.end());  // root first
  for (int r : ranks.subspan(1)) {
    std::vector<int> p = path(r);
    std::reverse(p.begin(), p.end());
    std::size_t n = 0;
    while (n < common.size() && n < p.size() && common[n] == p[n]) ++n;
    common.resize(n);
  }
  return common.back();
}

std::vector<int> Tree::domains_of(std::string_view level) const {
  std::vector<int> ids;
  for (std::size_t i = 0; i < domains_.size(); ++i)
    if (domains_[i].level == level) ids.push_back(static_cast<int>(i));
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return domain(a).logical_index < domain(b).logical_index; });
  return ids;
}

}  // namespace osmp
