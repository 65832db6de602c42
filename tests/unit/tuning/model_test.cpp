// The per-level cost model (tuning/model.hpp): the hsplit paper's example,
// where costs come from, the shape of its predictions, and recommend() on
// the paper's Cascade Lake.
#include "tuning/model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/machines.hpp"

namespace osmp {
namespace {

constexpr const auto& kAllOps = kOpKinds;

// Every level costs the same: alpha 1 us, beta 1 us per KiB; no combining
// cost, no contention (the paper's "latencies and bandwidths are equal").
Calibration equal_costs(const std::vector<std::string>& levels) {
  Calibration c;
  for (const auto& l : levels) c.levels.push_back({l, 1.0, 1.0});
  c.gamma_us_per_kib = 0;
  c.contention = 0;
  c.source = "test";
  return c;
}

CollectiveConfig flat_config() {
  CollectiveConfig c;
  EXPECT_TRUE(c.set_base_cases("flat").ok());
  return c;
}

Prediction predict_ok(const Tree& t, const Calibration& cal, const CollectiveConfig& cfg, OpKind op,
                      std::size_t bytes) {
  auto p = predict(t, cal, cfg, op, bytes);
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return p.ok() ? *p : Prediction{};
}

double phase_us(const Prediction& p, const std::string& phase) {
  double us = 0;
  for (const auto& t : p.terms)
    if (t.phase == phase) us += t.us;
  return us;
}

std::string cost_level_of(const Prediction& p, const std::string& level) {
  for (const auto& t : p.terms)
    if (t.level == level) return t.cost_level;
  return "(no row for " + level + ")";
}

// Section 6 of the hsplit paper: 8 processes, a flat tree costs (8-1)(a+b),
// three levels of 2 cost 3(a+b): 7/3 with equal costs. The up phase of a
// reduce of 1 KiB is that fan-in (the local root reads each member once).
TEST(Model, HsplitEightProcesses) {
  Topology flat_machine = test::load("Package:1 Core:8 PU:1");
  Tree flat = test::tree_for(flat_machine.machine(), 8);
  Tree split = test::tree_for(flat_machine.machine(), 8, MapBy::core, BindTo::core, "?2");
  EXPECT_EQ(test::level_summary(flat), "Machine 1x8");
  EXPECT_EQ(test::level_summary(split), "Machine 1x2 Machine-v1 2x2 Machine-v2 4x2");
  Calibration cal = equal_costs({"Machine"});
  const double one = phase_us(predict_ok(flat, cal, flat_config(), OpKind::reduce, 1024), "up");
  const double three = phase_us(predict_ok(split, cal, flat_config(), OpKind::reduce, 1024), "up");
  EXPECT_DOUBLE_EQ(one, 7 * 2.0);
  EXPECT_DOUBLE_EQ(three, 3 * 2.0);
  EXPECT_DOUBLE_EQ(one / three, 7.0 / 3.0);

  // The same on a machine whose three levels are physical.
  Topology deep = test::load("Package:2 L3Cache:2 Core:2 PU:1");
  Tree physical = test::tree_for(deep.machine(), 8);
  EXPECT_EQ(test::level_summary(physical), "Machine 1x2 Package 2x2 L3Cache 4x2");
  Calibration all = equal_costs(deep.machine().level_names());
  EXPECT_DOUBLE_EQ(phase_us(predict_ok(physical, all, flat_config(), OpKind::reduce, 1024), "up"), 6.0);
}

// More bytes never cost less on the same path. Across the engine's switches
// too, except where the model disagrees with the engine (model.hpp):
// allreduce's switch to chunks with slices, allgather's and allgatherv's to
// the flat path, and the switches to CMA's single copy, whose range
// (OSMP_CMA_MIN) was set on two processes: on a big node the model finds
// it cheaper than the outboxes below it (osmp-tune sets it per machine).
TEST(Model, MoreBytesNeverCheaper) {
  const std::vector<std::size_t> sizes = {1,    8,     32,        33,    100,    1000,    1170,    1171,   2048,
                                          4096, 16384, 64 * 1024, 65537, 131072, 1 << 19, 1 << 20, 4 << 20};
  for (const char* machine : {"cascadelake", "rome", "a64fx", "power9"}) {
    Topology topo = test::load(machine);
    Calibration cal = default_calibration(topo.machine());
    for (const char* spec : {"", "Package:7", "auto"}) {
      Tree t = test::tree_for(topo.machine(), static_cast<int>(topo.machine().cores().size()), MapBy::core,
                              BindTo::core, spec);
      for (OpKind op : kAllOps) {
        Prediction last;
        for (std::size_t b : sizes) {
          Prediction p = predict_ok(t, cal, CollectiveConfig{}, op, b);
          const bool known =
              p.path != last.path && (op == OpKind::allreduce || op == OpKind::allgather || op == OpKind::allgatherv ||
                                      p.path.find("CMA") != std::string::npos);
          if (b != sizes.front() && !known) {
            EXPECT_GE(p.us, last.us) << machine << " " << spec << " " << to_string(op) << " " << last.bytes << " -> "
                                     << b << " (" << last.path << " -> " << p.path << ")";
          }
          last = p;
        }
      }
    }
  }
}

TEST(Model, DegreeOneIsNoSpec) {
  Topology topo = test::load("cascadelake");
  Tree none = test::tree_for(topo.machine(), 56);
  Tree one = test::tree_for(topo.machine(), 56, MapBy::core, BindTo::core, "Package:1");
  Calibration cal = default_calibration(topo.machine());
  for (OpKind op : kAllOps) {
    for (std::size_t b : {8ul, 4096ul, 65536ul, 1ul << 20}) {
      EXPECT_EQ(predict_ok(none, cal, CollectiveConfig{}, op, b).us, predict_ok(one, cal, CollectiveConfig{}, op, b).us)
          << to_string(op) << " " << b;
    }
  }
}

TEST(Model, VirtualLevelsUseTheirPhysicalLevelsCosts) {
  Topology topo = test::load("cascadelake");
  Tree t = test::tree_for(topo.machine(), 56, MapBy::core, BindTo::core, "Package:7");
  // The socket is also its L3: the deepest cache it stands for applies.
  Calibration cal = default_calibration(topo.machine());
  Calibration coarse = equal_costs({"Machine", "Package"});
  coarse.levels[1].alpha_us = 0.5;
  int virtual_domains = 0;
  for (int d = 0; d < static_cast<int>(t.domains().size()); ++d) {
    if (!t.domain(d).is_virtual) continue;
    ++virtual_domains;
    EXPECT_EQ(level_cost(t, d, cal)->level, "L3Cache");
    EXPECT_EQ(level_cost(t, d, coarse)->level, "Package");
    EXPECT_EQ(level_cost(t, d, coarse)->alpha_us, 0.5);
  }
  EXPECT_EQ(virtual_domains, 14);
  Prediction p = predict_ok(t, cal, CollectiveConfig{}, OpKind::allreduce, 4096);
  EXPECT_EQ(cost_level_of(p, "Package-v1"), "L3Cache");
  EXPECT_EQ(cost_level_of(p, "Package"), "L3Cache");
  EXPECT_EQ(cost_level_of(p, "Machine"), "Machine");
}

TEST(Model, MissingLevelsFallBackUpward) {
  Topology rome = test::load("rome");
  Tree t = test::tree_for(rome.machine(), 128);
  Calibration no_l3 = equal_costs({"Machine", "Package", "NUMANode"});
  Prediction p = predict_ok(t, no_l3, CollectiveConfig{}, OpKind::bcast, 8);
  EXPECT_EQ(cost_level_of(p, "L3Cache"), "NUMANode");
  EXPECT_EQ(cost_level_of(p, "NUMANode"), "NUMANode");
  EXPECT_EQ(cost_level_of(p, "Package"), "Package");
  Calibration top_only = equal_costs({"Machine"});
  p = predict_ok(t, top_only, CollectiveConfig{}, OpKind::bcast, 8);
  for (const auto& term : p.terms) EXPECT_EQ(term.cost_level, "Machine") << term.level;
  // Nothing above: an error naming the level.
  auto none = predict(t, equal_costs({"L3Cache"}), CollectiveConfig{}, OpKind::bcast, 8);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), Errc::not_found);
  EXPECT_NE(none.status().message().find("no cost for level Machine"), std::string::npos) << none.status().message();
}

