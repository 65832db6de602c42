#include "mpi_glue/mpi/context.hpp"

#include <sched.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "core/disagreement.hpp"
#include "core/env.hpp"
#include "core/strings.hpp"
#include "topology/topology.hpp"

namespace osmp::mpi {

namespace {

struct LocalState {
  Local local;
  std::string xml;  // what this process shares with its node
};
std::optional<LocalState> g_local;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

CpuSet my_binding() {
  CpuSet set;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0)
    for (unsigned i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &mask)) set.set(i);
  return set;
}

Result<CpuSet> my_place(const MachineTree& machine, const Layout& layout) {
  if (!layout.simulated) return my_binding();
  const int local = world_rank() % layout.ranks_per_node;
  if (!layout.places.empty()) {
    if (local >= static_cast<int>(layout.places.size())) {
      return Status(Errc::invalid_argument, cat("OSMP_SIM_PLACES lists ", layout.places.size(),
                                                " places but node-local rank ", local, " needs one"));
    }
    auto p = hier::resolve_place(machine, layout.places[static_cast<std::size_t>(local)]);
    if (!p.ok()) return Status(p.status()).prefix("OSMP_SIM_PLACES");
    return *p;
  }
  if (layout.unbound) return machine.pus();
  std::vector<int> cores = machine.cores();
  return machine.nodes[static_cast<std::size_t>(cores[static_cast<std::size_t>(local) % cores.size()])].cpuset;
}

Status adopt(Topology topo, const Layout& layout) {
  LocalState st;
  OSMP_ASSIGN_OR_RETURN(st.xml, topo.export_xml());
  st.local.machine = topo.machine();
  OSMP_ASSIGN_OR_RETURN(CpuSet place, my_place(st.local.machine, layout));
  st.local.me.chain = hier::chain_of(st.local.machine, place);
  st.local.me.node = layout.simulated ? world_rank() / layout.ranks_per_node : 0;  // real nodes: set by gather()
  g_local = std::move(st);
  return {};
}

Status load_alone(const Layout& layout) {
  OSMP_ASSIGN_OR_RETURN(Topology topo, Topology::load(TopologySource::from_env()));
  return adopt(std::move(topo), layout);
}

}  // namespace

Result<const Local*> local_alone() {
  if (!g_local) {
    OSMP_ASSIGN_OR_RETURN(Layout layout, layout_from_env());
    OSMP_RETURN_IF_ERROR(load_alone(layout));
  }
  return &g_local->local;
}

std::optional<std::string> info_value(MPI_Info info, const char* key) {
  if (info == MPI_INFO_NULL) return std::nullopt;
  int len = 0, flag = 0;
  MPI_Info_get_valuelen(info, key, &len, &flag);
  if (!flag) return std::nullopt;
  std::string v(static_cast<std::size_t>(len) + 1, '\0');
  MPI_Info_get(info, key, len + 1, v.data(), &flag);
  v.resize(static_cast<std::size_t>(len));
  return v;
}

Result<std::vector<std::string>> levels_here() {
  OSMP_ASSIGN_OR_RETURN(Layout layout, layout_from_env());
  OSMP_ASSIGN_OR_RETURN(const Local* local, local_alone());
  return hier::levels(local->machine, layout.network);
}

Result<std::string> level_named(std::string_view name) {
  OSMP_ASSIGN_OR_RETURN(Layout layout, layout_from_env());
  std::vector<std::string> here;  // loaded only for MPI_HW_LEVELn
  if (hier::names_level_number(name)) {
    OSMP_ASSIGN_OR_RETURN(here, levels_here());
  }
  return hier::level_for_request(name, layout.network, here);
}

namespace {

// One process per node loads the topology; the others import its XML.
Status share_topology(MPI_Comm node, const Layout& layout) {
  int need = g_local ? 0 : 1, any = 0, me = 0;
  MPI_Allreduce(&need, &any, 1, MPI_INT, MPI_MAX, node);
  if (!any) return {};
  MPI_Comm_rank(node, &me);
  Status st;
  long long len = 0;
  if (me == 0) {
    if (!g_local) st = load_alone(layout);
    len = st.ok() ? static_cast<long long>(g_local->xml.size()) : -1;
  }
  MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, node);
  if (len < 0) return me == 0 ? st : Status(Errc::topology, "the node's first rank could not load the topology");
  std::string xml = me == 0 ? g_local->xml : std::string(static_cast<std::size_t>(len), '\0');
  MPI_Bcast(xml.data(), static_cast<int>(len), MPI_CHAR, 0, node);
  if (g_local) return {};
  auto topo = Topology::load(TopologySource::xml_buffer(
      std::move(xml), !layout.simulated && TopologySource::from_env().kind == TopologySource::Kind::native));
  if (!topo.ok()) return topo.status();
  return adopt(std::move(*topo), layout);
}

