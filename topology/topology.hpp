// topology/: hwloc behind one door. A Topology owns an hwloc topology loaded
// from this machine, an XML file, an XML buffer or a synthetic string, and
// hands out a MachineTree of plain values; no hwloc type leaves this folder.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/status.hpp"
#include "topology/cpuset.hpp"
#include "topology/machine_tree.hpp"

struct hwloc_topology;

namespace osmp {

struct TopologySource {
  enum class Kind { native, xml_file, xml_buffer, synthetic };
  Kind kind = Kind::native;
  std::string text;          // path, XML text, or synthetic string
  bool this_system = false;  // xml_buffer only: the XML was exported from this machine

  static TopologySource native() { return {}; }
  static TopologySource xml_file(std::string path) { return {Kind::xml_file, std::move(path)}; }
  static TopologySource synthetic(std::string s) { return {Kind::synthetic, std::move(s)}; }
  static TopologySource xml_buffer(std::string xml, bool this_system) {
    return {Kind::xml_buffer, std::move(xml), this_system};
  }
  // "" or "native": this machine; a path ending in .xml: that file; a paper
  // machine name (see presets.hpp): its synthetic string; else a synthetic string.
  static TopologySource parse(std::string_view text);
  // OSMP_TOPOLOGY, parsed as above; native when unset.
  static TopologySource from_env();

  std::string describe() const;
};

class Topology {
 public:
  static Result<Topology> load(const TopologySource& source);

  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  ~Topology();

  // False for synthetic strings and XML from elsewhere: binding is then virtual.
  bool is_this_system() const;
  const TopologySource& source() const { return source_; }
  // "this system", "synthetic 'Package:2 ...' (not this system: bindings are virtual)".
  std::string describe() const;
  const MachineTree& machine() const { return machine_; }

  // The whole topology as hwloc XML, for other processes to import.
  Result<std::string> export_xml() const;

  // The calling process's current binding (this system only).
  Result<CpuSet> current_binding() const;
  // Binds the calling process (this system only).
  Status bind_process(const CpuSet& set) const;

 private:
  Topology() = default;
  struct hwloc_topology* topo_ = nullptr;
  TopologySource source_;
  MachineTree machine_;
};

}  // namespace osmp
