#include "core/strings.hpp"

#include <cctype>
#include <charconv>
#include <limits>

namespace osmp {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

Result<long long> parse_int(std::string_view text, long long lo, long long hi, std::string_view what) {
  std::string_view t = trim(text);
  long long v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) {
    return Status(Errc::invalid_argument, cat(what, ": '", text, "' is not an integer"));
  }
  if (v < lo || v > hi) {
    return Status(Errc::invalid_argument, cat(what, ": ", v, " is out of range [", lo, ", ", hi, "]"));
  }
  return v;
}

Result<unsigned long long> parse_size(std::string_view text, std::string_view what) {
  std::string_view t = trim(text);
  unsigned long long mult = 1;
  std::string_view digits = t;
  if (!t.empty()) {
    std::string_view suffixes[] = {"KiB", "MiB", "GiB", "K", "M", "G", "k", "m", "g"};
    unsigned long long mults[] = {1ULL << 10, 1ULL << 20, 1ULL << 30, 1ULL << 10, 1ULL << 20,
                                  1ULL << 30, 1ULL << 10, 1ULL << 20, 1ULL << 30};
    for (std::size_t i = 0; i < std::size(suffixes); ++i) {
      if (ends_with(t, suffixes[i])) {
        mult = mults[i];
        digits = t.substr(0, t.size() - suffixes[i].size());
        break;
      }
    }
  }
  auto n = parse_int(digits, 0, std::numeric_limits<long long>::max(), what);
  if (!n.ok()) {
    return Status(Errc::invalid_argument, cat(what, ": '", text, "' is not a size (e.g. 4096, 64K, 2M, 1G)"));
  }
  unsigned long long v = static_cast<unsigned long long>(*n);
  if (v > std::numeric_limits<unsigned long long>::max() / mult) {
    return Status(Errc::invalid_argument, cat(what, ": '", text, "' is too large"));
  }
  return v * mult;
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;                      // offset basis
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;  // FNV prime
  return h;
}

std::string rank_list(std::span<const int> ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += cat(out.empty() ? "" : ",", ranks[i]);
    if (j > i) out += cat("-", ranks[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace osmp