// A64FX: each CMG is a NUMA node and an L2; cores there share the L2.
TEST(Model, SharedCacheBeforeMemoryNode) {
  Topology topo = test::load("a64fx");
  Tree t = test::tree_for(topo.machine(), 48);
  Prediction p = predict_ok(t, default_calibration(topo.machine()), CollectiveConfig{}, OpKind::reduce, 8);
  EXPECT_EQ(cost_level_of(p, "NUMANode"), "L2Cache");
}

// Barrier on Cascade Lake, all costs 1, no contention: the socket's 28 go
// k-nomial (radix 4: 3 + 3 + 1 children of the root), the two sockets meet
// symmetrically (1 read), one release down.
TEST(Model, KnomialAndSymmetricTop) {
  Topology topo = test::load("cascadelake");
  Tree t = test::tree_for(topo.machine(), 56);
  Prediction p = predict_ok(t, equal_costs(topo.machine().level_names()), CollectiveConfig{}, OpKind::barrier, 0);
  ASSERT_EQ(p.terms.size(), 3u);
  EXPECT_EQ(p.terms[0].base, "knomial:4");
  EXPECT_DOUBLE_EQ(p.terms[0].us, 7);
  EXPECT_EQ(p.terms[1].base, "symmetric");
  EXPECT_DOUBLE_EQ(p.terms[1].us, 1);
  EXPECT_DOUBLE_EQ(p.terms[2].us, 1);
  EXPECT_DOUBLE_EQ(p.us, 9);
  Calibration cal = default_calibration(topo.machine());
  EXPECT_EQ(predict_ok(t, cal, CollectiveConfig{}, OpKind::allreduce, 64 * 1024).path, "one step");
  Prediction big = predict_ok(t, cal, CollectiveConfig{}, OpKind::allreduce, 1 << 20);
  EXPECT_EQ(big.path, "header step + 16 chunk round trips");
  EXPECT_EQ(big.terms.back().phase, "chunks down");
  bool slices = false;
  for (const auto& term : big.terms) slices |= term.base == "slices";
  EXPECT_TRUE(slices);
}

