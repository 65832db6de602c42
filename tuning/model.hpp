// A per-level Hockney model of osmp's collectives on a communication tree,
// after the hsplit paper (section 6: a flat tree broadcast costs
// (p-1)(alpha + m beta); over L levels, sum_i (p_i - 1)(alpha_i + m_i beta_i)),
// with the contention term of its "improved latency and bandwidth per level".
// It predicts what a call costs on a tree and ranks virtual-hierarchy specs.
//
// What it charges, per group of p units (alpha, beta from costs.hpp for the
// group's level, gamma for combining, c = Calibration::contention; m the
// bytes per unit):
//   up, flat        the local root reads its members one after the other:
//                   (p-1) alpha + (bytes it reads) beta [+ (bytes combined) gamma]
//   up, k-nomial    the local root's rounds, one after the other, each reading
//                   its children of that round: ceil(log_k p) rounds of at most
//                   k-1 (fewer when the last round is not full, as the engine's
//                   tree has it), each child alpha + m beta [+ m gamma]
//   down (any base) one release line and one area, read by p-1 members at once:
//                   (alpha + m beta) (1 + c (p-1)) (scatter: the largest part)
//   symmetric top   small one-step calls (top group <= OSMP_SYMMETRIC_MAX, data
//                   in the flag's line; allreduce up to a slot at a top group
//                   <= OSMP_SYMMETRIC_SLOT_MAX, data in the slots): every member
//                   reads every other line, no release: (p-1) alpha + c (p-2)
//                   alpha [+ (p-1) m beta from slots] [+ (p-1) m gamma]
//   slices top      chunks of a large allreduce at a small top group: reduce-
//                   scatter then allgather among its members (collectives/base/slices.hpp)
// Contention, the hsplit paper's "improved latency and bandwidth per level":
// when r processes read from one source at once, the last one's hand-off
// waits c (r-1) alpha more (requests for one line are served one after the
// other; then the readers stay staggered, so a sequence of reads pays this
// once), and each gets 1 / (1 + c (r-1)) of the source's bandwidth.
// Data of up to 32 bytes rides in the flag's cache line: no beta term. The
// levels of a step add up as a critical path: at each depth the slowest group
// counts (groups at one depth run in parallel), depths are summed, up then
// down (on uneven trees this is an upper bound of the longest path). Every
// call starts with a step that carries the op headers up and the verdict
// down, so even a bcast pays one round trip. Messages larger than the slots
// follow in chunks: bcast (down only) and reduce (up only) pipeline them
// across levels, total = one chunk through every level + each further chunk
// at the slowest level; allreduce chunks each make a full round trip (a rank
// takes the next chunk up only after the release of the last). Large gather,
// allgather, scatter and reduce_scatter_block go flat over the whole team as
// the engine does (collectives/ops/flat.cpp; model.cpp says how). Not in the
// model: software overhead per level (a deeper tree is charged only its
// hand-offs), the position of cores on a mesh, prefetching and overlapped
// reads, the cost of a process_vm_readv call. Where group costs come from:
// level_cost() below.
//
// Where the model disagrees with the engine's own switches (predictions are
// not monotone in the size there; measure before moving them): with a small
// top group, a 64 KiB allreduce in one step is predicted slower than 64 KiB
// + 1 in chunks whose top group works in slices; a tree allgather (and
// allgatherv) just under the slot size slower than the flat path above it (in the tree every
// member of a large group reads the whole result from one area at once).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "collectives/config.hpp"
#include "collectives/plan.hpp"
#include "collectives/types.hpp"
#include "core/status.hpp"
#include "shm/layout.hpp"
#include "topology/build.hpp"
#include "topology/machine_tree.hpp"
#include "topology/tree.hpp"
#include "tuning/costs.hpp"
#include "virtual_hier/spec.hpp"

