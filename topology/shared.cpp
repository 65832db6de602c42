#include "topology/shared.hpp"

#include <algorithm>
#include <deque>
#include <mutex>

#include "core/strings.hpp"

namespace osmp {
namespace {

struct Entry {
  TopologySource::Kind kind;
  std::string text;  // the source's text (for an XML buffer: its digest's, not the text)
  bool this_system;
  SharedTopology shared;
};

struct Cache {
  std::mutex mu;
  std::deque<Entry> entries;  // newest last
};
Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: teams may outlive static destruction
  return *c;
}

// What identifies a source in the cache: an XML buffer by its digest (the
// text can be large), the rest by their text.
std::string key_text(const TopologySource& s) {
  return s.kind == TopologySource::Kind::xml_buffer ? cat(topology_digest(s.text)) : s.text;
}

}  // namespace

std::uint64_t topology_digest(const std::string& xml) {
  return fnv1a(xml) ^ (static_cast<std::uint64_t>(xml.size()) * 0x9e3779b97f4a7c15ull);
}

Result<SharedTopology> shared_topology(const TopologySource& source) {
  const bool cached = source.kind != TopologySource::Kind::xml_file;
  const std::string key = key_text(source);
  Cache& c = cache();
  if (cached) {
    std::lock_guard<std::mutex> lock(c.mu);
    for (const Entry& e : c.entries)
      if (e.kind == source.kind && e.this_system == source.this_system && e.text == key) return e.shared;
  }
  // Loaded outside the lock: two threads may both load it, and the second
  // entry is dropped below.
  OSMP_ASSIGN_OR_RETURN(Topology t, Topology::load(source));
  SharedTopology s;
  if (source.kind == TopologySource::Kind::xml_buffer) {
    s.xml = source.text;  // as the other process exported it: the digest it names
  } else {
    OSMP_ASSIGN_OR_RETURN(s.xml, t.export_xml());
  }
  s.digest = topology_digest(s.xml);
  s.topology = std::make_shared<const Topology>(std::move(t));
  if (!cached) return s;
  std::lock_guard<std::mutex> lock(c.mu);
  for (const Entry& e : c.entries)
    if (e.kind == source.kind && e.this_system == source.this_system && e.text == key) return e.shared;
  if (c.entries.size() >= kSharedTopologies) c.entries.pop_front();
  c.entries.push_back({source.kind, key, source.this_system, s});
  return s;
}

std::optional<SharedTopology> shared_topology_named(std::uint64_t digest, bool this_system) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (const Entry& e : c.entries)
    if (e.shared.digest == digest && e.shared.topology->is_this_system() == this_system) return e.shared;
  return std::nullopt;
}

}  // namespace osmp
