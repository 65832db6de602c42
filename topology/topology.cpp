#include "topology/topology.hpp"

#include <hwloc.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "core/env.hpp"
#include "core/strings.hpp"
#include "topology/levels.hpp"
#include "topology/limits.hpp"
#include "topology/presets.hpp"

namespace osmp {
namespace {

CpuSet from_hwloc(hwloc_const_bitmap_t b) {
  CpuSet s;
  if (b == nullptr) return s;
  for (int i = hwloc_bitmap_first(b); i >= 0; i = hwloc_bitmap_next(b, i)) {
    s.set(static_cast<unsigned>(i));
  }
  return s;
}

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

Bitmap to_hwloc(const CpuSet& s) {
  Bitmap b(hwloc_bitmap_alloc());
  for (int i = s.first(); i >= 0; i = s.next(i)) hwloc_bitmap_set(b.get(), static_cast<unsigned>(i));
  return b;
}

// The CPU-side object types that may split processes. L1 caches never do on
// any machine we know of (they follow the core), so they are left out.
std::optional<std::string> kept_level(hwloc_obj_t obj) {
  switch (obj->type) {
    case HWLOC_OBJ_MACHINE: return "Machine";
    case HWLOC_OBJ_PACKAGE: return "Package";
    case HWLOC_OBJ_DIE: return "Die";
    case HWLOC_OBJ_L5CACHE: return "L5Cache";
    case HWLOC_OBJ_L4CACHE: return "L4Cache";
    case HWLOC_OBJ_L3CACHE: return "L3Cache";
    case HWLOC_OBJ_L2CACHE: return "L2Cache";
    case HWLOC_OBJ_CORE: return "Core";
    case HWLOC_OBJ_PU: return "PU";
    case HWLOC_OBJ_GROUP: return cat("Group", obj->attr->group.depth);
    default: return std::nullopt;
  }
}

void collect_numa(hwloc_obj_t mem, std::vector<hwloc_obj_t>& out) {
  for (; mem != nullptr; mem = mem->next_sibling) {
    if (mem->type == HWLOC_OBJ_NUMANODE) {
      out.push_back(mem);
    } else {
      collect_numa(mem->memory_first_child, out);  // through memory-side caches
    }
  }
}

int add_node(MachineTree& m, MachineNode node, int parent) {
  node.parent = parent;
  int idx = static_cast<int>(m.nodes.size());
  m.nodes.push_back(std::move(node));
  if (parent >= 0) m.nodes[parent].children.push_back(idx);
  return idx;
}

// NUMA nodes are memory children in hwloc 2; we give each distinct CPU set of
// NUMA nodes attached to `obj` a NUMANode node placed under `holder`.
std::vector<int> add_numa_nodes(MachineTree& m, hwloc_obj_t obj, int holder) {
  std::vector<hwloc_obj_t> numa;
  collect_numa(obj->memory_first_child, numa);
  std::vector<int> added;
  std::map<std::string, int> by_cpuset;
  for (hwloc_obj_t n : numa) {
    CpuSet cs = from_hwloc(n->cpuset);
    if (cs.empty()) continue;  // CPU-less memory splits no processes
    auto key = cs.to_string();
    auto it = by_cpuset.find(key);
    if (it == by_cpuset.end()) {
      MachineNode node;
      node.level = "NUMANode";
      node.order = obj->depth + 0.5;
      node.logical_index = static_cast<int>(n->logical_index);
      node.os_index = n->os_index;
      node.cpuset = cs;
      int idx = add_node(m, std::move(node), holder);
      it = by_cpuset.emplace(key, idx).first;
      added.push_back(idx);
    }
    auto& os = m.nodes[it->second].numa_os_indexes;
    // DRAM first: plain NUMA nodes have no subtype; MCDRAM / GPUMemory do.
    if (n->subtype == nullptr) {
      os.insert(os.begin(), n->os_index);
    } else {
      os.push_back(n->os_index);
    }
  }
  return added;
}

void visit(MachineTree& m, hwloc_obj_t obj, int parent) {
  CpuSet cs = from_hwloc(obj->cpuset);
  if (cs.empty()) return;
  int here = parent;
  if (auto level = kept_level(obj)) {
    MachineNode node;
    node.level = *level;
    node.order = obj->depth;
    node.logical_index = static_cast<int>(obj->logical_index);
    node.os_index = obj->os_index;
    if (obj->subtype) node.subtype = obj->subtype;
    node.cpuset = std::move(cs);
    here = add_node(m, std::move(node), parent);
  }
  std::vector<int> numa = add_numa_nodes(m, obj, here);
  for (hwloc_obj_t child = obj->first_child; child != nullptr; child = child->next_sibling) {
    CpuSet ccs = from_hwloc(child->cpuset);
    int target = here;
    for (int n : numa)
      if (!ccs.empty() && ccs.is_subset_of(m.nodes[n].cpuset)) target = n;
    visit(m, child, target);
  }
}

MachineTree extract(hwloc_topology_t topo) {
  MachineTree m;
  visit(m, hwloc_get_root_obj(topo), -1);
  return m;
}

// hwloc dlopens its plugins each time the first topology of a process is
// created: the I/O ones (pci, gl, opencl; osmp filters I/O out) and libxml2
// (hwloc's built-in parser reads hwloc's own XML). Skipping them takes a cold
// XML import from ~1.6 ms to ~0.05 ms and native discovery from ~2.8 to ~1.4 ms
// here. Done once, before our first hwloc_topology_init, and only when the user
// left HWLOC_PLUGINS_BLACKLIST unset and did not ask for OSMP_HWLOC_LEAN=0.
void prefer_lean_hwloc() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (env_get("HWLOC_PLUGINS_BLACKLIST")) return;
    auto lean = env_bool("OSMP_HWLOC_LEAN", true);
    if (lean.ok() && !*lean) return;
    ::setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_pci,hwloc_gl,hwloc_opencl,hwloc_xml_libxml", 0);
  });
}

