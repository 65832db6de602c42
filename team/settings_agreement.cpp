#include "team/settings_agreement.hpp"

#include <array>
#include <vector>

#include "core/disagreement.hpp"
#include "core/strings.hpp"

namespace osmp {
namespace {

std::string topology_text(const TopologySource& t) {
  if (t.kind != TopologySource::Kind::xml_buffer) return t.describe();
  return cat("an XML buffer of ", t.text.size(), " bytes (FNV-1a ", std::hex, fnv1a(t.text), ")");
}

// Each shared setting: how the message names it, and its value as text
// (compared as a hash of that text, so the text says exactly what differs).
struct Shared {
  const char* what;
  std::string (*text)(const TeamOptions&);
};
constexpr Shared kShared[] = {
    {"the wait policy (OSMP_WAIT)", [](const TeamOptions& o) -> std::string { return to_string(o.wait); }},
    {"the topology (OSMP_TOPOLOGY)", [](const TeamOptions& o) { return topology_text(o.topology); }},
    {"the slot size (OSMP_SLOT_SIZE)", [](const TeamOptions& o) { return std::to_string(o.slot_bytes); }},
    {"the broadcast size (OSMP_BCAST_SIZE)", [](const TeamOptions& o) { return std::to_string(o.bcast_bytes); }},
    {"the shared-memory limit (OSMP_SHM_LIMIT)",
     [](const TeamOptions& o) { return o.shm_limit ? std::to_string(o.shm_limit) : std::string("none"); }},
    {"the virtual hierarchy (OSMP_VH)",
     [](const TeamOptions& o) { return o.vh.empty() ? std::string("none") : cat("'", o.vh, "'"); }},
    {"the collective settings (OSMP_BASE_CASE, OSMP_CHECK, OSMP_CMA, ...: docs/settings.md's collective table)",
     [](const TeamOptions& o) { return o.protocol; }},
};
constexpr std::size_t kCount = std::size(kShared);

}  // namespace

Status agree_on_settings(Bootstrap& boot, const TeamOptions& o) {
  std::array<std::uint64_t, kCount> mine{};
  for (std::size_t i = 0; i < kCount; ++i) mine[i] = fnv1a(kShared[i].text(o));
  const auto n = static_cast<std::size_t>(boot.size());
  std::vector<std::array<std::uint64_t, kCount>> all(n);
  OSMP_RETURN_IF_ERROR(boot.allgather(&mine, sizeof mine, all.data()));
  // Every rank sees the same hashes, so all exchange the same texts.
  std::string differ;
  for (std::size_t i = 0; i < kCount; ++i) {
    bool same = true;
    for (const auto& a : all) same = same && a[i] == all[0][i];
    if (same) continue;
    OSMP_ASSIGN_OR_RETURN(std::vector<std::string> texts, boot.allgather_strings(kShared[i].text(o)));
    differ += cat(differ.empty() ? "ranks disagree on " : "; on ", kShared[i].what, ": ",
                  describe_sides(group_by_value(texts), "got"));
  }
  if (!differ.empty()) return Status(Errc::mismatch, cat(differ, "; every rank must be given the same"));
  return {};
}

}  // namespace osmp
