#include "machines.hpp"

namespace osmp::test {

Topology load(const std::string& source) {
  auto t = Topology::load(TopologySource::parse(source));
  if (!t.ok()) {
    ADD_FAILURE() << "cannot load " << source << ": " << t.status().to_string();
    std::abort();
  }
  return std::move(t).value();
}

std::string data_path(const std::string& relative) { return std::string(OSMP_TEST_DATA) + "/" + relative; }

Tree tree_from_places(const MachineTree& m, const std::vector<CpuSet>& places, const std::string& spec_text,
                      bool oversubscribe) {
  auto spec = parse_spec(spec_text);
  EXPECT_TRUE(spec.ok()) << spec.status().to_string();
  BuildOptions o;
  o.allow_oversubscribe = oversubscribe;
  auto tree = build_tree(m, places, o, *spec);
  if (!tree.ok()) {
    ADD_FAILURE() << "build_tree: " << tree.status().to_string();
    std::abort();
  }
  Status st = tree->check();
  EXPECT_TRUE(st.ok()) << st.to_string();
  return std::move(tree).value();
}

Tree tree_for(const MachineTree& m, int n, MapBy map_by, BindTo bind_to, const std::string& spec, bool oversubscribe) {
  PlacementRequest req;
  req.nprocs = n;
  req.map_by = map_by;
  req.bind_to = bind_to;
  req.oversubscribe = oversubscribe;
  auto places = place_ranks(m, req);
  if (!places.ok()) {
    ADD_FAILURE() << "place_ranks: " << places.status().to_string();
    std::abort();
  }
  return tree_from_places(m, *places, spec, oversubscribe);
}

std::string level_summary(const Tree& t) {
  std::string out;
  for (const auto& l : t.levels()) {
    if (l.groups == 0) continue;
    out += cat(out.empty() ? "" : " ", l.name, " ", l.groups, "x",
               l.min_group == l.max_group ? cat(l.max_group) : cat(l.min_group, "-", l.max_group));
  }
  return out;
}

CpuSet cpus(const std::string& list) {
  auto c = CpuSet::parse(list);
  EXPECT_TRUE(c.ok()) << c.status().to_string();
  return *c;
}

}  // namespace osmp::test