Status check_xml_bytes(std::size_t bytes, std::string_view what) {
  if (bytes <= kMaxXmlBytes) return {};
  return Status(Errc::unsupported,
                cat(what, " is ", bytes, " bytes; osmp takes topology XML of at most ", kMaxXmlBytes >> 20, " MiB"));
}

// The file's text, for check_size() before hwloc reads it (hwloc then reads
// the file itself, as it always did).
Result<std::string> read_xml_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) {
    return Status(Errc::topology, cat("cannot read topology XML file '", path, "': ", std::strerror(errno)));
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(f, std::fclose);
  struct stat st {};
  if (::fstat(::fileno(f), &st) == 0) {
    OSMP_RETURN_IF_ERROR(check_xml_bytes(static_cast<std::size_t>(st.st_size), cat("XML file '", path, "'")));
  }
  std::string text;
  char buf[1 << 16];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
    text.append(buf, n);
    OSMP_RETURN_IF_ERROR(check_xml_bytes(text.size(), cat("XML file '", path, "'")));  // a pipe has no size
  }
  if (std::ferror(f)) {
    return Status(Errc::topology, cat("cannot read topology XML file '", path, "': ", std::strerror(errno)));
  }
  return text;
}

Status hwloc_error(const std::string& what) {
  int e = errno;
  return Status(Errc::topology, cat(what, e ? cat(": ", std::strerror(e)) : std::string()));
}

}  // namespace

TopologySource TopologySource::parse(std::string_view text) {
  std::string_view t = trim(text);
  if (t.empty() || iequals(t, "native")) return native();
  if (ends_with(t, ".xml") || ends_with(t, ".XML")) return xml_file(std::string(t));
  if (auto p = preset_synthetic(t)) return synthetic(std::string(*p));
  return synthetic(std::string(t));
}

TopologySource TopologySource::from_env() {
  auto v = env_get("OSMP_TOPOLOGY");
  return v ? parse(*v) : native();
}

std::string TopologySource::describe() const {
  switch (kind) {
    case Kind::native: return "this system";
    case Kind::xml_file: return cat("XML file '", text, "'");
    case Kind::xml_buffer: return this_system ? "this system (imported XML)" : "imported XML";
    case Kind::synthetic: return cat("synthetic '", text, "'");
  }
  return "";
}