namespace osmp {

// The sizes of the engine's areas (team options; the defaults of shm/layout.hpp).
struct ModelOptions {
  std::size_t slot_bytes = kDefaultSlotBytes;
  std::size_t bcast_bytes = kDefaultBcastBytes;
  // Every rank's buffers lie in the shared heaps (osmp_alloc, MPI shared
  // windows): the plan's heap single copy carries the calls that have one.
  bool in_heap = false;
};

// One row of a prediction: one phase at one depth of the tree.
struct LevelTerm {
  std::string phase;       // "header up", "up", "top", "down", "chunks up", "flat", ...
  int depth = 0;           // of the domains (0: the root); -1 for the flat paths
  std::string level;       // the slowest group's level ("Package-v1"), or "team"
  std::string cost_level;  // the calibration entry its costs came from ("L3Cache")
  int groups = 0;          // groups at this depth
  int group_size = 0;      // members of the slowest group
  std::string base;        // "flat", "knomial:4", "symmetric", "slices"
  double bytes = 0;        // what the slowest group's slowest reader moves, bytes
  double us = 0;           // this row's share of the total
};

struct Prediction {
  OpKind op = OpKind::barrier;
  std::size_t bytes = 0;  // per rank
  double us = 0;          // the sum of the terms
  std::string path;       // "one step", "header step + 16 pipelined chunks", ...
  std::vector<LevelTerm> terms;
};

// The costs a group at `domain` pays: those of the physical level it belongs
// to (a virtual domain's are those of the physical domain it was split
// from). A domain that stands for several levels (Package+NUMANode+L3Cache)
// tries them closest first: the deepest cache among them (processes sharing
// a cache hand data over through it), then the others bottom-up. A level the
// calibration does not list falls back to the nearest listed level above it:
// the parent domain's levels, and so on up to the root. Errc::not_found when
// nothing on the way up is listed.
Result<LevelCost> level_cost(const Tree& tree, int domain, const Calibration& cal);

// The plan settings the model predicts with: the configuration's, on a team
// on `tree` that may copy with CMA where the configuration allows it
// (OSMP_CMA) and makes one-pass calls where a team on that tree would
// (OSMP_CHECK, OSMP_ONE_PASS_MAX: PlanSettings::of): a small bcast or
// scatter down only, reduce or gather up only. Scan's and exscan's prefix
// top and gatherv's and scatterv's rows (one-group teams) are predicted by
// their strict plan.
PlanSettings model_settings(const CollectiveConfig& config, const Tree& tree);

// The predicted latency of one call of `op` with `bytes` per rank (for
// gather, allgather, scatter and reduce_scatter_block: the block of one
// rank; the v-variants: as if every rank passed a block of `bytes`), and
// where the time goes. The root is taken as rank 0.
Result<Prediction> predict(const Tree& tree, const Calibration& cal, const CollectiveConfig& config, OpKind op,
                           std::size_t bytes, const ModelOptions& options = {});

// What recommend() weighs: every op at every size, equally.
struct Workload {
  std::vector<OpKind> ops;
  std::vector<std::size_t> sizes;  // bytes per rank
};

struct Candidate {
  std::string spec;                     // "none", "Package:7", "NUMANode:2,L3Cache:3"
  std::vector<int> degrees;             // per split level of Recommendation::levels, 1 = none
  int levels = 0;                       // levels of its tree that have groups
  std::vector<std::vector<double>> us;  // [op][size], predicted
  std::vector<double> op_us;            // per op: geometric mean over the sizes
  double score_us = 0;                  // geometric mean over every op and size
};

struct Recommendation {
  std::vector<std::string> levels;       // the physical levels considered for splitting
  bool exhaustive = true;                // every combination (else greedy, level by level)
  std::vector<Candidate> candidates;     // best first
  std::vector<std::string> best_per_op;  // spec text, in Workload::ops order
  std::string best;                      // spec text, best over everything
};

// Builds the tree of a candidate spec (empty spec: no virtual levels).
using TreeBuilder = std::function<Result<Tree>(const VhSpec&)>;

// Enumerates virtual-hierarchy specs and ranks them by predicted time. Every
// physical level whose largest group has at least kMinSplitMembers members
// gets degrees 1 (none) .. largest group - 1 (at most kMaxDegree); levels are
// combined exhaustively while there are at most kMaxExhaustive combinations,
// else chosen greedily top-down, each level's best degree with the levels
// above fixed. Specs that give the same tree as an earlier one are dropped.
// Order: score, then the shallower tree, then the smaller degrees.
inline constexpr int kMinSplitMembers = 4;
inline constexpr int kMaxDegree = 64;
inline constexpr std::size_t kMaxExhaustive = 512;
Result<Recommendation> recommend(const TreeBuilder& build, const Calibration& cal, const CollectiveConfig& config,
                                 const Workload& work, const ModelOptions& options = {});
// The same on `machine` with one place per rank (virtual_hier's build_tree).
Result<Recommendation> recommend(const MachineTree& machine, std::span<const CpuSet> places,
                                 const BuildOptions& build_options, const Calibration& cal,
                                 const CollectiveConfig& config, const Workload& work,
                                 const ModelOptions& options = {});

// Typical figures for every level of `machine`, by kind of level, for
// machines nobody calibrated (costs.hpp: typical_level_cost(), with their
// sources); source "typical figures (not measured)".
Calibration default_calibration(const MachineTree& machine);

}  // namespace osmp
