#include "mpi_glue/hierarchy/network.hpp"

#include <cctype>

#include "core/strings.hpp"
#include "topology/levels.hpp"

namespace osmp::hier {
namespace {

Status check_name(std::string_view name, const std::vector<std::string>& taken, std::string_view where) {
  bool ok = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) return Status(Errc::invalid_argument, cat(where, ": '", name, "' is not a level name (letters, digits, _)"));
  if (canonical_level(name) || iequals(name, kClusterLevel) || iequals(name, kUnknownLevel) ||
      names_level_number(name)) {
    return Status(Errc::invalid_argument,
                  cat(where, ": '", name, "' is taken (a hardware level, Cluster, Unknown or MPI_HW_LEVELn)"));
  }
  for (const auto& t : taken)
    if (iequals(t, name)) return Status(Errc::invalid_argument, cat(where, ": level '", name, "' is given twice"));
  return {};
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

Result<Network> Network::from_sim_spec(std::string_view spec) {
  Network n;
  const std::string where = cat("OSMP_SIM_NETWORK='", spec, "'");
  for (std::string_view item : split(spec, ',')) {
    item = trim(item);
    auto colon = item.find(':');
    if (colon == std::string_view::npos)
      return Status(Errc::invalid_argument, cat(where, ": item '", item, "' is not LEVEL:COUNT"));
    std::string_view name = trim(item.substr(0, colon));
    OSMP_RETURN_IF_ERROR(check_name(name, n.levels_, where));
    auto count = parse_int(item.substr(colon + 1), 1, 1 << 24, cat("count of '", name, "'"));
    if (!count.ok()) return Status(count.status()).prefix(where);
    n.levels_.emplace_back(name);
    n.fan_in_.push_back(static_cast<int>(*count));
  }
  if (n.levels_.empty()) return Status(Errc::invalid_argument, cat(where, ": no level"));
  return n;
}

Result<Network> Network::from_file(std::string_view text, std::string_view origin) {
  Network n;
  n.origin_ = std::string(origin);
  std::vector<std::map<std::string, int, std::less<>>> index;  // per level: object name -> index
  std::vector<std::map<int, std::pair<int, int>>> parent;      // per level: index -> (parent index, line)
  int line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    line = line.substr(0, line.find('#'));
    auto w = words(line);
    if (w.empty()) continue;
    const std::string where = cat(origin, " line ", line_no);
    if (n.levels_.empty()) {
      if (w[0] != "levels" || w.size() < 2)
        return Status(Errc::invalid_argument, cat(where, ": expected 'levels NAME ...' first"));
      for (std::size_t i = 1; i < w.size(); ++i) {
        OSMP_RETURN_IF_ERROR(check_name(w[i], n.levels_, where));
        n.levels_.emplace_back(w[i]);
      }
      index.resize(n.levels_.size());
      parent.resize(n.levels_.size());
      continue;
    }
    if (w.size() != n.levels_.size() + 1)
      return Status(Errc::invalid_argument, cat(where, ": expected a node name and ", n.levels_.size(), " objects"));
    std::vector<int> objs;
    for (std::size_t l = 0; l < n.levels_.size(); ++l) {
      auto [it, fresh] = index[l].emplace(std::string(w[l + 1]), static_cast<int>(index[l].size()));
      objs.push_back(it->second);
    }
    for (std::size_t l = 0; l + 1 < n.levels_.size(); ++l) {
      auto [it, fresh] = parent[l].emplace(objs[l], std::pair{objs[l + 1], line_no});
      if (it->second.first != objs[l + 1]) {
        return Status(Errc::invalid_argument, cat(where, ": ", n.levels_[l], " '", w[l + 1], "' is in another ",
                                                  n.levels_[l + 1], " on line ", it->second.second));
      }
    }
    if (!n.placed_.emplace(std::string(w[0]), std::move(objs)).second)
      return Status(Errc::invalid_argument, cat(where, ": node '", w[0], "' is listed twice"));
  }
  if (n.levels_.empty()) return Status(Errc::invalid_argument, cat(origin, ": no 'levels' line"));
  return n;
}

std::vector<std::string> Network::levels_top_down() const { return {levels_.rbegin(), levels_.rend()}; }

std::optional<std::string> Network::level_named(std::string_view name) const {
  for (const auto& l : levels_)
    if (iequals(l, trim(name))) return l;
  return std::nullopt;
}

Result<std::vector<Link>> Network::links(int node, std::string_view name) const {
  std::vector<int> objs;
  if (!fan_in_.empty()) {
    long long per = 1;
    for (int f : fan_in_) {
      per *= f;
      objs.push_back(static_cast<int>(node / per));
      per = std::min(per, 1LL << 40);
    }
  } else if (!levels_.empty()) {
    auto it = placed_.find(name);
    if (it == placed_.end()) it = placed_.find(name.substr(0, name.find('.')));
    if (it == placed_.end()) return Status(Errc::invalid_argument, cat(origin_, " does not list node '", name, "'"));
    objs = it->second;
  }
  std::vector<Link> out;
  for (std::size_t l = objs.size(); l-- > 0;) out.push_back({levels_[l], -1.0 - static_cast<double>(l), objs[l]});
  return out;
}

std::vector<std::string> levels(const MachineTree& machine, const Network& network) {
  std::vector<std::string> out = network.levels_top_down();
  for (auto& l : levels(machine)) out.push_back(std::move(l));
  return out;
}

bool names_level_number(std::string_view name) {
  std::string_view t = trim(name);
  return t.size() > 12 && iequals(t.substr(0, 12), "MPI_HW_LEVEL");
}

Result<std::string> level_for_request(std::string_view name, const Network& network,
                                      const std::vector<std::string>& here) {
  std::string_view t = trim(name);
  if (names_level_number(t)) {
    auto n = parse_int(t.substr(12), 0, 1 << 20, "level number");
    if (!n.ok()) return Status(Errc::not_found, cat("'", name, "' is not MPI_HW_LEVEL<n>"));
    if (*n >= static_cast<long long>(here.size())) {
      return Status(Errc::not_found, cat("'", name, "': this node has ", here.size(), " levels (MPI_HW_LEVEL0 .. ",
                                         here.size() - 1, ": ", join(here, ", "), ")"));
    }
    return here[static_cast<std::size_t>(*n)];
  }
  if (auto net = network.level_named(t)) return *net;
  auto hw = level_for_request(name);
  if (!hw.ok() && !network.empty()) {
    return Status(hw.status().code(),
                  cat(hw.status().message(), "; network levels: ", join(network.levels_top_down(), ", ")));
  }
  return hw;
}

}  // namespace osmp::hier