Result<Topology> Topology::load(const TopologySource& source) {
  prefer_lean_hwloc();
  Topology t;
  t.source_ = source;
  if (hwloc_topology_init(&t.topo_) != 0) return hwloc_error("hwloc_topology_init failed");
  // Instruction caches and L1 never split processes; skipping them makes loads faster.
  hwloc_topology_set_icache_types_filter(t.topo_, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_type_filter(t.topo_, HWLOC_OBJ_L1CACHE, HWLOC_TYPE_FILTER_KEEP_NONE);
  int rc = 0;
  errno = 0;
  switch (source.kind) {
    case TopologySource::Kind::native: break;
    case TopologySource::Kind::xml_file: {
      OSMP_ASSIGN_OR_RETURN(std::string xml, read_xml_file(source.text));
      OSMP_RETURN_IF_ERROR(check_size(xml_size(xml), source.describe()));
      rc = hwloc_topology_set_xml(t.topo_, source.text.c_str());
      break;
    }
    case TopologySource::Kind::xml_buffer:
      OSMP_RETURN_IF_ERROR(check_xml_bytes(source.text.size(), source.describe()));
      OSMP_RETURN_IF_ERROR(check_size(xml_size(source.text), source.describe()));
      rc = hwloc_topology_set_xmlbuffer(t.topo_, source.text.c_str(), static_cast<int>(source.text.size() + 1));
      if (rc == 0 && source.this_system) {
        rc = hwloc_topology_set_flags(t.topo_, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM);
      }
      break;
    case TopologySource::Kind::synthetic:
      OSMP_RETURN_IF_ERROR(check_size(synthetic_size(source.text), source.describe()));
      rc = hwloc_topology_set_synthetic(t.topo_, source.text.c_str());
      if (rc != 0) {
        return Status(Errc::topology, cat("malformed hwloc synthetic topology string '", source.text,
                                          "' (expected e.g. 'Package:2 [NUMANode] L3Cache:1 Core:8 PU:1'; "
                                          "run with HWLOC_SYNTHETIC_VERBOSE=1 for hwloc's reason)"));
      }
      break;
  }
  if (rc != 0) return hwloc_error(cat("cannot use topology source ", source.describe()));
  if (hwloc_topology_load(t.topo_) != 0) {
    return hwloc_error(cat("cannot load topology from ", source.describe(),
                           source.kind == TopologySource::Kind::native
                               ? std::string()
                               : std::string(" (malformed or not hwloc 2.x XML?)")));
  }
  t.machine_ = extract(t.topo_);
  if (t.machine_.nodes.empty() || t.machine_.pus().empty()) {
    return Status(Errc::topology, cat("topology from ", source.describe(), " has no usable PU"));
  }
  OSMP_RETURN_IF_ERROR(check_machine(t.machine_, source.describe()));
  return t;
}

Topology::Topology(Topology&& o) noexcept
    : topo_(std::exchange(o.topo_, nullptr)), source_(std::move(o.source_)), machine_(std::move(o.machine_)) {}

Topology& Topology::operator=(Topology&& o) noexcept {
  if (this != &o) {
    if (topo_) hwloc_topology_destroy(topo_);
    topo_ = std::exchange(o.topo_, nullptr);
    source_ = std::move(o.source_);
    machine_ = std::move(o.machine_);
  }
  return *this;
}

Topology::~Topology() {
  if (topo_) hwloc_topology_destroy(topo_);
}

bool Topology::is_this_system() const { return hwloc_topology_is_thissystem(topo_) != 0; }

std::string Topology::describe() const {
  std::string d = source_.describe();
  if (!is_this_system()) d += " (not this system: bindings are virtual)";
  return d;
}

Result<std::string> Topology::export_xml() const {
  char* buf = nullptr;
  int len = 0;
  if (hwloc_topology_export_xmlbuffer(topo_, &buf, &len, 0) != 0) {
    return hwloc_error("cannot export topology as XML");
  }
  // len counts the terminating NUL.
  std::string xml(buf, len > 0 ? static_cast<std::size_t>(len - 1) : 0);
  hwloc_free_xmlbuffer(topo_, buf);
  return xml;
}

Result<CpuSet> Topology::current_binding() const {
  if (!is_this_system()) {
    return Status(Errc::unsupported, cat("cannot read the binding: topology is ", describe()));
  }
  Bitmap b(hwloc_bitmap_alloc());
  if (hwloc_get_cpubind(topo_, b.get(), HWLOC_CPUBIND_PROCESS) != 0) {
    return hwloc_error("hwloc_get_cpubind failed");
  }
  return from_hwloc(b.get()) & machine_.pus();
}

Status Topology::bind_process(const CpuSet& set) const {
  if (!is_this_system()) {
    return Status(Errc::unsupported, cat("cannot bind: topology is ", describe()));
  }
  Bitmap b = to_hwloc(set);
  if (hwloc_set_cpubind(topo_, b.get(), HWLOC_CPUBIND_PROCESS) != 0) {
    return hwloc_error(cat("cannot bind to PUs ", set.to_string()));
  }
  return {};
}

}  // namespace osmp
