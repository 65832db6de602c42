// The plan (collectives/plan.hpp): every operation at sizes from 0 to several
// MiB over the paper machines' trees, asserted properties; and the cost
// model predicting the same plan the engine runs.
#include "collectives/plan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collectives/protocol.hpp"
#include "shm/layout.hpp"
#include "support/machines.hpp"
#include "tuning/model.hpp"

namespace osmp {
namespace {

constexpr const auto& kAllOps = kOpKinds;

struct Machine {
  std::string source;
  int ranks;
  MapBy map_by;
  std::string vh;
};

// The paper's machines (presets), stored XML of others (tests/data), uneven
// placements and a virtual level.
std::vector<Machine> machines() {
  return {{"rome", 128, MapBy::core, ""},
          {"rome", 16, MapBy::scatter, ""},
          {"rome", 16, MapBy::core, "Package:4"},
          {"cascadelake", 40, MapBy::core, ""},
          {"cascadelake", 7, MapBy::scatter, ""},
          {"Package:1 Core:2 PU:1", 2, MapBy::core, ""},
          {"Package:1 Core:4 PU:1", 4, MapBy::core, ""},
          {"Package:2 Core:3 PU:1", 5, MapBy::core, ""},
          {test::data_path("topologies/amd-epyc7451-naples-2x24c-8numa.xml"), 48, MapBy::core, ""},
          {test::data_path("topologies/intel-skylake-2x18c-gold6140-cpuid-nonuma.xml"), 36, MapBy::numa, ""},
          {test::data_path("topologies/sgi-uv2000-24x8c-e5-4640-12groups.xml"), 192, MapBy::core, ""}};
}

std::vector<std::size_t> sizes() {
  std::vector<std::size_t> out = {0, 1, 3, 4, 8, 31, 32, 33, 48, 100};
  for (std::size_t s = 128; s <= (std::size_t{8} << 20); s *= 2) {
    out.push_back(s - 4);
    out.push_back(s);
    out.push_back(s + 4);
  }
  return out;
}

Tree tree_of(const Machine& m) {
  Topology t = test::load(m.source);
  return test::tree_for(t.machine(), m.ranks, m.map_by, BindTo::core, m.vh);
}

TEST(Plan, EveryOperationOnEveryMachineHasTheDocumentedProperties) {
  PlanSettings with_cma{};
  with_cma.cma = true;
  for (const PlanSettings& set : {PlanSettings{}, with_cma})
    for (const Machine& mc : machines()) {
      Tree tree = tree_of(mc);
      const PlanShape shape = plan_shape(tree, kDefaultSlotBytes, kDefaultBcastBytes);
      ASSERT_GE(shape.top_units, 2) << mc.source;
      ASSERT_GE(shape.top_max_unit, 1);
      for (OpKind op : kAllOps)
        for (std::size_t esize : {std::size_t{1}, std::size_t{4}, std::size_t{8}})
          for (std::size_t bytes : sizes()) {
            const std::size_t count = bytes / esize;
            const std::string at = cat(mc.source, " n=", mc.ranks, " ", to_string(op), " count ", count, " x ", esize,
                                       set.cma ? " cma" : "");
            // allgatherv, reduce_scatter: every rank passing `count`.
            auto input = [&](bool carries) { return uniform_input(op, count, esize, mc.ranks, carries); };
            for (bool carries : {true, false}) {
              const Plan p = make_plan(input(carries), shape, set);
              // The first step always carries the headers both ways.
              EXPECT_TRUE(p.first.header && p.first.up && p.first.down) << at;
              // Whether and how data follows is the same on every rank of a
              // count, whatever its own arguments (a rank without data runs
              // the same steps).
              EXPECT_EQ(p.rest, make_plan(input(!carries), shape, set).rest) << at;
              // Only a step carrying concatenated data is flat everywhere:
              // the data of one-step calls, gatherv's and scatterv's lengths;
              // alltoallv's counts rows where every rank is a unit of a
              // symmetric top (pairs_in_first).
              const bool concatenates = op == OpKind::gather || op == OpKind::allgather || op == OpKind::allgatherv ||
                                        op == OpKind::alltoall || op == OpKind::scan || op == OpKind::exscan;
              const bool pairs = op == OpKind::alltoallv && shape.top_max_unit == 1 &&
                                 shape.top_units <= std::min(set.sym_max, set.sym_slot_max) &&
                                 pairs_row_bytes(shape.ranks) <= shape.slot_bytes;
              EXPECT_EQ(pairs_in_first(op, p), pairs) << at;
              EXPECT_EQ(p.first.flat, (p.rest == Rest::none && concatenates) || lengths_step(op) || pairs) << at;
              const std::size_t most = symmetric_bytes(input(carries), shape);
              if (lengths_step(op)) {
                // Their data always follows; the lengths step through the
                // symmetric top where its rows fit the lines.
                EXPECT_EQ(p.rest, Rest::flat) << at;
                // (in fixed rows over single ranks: and gatherv's blocks' first
                // bytes)
                const bool single = shape.top_max_unit == 1;
                EXPECT_EQ(most, !carries ? 0
                                : single && op == OpKind::gatherv
                                    ? kLengthsRowBytes + kLengthsDataBytes
                                    : kLengthsRowBytes * static_cast<std::size_t>(shape.top_max_unit))
                    << at;
                // Over single ranks at a top small enough for the slots the
                // rows are packed, each with up to kLengthsSlotDataBytes per
                // block; else the symmetric top where the rows fit the lines,
                // over single ranks with kLengthsDataBytes per block.
                const bool packed = single && shape.top_units <= std::min(set.sym_max, set.sym_slot_max) &&
                                    lengths_packed_bytes(op, shape.ranks) <= shape.slot_bytes;
                EXPECT_EQ(p.lengths_packed, packed) << at;
                const bool lines = shape.top_units <= set.sym_max && most <= kInlineBytes;
                EXPECT_EQ(p.first.top == TopCase::symmetric, packed || lines) << at;
                EXPECT_EQ(lengths_data_bytes(p), packed                                     ? kLengthsSlotDataBytes
                                                 : single && lines && op == OpKind::gatherv ? kLengthsDataBytes
                                                                                            : 0)
                    << at;
              } else if (op == OpKind::alltoallv) {
                // The counts rows in the first step over single ranks (each
                // through its slot), whatever this rank's own arguments; else
                // its header step (headers only, as a barrier's) wherever the
                // top is small. Data may follow either way.
                EXPECT_EQ(p.rest, Rest::flat) << at;
                EXPECT_EQ(most, carries && shape.top_max_unit == 1 ? pairs_row_bytes(shape.ranks) : 0) << at;
                EXPECT_EQ(p.first.top == TopCase::symmetric, shape.top_units <= set.sym_max) << at;
              } else if (p.first.top == TopCase::symmetric) {
                // The symmetric top only where its conditions hold.
                EXPECT_EQ(p.rest, Rest::none) << at;
                EXPECT_NE(op, OpKind::scatter) << at;
                EXPECT_LE(shape.top_units, set.sym_max) << at;
                EXPECT_TRUE(most <= kInlineBytes ||
                            (slot_symmetric(op) && shape.top_units <= set.sym_slot_max && most <= shape.slot_bytes))
                    << at;
              }
              EXPECT_NE(p.first.top, TopCase::slices) << at;
              // CMA's single copy follows the first step where its range
              // covers what the operation weighs before the call (gatherv,
              // scatterv, alltoallv: after their counts step), the heap's
              // wherever data follows in an operation with heap rules.
              const CmaPath cma = describe(op).copies.cma;
              const bool weighs =
                  cma == CmaPath::block || cma == CmaPath::longest || (cma == CmaPath::two_ranks && shape.ranks == 2);
              const bool copies = set.cma && weighs && set.cma_range.covers(op, count * esize) &&
                                  (!is_reduction(op) || cma_piece(shape, esize) > 0);
              if (p.rest != Rest::none) {
                EXPECT_EQ(p.rest == Rest::cma, copies) << at;
              }
              EXPECT_EQ(p.heap, p.rest != Rest::none && describe(op).heap.rules[0].mode != DirectMode::none) << at;
              if (p.rest == Rest::cma) {
                EXPECT_EQ(p.chunks, 0u) << at;
              }
              if (p.rest != Rest::chunks) continue;
              // Chunks: whole elements, covering the bytes exactly once.
              const std::size_t total = count * esize;
              EXPECT_FALSE(p.chunk.header) << at;
              EXPECT_EQ(p.chunk_bytes % esize, 0u) << at;
              ASSERT_GT(p.chunks, 0u) << at;
              EXPECT_LT((p.chunks - 1) * p.chunk_bytes, total) << at;
              EXPECT_GE(p.chunks * p.chunk_bytes, total) << at;
              EXPECT_TRUE(p.chunk.up || p.chunk.down) << at;
              EXPECT_EQ(p.chunk.top == TopCase::slices, op == OpKind::allreduce && shape.top_units <= set.sym_max)
                  << at;
              // Which way chunks go: bcast down, reduce up, allreduce both.
              EXPECT_EQ(p.chunk.up, op != OpKind::bcast) << at;
              EXPECT_EQ(p.chunk.down, op != OpKind::reduce) << at;
            }
          }
    }
}

TEST(Plan, SmallDataRidesInTheFirstStepLargeDataFollows) {
  Tree tree = tree_of({"rome", 16, MapBy::scatter, ""});
  const PlanShape s = plan_shape(tree, kDefaultSlotBytes, kDefaultBcastBytes);
  const PlanSettings set{};
  EXPECT_EQ(make_plan({OpKind::bcast, 8, 1, true}, s, set).rest, Rest::none);
  EXPECT_EQ(make_plan({OpKind::bcast, s.bcast_bytes + 1, 1, true}, s, set).rest, Rest::chunks);
  EXPECT_EQ(make_plan({OpKind::gather, s.slot_bytes, 1, true}, s, set).rest, Rest::flat);
  EXPECT_EQ(make_plan({OpKind::barrier, 0, 1, true}, s, set).first.top, TopCase::symmetric);
  // A rank without data publishes nothing at the top: symmetric where the
  // others' data would not be (walk.hpp settles it with the headers).
  EXPECT_EQ(make_plan({OpKind::bcast, 64, 1, true}, s, set).first.top, TopCase::tree);
  EXPECT_EQ(make_plan({OpKind::bcast, 64, 1, false}, s, set).first.top, TopCase::symmetric);
  // OSMP_SYMMETRIC_MAX=0 turns the symmetric top and slices off.
  PlanSettings none{};
  none.sym_max = none.sym_slot_max = 0;
  const Plan off = make_plan({OpKind::allreduce, 1 << 20, 4, true}, s, none);
  EXPECT_EQ(off.chunk.top, TopCase::tree);
  EXPECT_EQ(make_plan({OpKind::barrier, 0, 1, true}, s, none).first.top, TopCase::tree);
}

// Allgather and allgatherv over two single ranks: one step through the
// slots at the symmetric top (each rank reads the other's slot) while the
// blocks fit, unless CMA's single copy covers them (CmaRange), where the
// team may use it; then the header step and the single copy.
TEST(Plan, AllgatherTakesTheSymmetricSlotsOrTheSingleCopy) {
  Tree tree = tree_of({"Core:2 PU:1", 2, MapBy::core, ""});
  const PlanShape s = plan_shape(tree, kDefaultSlotBytes, kDefaultBcastBytes);
  for (OpKind op : {OpKind::allgather, OpKind::allgatherv}) {
    auto plan = [&](std::size_t bytes, const PlanSettings& set) {
      return make_plan(uniform_input(op, bytes, 1, s.ranks), s, set);
    };
    PlanSettings with{}, without{};
    with.cma = true;
    const std::size_t from = with.cma_range.from(op);
    ASSERT_LE(2 * (from - 1), s.slot_bytes) << to_string(op);  // below it, the blocks fit one step
    for (std::size_t bytes : {std::size_t{64}, std::size_t{4096}, from - 1}) {
      const Plan p = plan(bytes, with);
      EXPECT_EQ(p.rest, Rest::none) << to_string(op) << " " << bytes;
      EXPECT_EQ(p.first.top, TopCase::symmetric) << to_string(op) << " " << bytes;
    }
    EXPECT_EQ(plan(from, with).rest, Rest::cma) << to_string(op);
    EXPECT_EQ(plan(from, without).rest, Rest::none) << to_string(op);  // no CMA: the slots
    PlanSettings low = with;
    low.cma_range.min = 1024;  // OSMP_CMA_MIN
    EXPECT_EQ(plan(1024, low).rest, Rest::cma) << to_string(op);
    EXPECT_EQ(plan(1023, low).rest, Rest::none) << to_string(op);
  }
  // Allgatherv weighs its longest block, as its flat path does: uneven
  // blocks whose mean is below the range but whose longest is in it take
  // the single copy; past OSMP_CMA_MAX, the one step where they fit.
  PlanSettings with{};
  with.cma = true;
  const std::size_t from = with.cma_range.from(OpKind::allgatherv);
  PlanInput uneven{OpKind::allgatherv, from / 2, 1, true, from + 64, from};  // blocks of from and 64 bytes
  EXPECT_EQ(make_plan(uneven, s, with).rest, Rest::cma);
  uneven.longest = from - 1;
  uneven.total = from - 1 + 64;
  EXPECT_EQ(make_plan(uneven, s, with).rest, Rest::none);
  PlanSettings narrow = with;
  narrow.cma_range.max = from + 1;  // OSMP_CMA_MAX: the longest block past it
  uneven = PlanInput{OpKind::allgatherv, from / 2, 1, true, from + 2 + 64, from + 2};
  EXPECT_EQ(make_plan(uneven, s, narrow).rest, Rest::none);
}

// The single copies are the plan's: CMA in place of chunks or the flat path
// where its range covers the call, the heap's offered before either.
TEST(Plan, TheSingleCopiesAreThePlans) {
  Tree tree = tree_of({"Core:2 PU:1", 2, MapBy::core, ""});
  const PlanShape s = plan_shape(tree, kDefaultSlotBytes, kDefaultBcastBytes);
  PlanSettings with{}, without{};
  with.cma = true;
  const std::size_t big = std::size_t{4} << 20;
  // bcast from its range: CMA, no chunks; without CMA, chunks.
  const Plan cma = make_plan({OpKind::bcast, big, 1, true}, s, with);
  EXPECT_EQ(cma.rest, Rest::cma);
  EXPECT_EQ(cma.chunks, 0u);
  EXPECT_TRUE(cma.heap);
  EXPECT_EQ(make_plan({OpKind::bcast, big, 1, true}, s, without).rest, Rest::chunks);
  // Below the range, chunks even with CMA.
  const std::size_t from = with.cma_range.from(OpKind::bcast);
  EXPECT_EQ(make_plan({OpKind::bcast, from - 1, 1, true}, s, with).rest, Rest::chunks);
  EXPECT_EQ(make_plan({OpKind::bcast, from, 1, true}, s, with).rest, Rest::cma);
  // Calls that do not offer their buffers (OSMP_DIRECT=0) have no heap copy;
  // one-step calls never; nor operations without heap rules.
  PlanSettings no_direct = with;
  no_direct.direct = false;
  EXPECT_FALSE(make_plan({OpKind::bcast, big, 1, true}, s, no_direct).heap);
  EXPECT_FALSE(make_plan({OpKind::bcast, 8, 1, true}, s, with).heap);
  EXPECT_FALSE(make_plan(uniform_input(OpKind::gatherv, big, 1, 2), s, with).heap);
  // Gatherv, scatterv, alltoallv decide after their counts step: the flat
  // path in the plan.
  for (OpKind op : {OpKind::gatherv, OpKind::scatterv, OpKind::alltoallv})
    EXPECT_EQ(make_plan(uniform_input(op, big, 1, 2), s, with).rest, Rest::flat) << to_string(op);
  // The slice-parallel reductions need a piece of at least one element per
  // rank in the scratch: not with elements larger than that.
  const PlanShape tiny = plan_shape(tree, 256, 256);
  ASSERT_EQ(cma_piece(tiny, 1024), 0u);
  const std::size_t half = std::size_t{1} << 19;  // in allreduce's range
  EXPECT_EQ(make_plan({OpKind::allreduce, half / 1024, 1024, true}, tiny, with).rest, Rest::chunks);
  EXPECT_EQ(make_plan({OpKind::allreduce, half, 1, true}, tiny, with).rest, Rest::cma);
  // Exscan's single copy is between the two ranks of a team of two only.
  EXPECT_EQ(make_plan({OpKind::exscan, big, 1, true}, s, with).rest, Rest::cma);
  Tree four = tree_of({"Core:4 PU:1", 4, MapBy::core, ""});
  const PlanShape s4 = plan_shape(four, kDefaultSlotBytes, kDefaultBcastBytes);
  EXPECT_EQ(make_plan({OpKind::exscan, big, 1, true}, s4, with).rest, Rest::flat);
  EXPECT_EQ(make_plan({OpKind::reduce_scatter_block, 1 << 16, 1, true}, s4, with).rest, Rest::cma);
  // Reduce_scatter weighs its longest share, in reduce_scatter_block's range
  // (up to 512 KiB): uneven shares whose longest is past it go through the
  // outboxes.
  EXPECT_EQ(with.cma_range.until(OpKind::reduce_scatter), with.cma_range.until(OpKind::reduce_scatter_block));
  PlanInput shares{OpKind::reduce_scatter, 1, 1, true, std::size_t{1} << 20, std::size_t{1} << 17};
  EXPECT_EQ(make_plan(shares, s4, with).rest, Rest::cma);
  shares.longest = std::size_t{1} << 19;
  EXPECT_EQ(make_plan(shares, s4, with).rest, Rest::flat);
}

// Gatherv and scatterv make one pass with rows at every size where the team
// makes one-pass calls, is one group and may copy with CMA (their long
// blocks go that way); elsewhere their strict plan.
TEST(Plan, RowsInFirstForGathervAndScattervWhereOnePassAndCma) {
  Tree tree = tree_of({"Package:2 Core:3 PU:1", 5, MapBy::core, ""});
  const PlanShape s = plan_shape(tree, kDefaultSlotBytes, kDefaultBcastBytes);
  for (OpKind op : kAllOps) {
    for (std::size_t bytes : sizes()) {
      for (int set = 0; set < 8; ++set) {
        PlanSettings ps{};
        ps.one_pass = (set & 1) != 0;
        ps.cma = (set & 2) != 0;
        ps.one_group = ps.one_pass && (set & 4) != 0;
        const std::string at = cat(to_string(op), " ", bytes, " B, one pass ", ps.one_pass, ", one group ",
                                   ps.one_group, ", cma ", ps.cma);
        const Plan p = make_plan(PlanInput{op, bytes, 1, true}, s, ps);
        const bool rows = lengths_step(op) && ps.one_pass && ps.one_group && ps.cma;
        EXPECT_EQ(rows_in_first(op, p), rows) << at;
        if (!rows) continue;
        EXPECT_TRUE(p.first.header && p.first.one_pass) << at;
        EXPECT_EQ(p.first.up, op == OpKind::gatherv) << at;
        EXPECT_EQ(p.first.down, op == OpKind::scatterv) << at;
        EXPECT_EQ(p.rest, Rest::flat) << at;
        EXPECT_EQ(p.lengths_data, kRowsDataBytes) << at;
      }
    }
  }
  // Scatterv's entries must fit the release's area (5 ranks: 120 bytes).
  PlanSettings ps{};
  ps.one_pass = ps.one_group = ps.cma = true;
  const PlanShape small = plan_shape(tree, kDefaultSlotBytes, 5 * kRowsEntryBytes);
  EXPECT_FALSE(rows_in_first(OpKind::scatterv, make_plan(PlanInput{OpKind::scatterv, 8, 1, true}, small, ps)));
  EXPECT_TRUE(rows_in_first(OpKind::gatherv, make_plan(PlanInput{OpKind::gatherv, 8, 1, true}, small, ps)));
  const PlanShape room = plan_shape(tree, kDefaultSlotBytes, 5 * kRowsEntryBytes + 1);
  EXPECT_TRUE(rows_in_first(OpKind::scatterv, make_plan(PlanInput{OpKind::scatterv, 8, 1, true}, room, ps)));
}

TEST(Plan, OnePassOnlyForOneWayOperationsThatFitOneStep) {
  // A team that makes one-pass calls (OSMP_CHECK=lazy), of one group or of
  // several (scan and exscan's prefix top: one group only).
  Tree tree = tree_of({"Package:2 Core:3 PU:1", 5, MapBy::core, ""});
  const PlanShape s = plan_shape(tree, kDefaultSlotBytes, kDefaultBcastBytes);
  for (bool one_group : {true, false}) {
    PlanSettings lazy{};
    lazy.one_pass = true;
    lazy.one_group = one_group;
    for (OpKind op : kAllOps) {
      for (std::size_t bytes : sizes()) {
        for (bool carries : {true, false}) {
          const std::string at = cat(to_string(op), " ", bytes, " B", carries ? "" : " (no data)");
          const Plan p = make_plan(PlanInput{op, bytes, 1, carries}, s, lazy);
          const Plan strict = make_plan(PlanInput{op, bytes, 1, carries}, s, PlanSettings{});
          if (!p.first.one_pass) {
            // Everything else is the strict plan, unchanged.
            EXPECT_EQ(p.rest, strict.rest) << at;
            EXPECT_EQ(p.first.top, strict.first.top) << at;
            EXPECT_TRUE(p.first.up && p.first.down) << at;
            EXPECT_FALSE(strict.rest == Rest::none &&
                         (one_pass_down(op) || one_pass_up(op) || (one_pass_prefix(op) && one_group)))
                << at;
            continue;
          }
          // One step, one way, with the headers, whether or not this rank
          // brings data (ranks must not take different plans for that).
          EXPECT_EQ(p.rest, Rest::none) << at;
          // (the prefix top reads inputs in place: larger ones than the tree)
          if (!one_pass_prefix(op)) {
            EXPECT_EQ(strict.rest, Rest::none) << at;
          } else {
            EXPECT_LE(bytes, kScanPrefixBytes) << at;
          }
          EXPECT_TRUE(p.first.header) << at;
          EXPECT_EQ(p.first.down, one_pass_down(op)) << at;
          EXPECT_EQ(p.first.up, one_pass_up(op) || one_pass_prefix(op)) << at;
          EXPECT_EQ(p.first.top, one_pass_prefix(op) ? TopCase::prefix : TopCase::tree) << at;
          EXPECT_EQ(p.first.flat, describe(op).plan.concatenates) << at;
          EXPECT_TRUE(make_plan(PlanInput{op, bytes, 1, !carries}, s, lazy).first.one_pass) << at;
          // A rank that declines the call (the MPI's own collective should
          // run it) takes the strict plan.
          PlanInput declining{op, bytes, 1, false};
          declining.declines = true;
          EXPECT_EQ(make_plan(declining, s, lazy), make_plan(declining, s, PlanSettings{})) << at;
          EXPECT_TRUE(one_group || !one_pass_prefix(op)) << at;
        }
      }
    }
  }
}

TEST(Plan, TheModelPredictsThePlanTheEngineRuns) {
  for (const Machine& mc : machines()) {
    Tree tree = tree_of(mc);
    const Calibration cal = default_calibration(test::load(mc.source).machine());
    const CollectiveConfig cfg;
    const PlanShape shape = plan_shape(tree, kDefaultSlotBytes, kDefaultBcastBytes);
    for (OpKind op : kAllOps)
      for (std::size_t bytes : sizes()) {
        auto pr = predict(tree, cal, cfg, op, bytes);
        ASSERT_TRUE(pr.ok()) << pr.status().to_string();
        const Plan p = make_plan(uniform_input(op, bytes, 1, mc.ranks), shape, model_settings(cfg, tree));
        const std::string at = cat(mc.source, " ", to_string(op), " ", bytes, ": ", pr->path);
        switch (p.rest) {
          case Rest::none:
            EXPECT_EQ(pr->path, !p.first.one_pass ? "one step" : p.first.up ? "one pass up" : "one pass down") << at;
            break;
          case Rest::flat:  // gatherv, scatterv share the lengths, alltoallv agrees on the counts (ops/flat.cpp)
          {
            // gatherv: done in that step where its rows carry every block
            const bool with = lengths_step(op) && bytes <= lengths_data_bytes(p);
            // alltoallv: its blocks ride with the counts rows in the first
            // step (pairs_in_first) or in the outboxes where they fit and
            // CMA would not take them
            const std::size_t others = bytes * static_cast<std::size_t>(mc.ranks - 1);
            const bool in_first = pairs_in_first(op, p);
            const bool rides = in_first ? others <= pairs_first_cap(mc.ranks)
                                        : pairs_blocks_at(mc.ranks) + others <= kDefaultSlotBytes &&
                                              bytes < cma_from(OpKind::alltoallv, model_settings(cfg, tree));
            const bool by_cma = cma_carries(op, bytes, model_settings(cfg, tree));
            const std::string how = by_cma ? "CMA single copy" : "flat over the team";
            const std::string pairs = in_first ? (rides ? "counts rows (the blocks with them)" : "counts rows + " + how)
                                      : rides  ? "header step + counts step (the blocks with it)"
                                               : "header step + counts step + " + how;
            EXPECT_EQ(pr->path, with                         ? "lengths step (the blocks with it)"
                                : lengths_step(op) && by_cma ? "lengths step + CMA single copy"
                                : lengths_step(op)           ? "lengths step + flat over the team"
                                : op == OpKind::alltoallv    ? pairs
                                                             : "header step + flat over the team")
                << at;
          } break;
          case Rest::chunks: EXPECT_NE(pr->path.find(cat("+ ", p.chunks, " ")), std::string::npos) << at; break;
          case Rest::cma: EXPECT_EQ(pr->path, "header step + CMA single copy") << at; break;
        }
        // With every buffer in the heaps, the heap's single copy where the
        // plan offers it.
        ModelOptions heap;
        heap.in_heap = true;
        auto in_heap = predict(tree, cal, cfg, op, bytes, heap);
        ASSERT_TRUE(in_heap.ok()) << in_heap.status().to_string();
        EXPECT_EQ(in_heap->path == "header step + heap single copy", p.heap) << at;
        if (!p.heap) {
          EXPECT_EQ(in_heap->path, pr->path) << at;
        }
        bool own_top = false, slices = false;
        for (const LevelTerm& t : pr->terms) {
          own_top |= t.phase == "top";
          slices |= t.base == "slices";
        }
        EXPECT_EQ(own_top, p.rest == Rest::none && p.first.top == TopCase::symmetric) << at;
        EXPECT_EQ(slices, p.rest == Rest::chunks && p.chunk.top == TopCase::slices) << at;
      }
  }
}

}  // namespace
}  // namespace osmp