// This node's id, the same on every rank of the node.
int node_id(MPI_Comm node, const Layout& layout) {
  if (layout.simulated) return world_rank() / layout.ranks_per_node;
  int id = world_rank();
  MPI_Bcast(&id, 1, MPI_INT, 0, node);
  return id;
}

Status exchange(MPI_Comm comm, const std::string& mine, std::vector<std::string>& all) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n));
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm);
  long long total = 0;
  for (int i = 0; i < n; ++i) {
    displs[static_cast<std::size_t>(i)] = static_cast<int>(total);
    total += lens[static_cast<std::size_t>(i)];
  }
  if (total > (1LL << 31) - 1) return Status(Errc::internal, "place records exceed 2 GiB");
  std::string buf(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), len, MPI_CHAR, buf.data(), lens.data(), displs.data(), MPI_CHAR, comm);
  all.clear();
  for (int i = 0; i < n; ++i)
    all.push_back(buf.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(i)]),
                             static_cast<std::size_t>(lens[static_cast<std::size_t>(i)])));
  return {};
}

}  // namespace

Result<Gathered> gather(MPI_Comm comm, const std::string& request, Status local_error, const std::string& detail) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  auto layout = layout_from_env();
  if (!layout.ok() && local_error.ok()) local_error = layout.status();
  Layout cfg = layout.ok() ? *layout : Layout{};
  MPI_Comm node = MPI_COMM_NULL;
  if (cfg.simulated)
    MPI_Comm_split(comm, world_rank() / cfg.ranks_per_node, rank, &node);
  else
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  Status st = share_topology(node, cfg);
  int id = node_id(node, cfg);
  MPI_Comm_free(&node);
  if (!st.ok() && local_error.ok()) local_error = st;
  if (local_error.ok()) {
    auto net = cfg.network.links(id, node_name(cfg, id));
    if (net.ok())
      g_local->local.me.network = std::move(net).value();
    else
      local_error = net.status();
  }
  std::string record;
  if (!local_error.ok()) {
    record = cat("E", static_cast<int>(local_error.code()), ":", local_error.message());
  } else {
    g_local->local.me.node = id;
    record = "R" + request + '\x1f' + detail + '\x1f' + hier::encode(g_local->local.me);
  }
  std::vector<std::string> all;
  OSMP_RETURN_IF_ERROR(exchange(comm, record, all));
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].starts_with("E")) {
      auto colon = all[i].find(':');
      int code = std::atoi(all[i].c_str() + 1);
      return Status(static_cast<Errc>(code), cat("rank ", i, ": ", std::string_view(all[i]).substr(colon + 1)));
    }
  Gathered g;
  g.me = rank;
  std::vector<std::string> requests;
  for (const std::string& rec : all) requests.push_back(cat("'", rec.substr(1, rec.find('\x1f') - 1), "'"));
  if (std::string d = disagreement("the arguments", requests, "passed"); !d.empty()) return Status(Errc::mismatch, d);
  for (const std::string& rec : all) {
    auto sep = rec.find('\x1f');
    auto sep2 = rec.find('\x1f', sep + 1);
    g.details.push_back(rec.substr(sep + 1, sep2 - sep - 1));
    OSMP_ASSIGN_OR_RETURN(hier::Member m, hier::decode(std::string_view(rec).substr(sep2 + 1)));
    g.members.push_back(std::move(m));
  }
  return g;
}

// ---- per-communicator records -------------------------------------------

namespace {

int copy_record(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = new CommRecord(*static_cast<CommRecord*>(in));
  *flag = 1;
  return MPI_SUCCESS;
}
int delete_record(MPI_Comm, int, void* value, void*) {
  delete static_cast<CommRecord*>(value);
  return MPI_SUCCESS;
}
int keyval() {
  static int kv = MPI_KEYVAL_INVALID;
  if (kv == MPI_KEYVAL_INVALID) MPI_Comm_create_keyval(copy_record, delete_record, &kv, nullptr);
  return kv;
}

}  // namespace