// Four chunks of 64 KiB down three levels of 2 (cost 1 + 64 each): the
// header's round trip (6), the first chunk through every level (3 x 65),
// then one level's time per further chunk (3 x 65).
TEST(Model, PipelinedChunks) {
  Topology topo = test::load("Package:1 Core:8 PU:1");
  Tree t = test::tree_for(topo.machine(), 8, MapBy::core, BindTo::core, "?2");
  CollectiveConfig no_cma = flat_config();
  no_cma.cma = CollectiveConfig::Cma::off;  // else CMA's single copy carries it (SingleCopies)
  Prediction p = predict_ok(t, equal_costs({"Machine"}), no_cma, OpKind::bcast, 256 * 1024);
  EXPECT_EQ(p.path, "header step + 4 pipelined chunks");
  EXPECT_DOUBLE_EQ(p.us, 6 + 3 * 65 + 3 * 65);
}

// The single copies as the plan takes them, priced from the calibration:
// CMA per call and per KiB on the busiest rank (a rooted operation's ranks
// at once, sharing the root's memory; the others a block of every peer in
// turn), then one hand-off; the heap's where the buffers lie in it, each
// byte once at its distance.
TEST(Model, SingleCopies) {
  Topology topo = test::load("Package:1 Core:8 PU:1");
  Tree t = test::tree_for(topo.machine(), 8, MapBy::core, BindTo::core);
  Calibration cal = equal_costs({"Machine"});  // alpha 1 us, beta 1 us/KiB
  cal.cma_call_us = 2;
  cal.cma_us_per_kib = 0.5;
  cal.contention = 0;
  const std::size_t m = 256 * 1024;
  Prediction bcast = predict_ok(t, cal, flat_config(), OpKind::bcast, m);
  EXPECT_EQ(bcast.path, "header step + CMA single copy");
  EXPECT_DOUBLE_EQ(phase_us(bcast, "cma"), 2 + 256 * 0.5 + 1);
  Prediction allgather = predict_ok(t, cal, flat_config(), OpKind::allgather, m);
  EXPECT_EQ(allgather.path, "header step + CMA single copy");
  EXPECT_DOUBLE_EQ(phase_us(allgather, "cma"), 7 * (2 + 256 * 0.5) + 1);
  // Gatherv decides after its lengths step, on the longest block: CMA here.
  EXPECT_EQ(predict_ok(t, cal, flat_config(), OpKind::gatherv, m).path, "lengths step + CMA single copy");
  // Dearer CMA, dearer prediction; none without it.
  Calibration slow = cal;
  slow.cma_us_per_kib = 1;
  EXPECT_GT(predict_ok(t, slow, flat_config(), OpKind::bcast, m).us, bcast.us);
  CollectiveConfig no_cma = flat_config();
  no_cma.cma = CollectiveConfig::Cma::off;
  EXPECT_EQ(phase_us(predict_ok(t, cal, no_cma, OpKind::bcast, m), "cma"), 0);
  // Buffers in the heaps: the heap's single copy for the operations that
  // have one (gather: the root reads 7 blocks, one hand-off each).
  ModelOptions heap;
  heap.in_heap = true;
  auto gather = predict(t, cal, flat_config(), OpKind::gather, m, heap);
  ASSERT_TRUE(gather.ok());
  EXPECT_EQ(gather->path, "header step + heap single copy");
  EXPECT_DOUBLE_EQ(phase_us(*gather, "heap"), 7 * (1 + 256));
  auto gatherv = predict(t, cal, flat_config(), OpKind::gatherv, m, heap);
  ASSERT_TRUE(gatherv.ok());
  EXPECT_EQ(gatherv->path, "lengths step + CMA single copy");  // no heap rules
}

