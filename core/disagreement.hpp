// When ranks disagree on something they must share: who holds which value,
// which value the majority holds, and the words every rank reports ("ranks
// disagree on the count: rank 1 passed 8, ranks 0,2-3 passed 16"). Pure
// functions, so that every layer that compares ranks' values (collective
// headers, team settings, runtime configure) says it the same way.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace osmp {

struct RankGroup {
  std::string value;       // as the message shows it
  std::vector<int> ranks;  // ascending
};

struct Disagreement {
  // The minorities, by their lowest rank, then the majority last. With a tie
  // for the most ranks nobody is the majority: every group by its lowest rank.
  std::vector<RankGroup> groups;
  bool has_majority = false;
  bool agreed() const { return groups.size() <= 1; }
};

// values[r] is rank r's value; equal texts are one group.
Disagreement group_by_value(std::span<const std::string> values);

// "rank 1 passed 8, ranks 0,2-3 passed 16": each group with its value, in
// the order of `d`. `verb` must read for one rank and for several ("passed",
// "called", "asked for", "got"). Past kShownGroups groups the smallest
// minorities are folded into one "ranks 5,9 passed other values".
inline constexpr std::size_t kShownGroups = 6;
std::string describe_sides(const Disagreement& d, std::string_view verb);

// "ranks disagree on the count: " + describe_sides(); "" when all agree.
std::string disagreement(std::string_view what, std::span<const std::string> values, std::string_view verb);

}  // namespace osmp
