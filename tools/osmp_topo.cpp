// osmp-topo: prints the communication tree osmp builds for a topology, a
// process count, a placement and a virtual-hierarchy spec.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/env.hpp"
#include "core/strings.hpp"
#include "topology/placement.hpp"
#include "topology/presets.hpp"
#include "topology/render.hpp"
#include "topology/topology.hpp"
#include "virtual_hier/split.hpp"

namespace {

const char* kUsage =
    "usage: osmp-topo [options]\n"
    "  --topology SRC     this machine (default, or OSMP_TOPOLOGY), FILE.xml, an hwloc\n"
    "                     synthetic string, or a paper machine: rome, rome-smt,\n"
    "                     cascadelake, cascadelake-ht, power9, a64fx\n"
    "  -n, --np N         number of processes (default: one per core)\n"
    "  --map-by POLICY    core (default), pu, l3, numa, package, scatter\n"
    "  --bind-to WIDTH    core (default; pu with --map-by pu), pu, l3, numa, package, none\n"
    "  --oversubscribe    allow more processes than cores\n"
    "  --vh SPEC          virtual hierarchy: LEVEL:DEGREE,..., LEVEL?MAX, ?MAX, auto\n"
    "                     (default: OSMP_VH)\n"
    "  --json             machine-readable output\n"
    "  --list-presets     print the paper machines and their synthetic strings\n";

struct Options {
  std::string topology;
  bool topology_given = false;
  int np = 0;
  std::string map_by = "core";
  std::string bind_to;
  bool oversubscribe = false;
  std::string vh;
  bool vh_given = false;
  bool json = false;
};

int fail(const std::string& msg) {
  std::fprintf(stderr, "osmp-topo: %s\n", msg.c_str());
  return 2;
}

// Returns 0 to go on, 1 when done (help), 2 on a bad command line.
int parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)name;
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 1;
    } else if (a == "--list-presets") {
      for (const auto& p : osmp::presets())
        std::printf("%-15s %s\n%15s %s\n", std::string(p.name).c_str(),
                    std::string(p.machine).c_str(), "", std::string(p.synthetic).c_str());
      return 1;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--oversubscribe") {
      o.oversubscribe = true;
    } else if (a == "--topology" || a == "--map-by" || a == "--bind-to" || a == "--vh" ||
               a == "-n" || a == "--np") {
      if ((v = value(a.c_str())) == nullptr) return fail(a + " needs a value"), 2;
      if (a == "--topology") o.topology = v, o.topology_given = true;
      if (a == "--map-by") o.map_by = v;
      if (a == "--bind-to") o.bind_to = v;
      if (a == "--vh") o.vh = v, o.vh_given = true;
      if (a == "-n" || a == "--np") {
        auto n = osmp::parse_int(v, 1, 1 << 20, "process count (-n)");
        if (!n.ok()) return fail(n.status().message()), 2;
        o.np = static_cast<int>(*n);
      }
    } else {
      return fail("unknown option '" + a + "'\n" + kUsage), 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (int rc = parse(argc, argv, o)) return rc == 1 ? 0 : rc;

  auto source = o.topology_given ? osmp::TopologySource::parse(o.topology)
                                 : osmp::TopologySource::from_env();
  auto topo = osmp::Topology::load(source);
  if (!topo.ok()) return fail(topo.status().message());
  const auto& machine = topo->machine();

  osmp::PlacementRequest req;
  auto map_by = osmp::parse_map_by(o.map_by);
  if (!map_by.ok()) return fail(map_by.status().message());
  req.map_by = *map_by;
  std::string bind = o.bind_to.empty() ? (req.map_by == osmp::MapBy::pu ? "pu" : "core") : o.bind_to;
  auto bind_to = osmp::parse_bind_to(bind);
  if (!bind_to.ok()) return fail(bind_to.status().message());
  req.bind_to = *bind_to;
  req.oversubscribe = o.oversubscribe;
  req.nprocs = o.np > 0 ? o.np : static_cast<int>(machine.cores().size());

  auto spec = o.vh_given ? osmp::parse_spec(o.vh) : osmp::spec_from_env();
  if (!spec.ok()) return fail(spec.status().message());

  auto places = osmp::place_ranks(machine, req);
  if (!places.ok()) return fail(places.status().message());
  osmp::BuildOptions bo;
  bo.allow_oversubscribe = o.oversubscribe;
  auto tree = osmp::build_tree(machine, *places, bo, *spec);
  if (!tree.ok()) return fail(tree.status().message());
  if (auto st = tree->check(); !st.ok()) return fail(st.to_string());

  osmp::RenderContext ctx;
  ctx.topology = topo->describe();
  ctx.placement = osmp::cat("map-by ", osmp::to_string(req.map_by), ", bind-to ",
                            osmp::to_string(req.bind_to));
  ctx.spec = spec->text;
  std::string out = o.json ? osmp::render_json(*tree, ctx) : osmp::render_text(*tree, ctx);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
