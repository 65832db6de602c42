#include "core/disagreement.hpp"

#include <algorithm>
#include <map>

#include "core/strings.hpp"

namespace osmp {

Disagreement group_by_value(std::span<const std::string> values) {
  Disagreement d;
  std::map<std::string_view, std::size_t> index;  // value -> its group
  for (std::size_t r = 0; r < values.size(); ++r) {
    auto [it, fresh] = index.emplace(values[r], d.groups.size());
    if (fresh) d.groups.push_back({values[r], {}});
    d.groups[it->second].ranks.push_back(static_cast<int>(r));
  }
  // Groups are in order of their lowest rank already; the majority, if one
  // group is strictly the largest, moves to the end.
  std::size_t most = 0, holders = 0, at = 0;
  for (std::size_t g = 0; g < d.groups.size(); ++g) {
    std::size_t n = d.groups[g].ranks.size();
    if (n > most) {
      most = n;
      holders = 1;
      at = g;
    } else if (n == most) {
      ++holders;
    }
  }
  d.has_majority = holders == 1 && d.groups.size() > 1;
  if (d.has_majority)
    std::rotate(d.groups.begin() + static_cast<std::ptrdiff_t>(at),
                d.groups.begin() + static_cast<std::ptrdiff_t>(at) + 1, d.groups.end());
  return d;
}

namespace {

std::string side(std::span<const int> ranks, std::string_view verb, std::string_view value) {
  return cat(ranks.size() == 1 ? "rank " : "ranks ", rank_list(ranks), " ", verb, " ", value);
}

}  // namespace

std::string describe_sides(const Disagreement& d, std::string_view verb) {
  const std::size_t n = d.groups.size();
  // Shown one by one: the first minorities, and always the majority (last).
  const std::size_t shown = n <= kShownGroups ? n : kShownGroups - 2;
  std::vector<std::string> parts;
  for (std::size_t g = 0; g < shown; ++g) parts.push_back(side(d.groups[g].ranks, verb, d.groups[g].value));
  if (shown < n) {
    const std::size_t folded_end = d.has_majority ? n - 1 : n;
    std::vector<int> rest;
    for (std::size_t g = shown; g < folded_end; ++g)
      rest.insert(rest.end(), d.groups[g].ranks.begin(), d.groups[g].ranks.end());
    std::sort(rest.begin(), rest.end());
    parts.push_back(side(rest, verb, "other values"));
    if (d.has_majority) parts.push_back(side(d.groups.back().ranks, verb, d.groups.back().value));
  }
  std::string out;
  for (const auto& p : parts) out += out.empty() ? p : cat(", ", p);
  return out;
}

std::string disagreement(std::string_view what, std::span<const std::string> values, std::string_view verb) {
  Disagreement d = group_by_value(values);
  if (d.agreed()) return "";
  return cat("ranks disagree on ", what, ": ", describe_sides(d, verb));
}

}  // namespace osmp
