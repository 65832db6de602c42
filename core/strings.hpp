// Small text helpers shared by the parsers (specs, options, cpusets).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace osmp {

std::string_view trim(std::string_view s);
// Splits on `sep`, keeping empty fields.
std::vector<std::string_view> split(std::string_view s, char sep);
bool iequals(std::string_view a, std::string_view b);
bool ends_with(std::string_view s, std::string_view suffix);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// An ascending list of ranks (or any numbers) with runs compressed: "0-3,8,10-11".
std::string rank_list(std::span<const int> ranks);

// Parses a whole string as a decimal integer in [lo, hi]; `what` names the
// value in the error ("degree in 'Package:x'").
Result<long long> parse_int(std::string_view text, long long lo, long long hi, std::string_view what);

// FNV-1a, 64 bits: a stable hash of a text (settings agreed across ranks,
// fingerprints of tuning files). Not for anything adversarial.
std::uint64_t fnv1a(std::string_view text);

// Parses a size with an optional binary suffix: 4096, 64K, 2M, 1G (KiB/MiB/GiB).
Result<unsigned long long> parse_size(std::string_view text, std::string_view what);

}  // namespace osmp
