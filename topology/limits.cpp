#include "topology/limits.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/strings.hpp"

namespace osmp {
namespace {

unsigned long long times(unsigned long long a, unsigned long long b) {
  return b != 0 && a > ULLONG_MAX / b ? ULLONG_MAX : a * b;
}

// Past the ')' that closes attributes opened at p, or nullptr (hwloc
// looks for the first ')' too).
const char* past_attributes(const char* p) {
  const char* close = std::strchr(p, ')');
  return close ? close + 1 : nullptr;
}

// Where the tag starting at `at` (its '<') ends: its '>', outside quotes.
std::size_t tag_end(std::string_view x, std::size_t at) {
  char quote = 0;
  for (std::size_t j = at + 1; j < x.size(); ++j) {
    const char c = x[j];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return j;
    }
  }
  return std::string_view::npos;
}

// The value of attribute `name` in a tag's text, "" when absent.
std::string_view attribute(std::string_view tag, std::string_view name) {
  char quote = 0;
  for (std::size_t j = 0; j < tag.size(); ++j) {
    const char c = tag[j];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c)) || tag.substr(j + 1, name.size()) != name) continue;
    std::size_t k = j + 1 + name.size();
    while (k < tag.size() && std::isspace(static_cast<unsigned char>(tag[k]))) ++k;
    if (k >= tag.size() || tag[k] != '=') continue;
    ++k;
    while (k < tag.size() && std::isspace(static_cast<unsigned char>(tag[k]))) ++k;
    if (k >= tag.size() || (tag[k] != '"' && tag[k] != '\'')) continue;
    std::size_t end = tag.find(tag[k], k + 1);
    if (end == std::string_view::npos) return "";
    return tag.substr(k + 1, end - k - 1);
  }
  return "";
}

bool opens_object(std::string_view rest) {
  return rest.starts_with("<object") && rest.size() > 7 &&
         (std::isspace(static_cast<unsigned char>(rest[7])) || rest[7] == '>' || rest[7] == '/');
}

}  // namespace

TopologySize synthetic_size(std::string_view text) {
  const std::string s(text);  // strtoul reads a terminated string
  TopologySize out;
  const char* p = s.c_str();
  if (*p == '(') {  // the Machine's attributes
    p = past_attributes(p);
    if (!p) return out;
  }
  while (*p) {
    while (*p == ' ' || *p == '\n') ++p;
    if (!*p) break;
    if (*p == '[') {  // a memory child of the level before
      const char* close = std::strchr(p, ']');
      if (!close) break;
      ++out.depth;
      p = close + 1;
      continue;
    }
    if (*p < '0' || *p > '9') {  // "Type:" before the count
      const char* colon = std::strchr(p, ':');
      if (!colon) break;
      p = colon + 1;
    }
    char* end = nullptr;
    const unsigned long n = std::strtoul(p, &end, 0);  // as hwloc reads it: 0x10 is 16
    if (end == p) break;
    out.pus = times(out.pus, n);
    ++out.depth;
    p = end;
    if (*p == '(') {
      p = past_attributes(p);
      if (!p) break;
    }
  }
  return out;
}

TopologySize xml_size(std::string_view x) {
  TopologySize out{0, 0};
  int depth = 0;
  for (std::size_t i = x.find('<'); i != std::string_view::npos; i = x.find('<', i)) {
    const std::string_view rest = x.substr(i);
    if (rest.starts_with("<!--")) {
      std::size_t e = x.find("-->", i + 4);
      if (e == std::string_view::npos) break;
      i = e + 3;
      continue;
    }
    const std::size_t end = tag_end(x, i);
    if (end == std::string_view::npos) break;
    if (rest.starts_with("</object")) {
      --depth;
    } else if (opens_object(rest)) {
      const std::string_view tag = x.substr(i, end - i);
      if (iequals(attribute(tag, "type"), "PU")) ++out.pus;
      out.depth = std::max(out.depth, depth + 1);
      if (x[end - 1] != '/') ++depth;  // not self-closing: its children follow
    }
    i = end + 1;
  }
  return out;
}

Status check_size(const TopologySize& size, std::string_view what) {
  if (size.pus > kMaxPus) {
    return Status(Errc::unsupported, cat(what, " has ", size.pus == ULLONG_MAX ? "over 2^64" : std::to_string(size.pus),
                                         " PUs; osmp takes at most ", kMaxPus, " (numbered 0-", kMaxPus - 1, ")"));
  }
  if (size.depth > kMaxDepth) {
    return Status(Errc::unsupported, cat(what, " has ", size.depth,
                                         " levels (Machine to PU, memory included); osmp "
                                         "takes at most ",
                                         kMaxDepth));
  }
  return {};
}

Status check_machine(const MachineTree& m, std::string_view what) {
  if (m.pus().last() >= static_cast<int>(kMaxPus)) {
    return Status(Errc::unsupported, cat(what, " has PU number ", m.pus().last(), "; osmp takes PUs numbered 0-",
                                         kMaxPus - 1, " (at most ", kMaxPus, ")"));
  }
  TopologySize size{m.pu_count(), 0};
  std::vector<int> depth(m.nodes.size(), 1);
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {  // parents come before their children
    if (m.nodes[i].parent >= 0) depth[i] = depth[static_cast<std::size_t>(m.nodes[i].parent)] + 1;
    size.depth = std::max(size.depth, depth[i]);
  }
  return check_size(size, what);
}

}  // namespace osmp