const CommRecord* record_of(MPI_Comm comm) {
  void* value = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm, keyval(), &value, &flag);
  return flag ? static_cast<const CommRecord*>(value) : nullptr;
}

std::vector<std::pair<std::string, std::string>> hw_info_keys(const CommRecord& record) {
  if (record.type.empty()) return {};
  const std::string num = std::to_string(record.parts), rank = std::to_string(record.index);
  return {{"mpi_hw_resource_type", record.type}, {"MPI_HW_DOMAIN_TYPE", record.type},   {"MPI_HW_DOMAIN_NUM", num},
          {"MPI_HW_DOMAIN_RANK", rank},          {"MPI_COMM_HLEVEL_TYPE", record.type}, {"MPI_COMM_HLEVEL_NUM", num},
          {"MPI_COMM_HLEVEL_RANK", rank}};
}

void attach_record(MPI_Comm comm, CommRecord record) {
  MPI_Comm_set_attr(comm, keyval(), new CommRecord(std::move(record)));
}

Status remember_split(MPI_Comm parent, const std::vector<hier::Member>& parent_members, MPI_Comm newcomm,
                      const std::string& type, int parts, int index) {
  if (newcomm == MPI_COMM_NULL) return {};
  MPI_Group pg, ng;
  MPI_Comm_group(parent, &pg);
  MPI_Comm_group(newcomm, &ng);
  int n = 0;
  MPI_Group_size(ng, &n);
  std::vector<int> ranks(static_cast<std::size_t>(n)), in_parent(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(ng, n, ranks.data(), pg, in_parent.data());
  MPI_Group_free(&pg);
  MPI_Group_free(&ng);
  CommRecord rec{{}, type, parts, index};
  for (int r : in_parent) {
    if (r < 0 || r >= static_cast<int>(parent_members.size()))
      return Status(Errc::internal, "a new communicator holds a process its parent does not");
    rec.members.push_back(parent_members[static_cast<std::size_t>(r)]);
  }
  attach_record(newcomm, std::move(rec));
  return {};
}

// ---- errors ----------------------------------------------------------------

namespace {

struct ErrorKinds {
  std::map<Errc, int> class_of;        // osmp error class per kind
  std::map<int, int> standard;         // osmp class -> MPI class
  std::map<std::string, int> code_of;  // message -> code
};
ErrorKinds& kinds() {
  static ErrorKinds k;
  return k;
}

int standard_for(Errc e) {
  switch (e) {
    case Errc::invalid_argument:
    case Errc::mismatch: return MPI_ERR_ARG;
    case Errc::not_found: return MPI_ERR_INFO_VALUE;
    case Errc::topology: return MPI_ERR_OTHER;
    default: return MPI_ERR_INTERN;
  }
}

int code_for(const Status& status, const char* function) {
  ErrorKinds& k = kinds();
  std::string message = cat("osmp: ", function, ": ", status.message());
  if (auto it = k.code_of.find(message); it != k.code_of.end()) return it->second;
  auto [cit, fresh] = k.class_of.emplace(status.code(), 0);
  if (fresh) {
    if (MPI_Add_error_class(&cit->second) != MPI_SUCCESS) return standard_for(status.code());
    MPI_Add_error_string(cit->second, cat("osmp: ", errc_name(status.code())).c_str());
    k.standard[cit->second] = standard_for(status.code());
  }
  // A bounded number of distinct messages get their own code; later ones share the class's.
  if (k.code_of.size() >= 512) return cit->second;
  int code = cit->second;
  if (MPI_Add_error_code(cit->second, &code) == MPI_SUCCESS) {
    MPI_Add_error_string(code, message.c_str());
    k.code_of.emplace(message, code);
  }
  return code;
}

}  // namespace

int raise(MPI_Comm comm, const Status& status, const char* function) {
  int code = code_for(status, function);
  MPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_SELF : comm, code);
  return code;
}

int standard_class(int code) {
  int cls = code;
  MPI_Error_class(code, &cls);
  auto& st = kinds().standard;
  auto it = st.find(cls);
  return it == st.end() ? cls : it->second;
}

char* intern(const std::string& s) {
  static std::set<std::string> strings;
  return const_cast<char*>(strings.insert(s).first->c_str());
}

}  // namespace osmp::mpi
