// One process discovers the machine and exports XML; the others import it.
// How much the import saves, and what building the tree costs.
#include <benchmark/benchmark.h>

#include "topology/build.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"
#include "virtual_hier/split.hpp"

namespace {

osmp::Topology must(osmp::Result<osmp::Topology> t) {
  if (!t.ok()) {
    std::fprintf(stderr, "%s\n", t.status().to_string().c_str());
    std::abort();
  }
  return std::move(t).value();
}

void BM_LoadNative(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(must(osmp::Topology::load(osmp::TopologySource::native())));
  }
}
BENCHMARK(BM_LoadNative)->Unit(benchmark::kMicrosecond);

void BM_ExportXml(benchmark::State& state) {
  osmp::Topology t = must(osmp::Topology::load(osmp::TopologySource::native()));
  for (auto _ : state) benchmark::DoNotOptimize(t.export_xml());
}
BENCHMARK(BM_ExportXml)->Unit(benchmark::kMicrosecond);

void BM_LoadXmlBuffer(benchmark::State& state) {
  std::string xml = *must(osmp::Topology::load(osmp::TopologySource::native())).export_xml();
  for (auto _ : state) {
    benchmark::DoNotOptimize(must(osmp::Topology::load(osmp::TopologySource::xml_buffer(xml, true))));
  }
  state.counters["xml_bytes"] = static_cast<double>(xml.size());
}
BENCHMARK(BM_LoadXmlBuffer)->Unit(benchmark::kMicrosecond);

// A big machine: 2x64-core Rome as exported XML, as rank 0 would share it.
void BM_LoadXmlBufferRome(benchmark::State& state) {
  std::string xml = *must(osmp::Topology::load(osmp::TopologySource::parse("rome"))).export_xml();
  for (auto _ : state) {
    benchmark::DoNotOptimize(must(osmp::Topology::load(osmp::TopologySource::xml_buffer(xml, false))));
  }
  state.counters["xml_bytes"] = static_cast<double>(xml.size());
}
BENCHMARK(BM_LoadXmlBufferRome)->Unit(benchmark::kMicrosecond);

void BM_BuildTreeRome(benchmark::State& state) {
  osmp::Topology t = must(osmp::Topology::load(osmp::TopologySource::parse("rome")));
  osmp::PlacementRequest req;
  req.nprocs = static_cast<int>(state.range(0));
  auto places = *osmp::place_ranks(t.machine(), req);
  auto spec = *osmp::parse_spec(state.range(1) ? "auto" : "");
  for (auto _ : state) {
    benchmark::DoNotOptimize(osmp::build_tree(t.machine(), places, {}, spec));
  }
}
BENCHMARK(BM_BuildTreeRome)->ArgsProduct({{16, 128}, {0, 1}})->ArgNames({"np", "auto"})->Unit(benchmark::kMicrosecond);

}  // namespace