TEST(Model, TeamOfOne) {
  Topology topo = test::load("cascadelake");
  Tree t = test::tree_for(topo.machine(), 1);
  for (OpKind op : kAllOps) EXPECT_EQ(predict_ok(t, default_calibration(topo.machine()), {}, op, 1024).us, 0);
}

TEST(Model, DefaultCalibration) {
  Topology topo = test::load("rome");
  Calibration cal = default_calibration(topo.machine());
  EXPECT_EQ(cal.source, "typical figures (not measured)");
  ASSERT_EQ(cal.levels.size(), topo.machine().level_names().size());
  for (const auto& l : cal.levels) {
    EXPECT_GT(l.alpha_us, 0) << l.level;
    EXPECT_GT(l.beta_us_per_kib, 0) << l.level;
  }
  // Farther costs more: other socket > other CCX > same CCX.
  EXPECT_GT(cal.find("Machine")->alpha_us, cal.find("NUMANode")->alpha_us);
  EXPECT_GT(cal.find("NUMANode")->alpha_us, cal.find("L3Cache")->alpha_us);
  EXPECT_GT(cal.find("Machine")->beta_us_per_kib, cal.find("L3Cache")->beta_us_per_kib);
  EXPECT_GT(cal.gamma_us_per_kib, 0.01);
  EXPECT_DOUBLE_EQ(us_per_kib(10), 0.1024);
  EXPECT_DOUBLE_EQ(gb_per_s(us_per_kib(12.5)), 12.5);
}

Recommendation recommend_ok(const MachineTree& m, int n, const CollectiveConfig& cfg, const Workload& w) {
  PlacementRequest req;
  req.nprocs = n;
  auto places = place_ranks(m, req);
  EXPECT_TRUE(places.ok());
  auto r = recommend(m, *places, BuildOptions{}, default_calibration(m), cfg, w);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : Recommendation{};
}

std::vector<std::string> specs(const Recommendation& r) {
  std::vector<std::string> out;
  for (const auto& c : r.candidates) out.push_back(c.spec);
  return out;
}

// Cascade Lake, 56 ranks: every degree of the socket, ranked the same way
// every time. What it recommends is the model's answer with typical costs
// (see the report in model.hpp): degree 3 with the default base cases; with
// flat groups only, degrees 4 to 7 tie (4 groups of 7 and 7 groups of 4
// cost the same when every group pays the socket's costs) and the smaller
// degree wins the tie.
TEST(Model, RecommendCascadeLake) {
  Topology topo = test::load("cascadelake");
  Workload w{{OpKind::allreduce}, {8, 64 * 1024, 1 << 20}};
  Recommendation r = recommend_ok(topo.machine(), 56, CollectiveConfig{}, w);
  EXPECT_EQ(r.levels, std::vector<std::string>{"Package"});
  EXPECT_TRUE(r.exhaustive);
  ASSERT_EQ(r.candidates.size(), 27u);  // none, 2..27 (28 gives the tree of none)
  EXPECT_EQ(specs(r), specs(recommend_ok(topo.machine(), 56, CollectiveConfig{}, w)));
  for (std::size_t i = 1; i < r.candidates.size(); ++i)
    EXPECT_LE(r.candidates[i - 1].score_us, r.candidates[i].score_us + 1e-6);
  EXPECT_EQ(r.best, "Package:3");
  EXPECT_EQ(r.best_per_op, std::vector<std::string>{"Package:3"});
  EXPECT_EQ(r.candidates[1].spec, "Package:10");  // a tie: the smaller degree first
  const Candidate* none = nullptr;
  for (const auto& c : r.candidates)
    if (c.spec == "none") none = &c;
  ASSERT_NE(none, nullptr);
  EXPECT_GT(none->score_us, r.candidates.front().score_us);

  Recommendation flat = recommend_ok(topo.machine(), 56, flat_config(), w);
  const std::vector<std::string> ranked = specs(flat);
  ASSERT_GE(ranked.size(), 4u);
  std::vector<std::string> first4(ranked.begin(), ranked.begin() + 4);
  EXPECT_EQ(first4, (std::vector<std::string>{"Package:4", "Package:5", "Package:6", "Package:7"}));
  EXPECT_NEAR(flat.candidates[0].score_us, flat.candidates[3].score_us, 1e-9);
}

TEST(Model, RecommendNeedsWork) {
  Topology topo = test::load("cascadelake");
  auto places = place_ranks(topo.machine(), PlacementRequest{4});
  ASSERT_TRUE(places.ok());
  auto r = recommend(topo.machine(), *places, BuildOptions{}, default_calibration(topo.machine()), {}, Workload{});
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace osmp
