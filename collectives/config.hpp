// Tunables of the collectives. Every rank must use the same values (they
// change the protocol); team creation checks it.
//
//   OSMP_BASE_CASE   base case per group: "auto" (default), "flat", "knomial",
//                    "knomial:K", or per level "L3Cache=flat,Package=knomial:2,*=auto"
//   OSMP_FLAT_MAX    auto: groups of up to this many members use flat, larger
//                    ones k-nomial (default 8: a leader reading 8 lines costs
//                    about one extra hop, see virtual_hier/spec.hpp)
//   OSMP_KNOMIAL_RADIX  radix of k-nomial when not given (default 4)
//   OSMP_SYMMETRIC_MAX  top groups of up to this many members run one-step
//                    operations with inline data symmetrically: every member
//                    reads every other's line and computes the result itself,
//                    one hop instead of two (default 8; 0 turns it off)
//   OSMP_SYMMETRIC_SLOT_MAX  top groups of up to this many members (and no
//                    more than OSMP_SYMMETRIC_MAX) also run one-step allreduce
//                    whose data fits a slot symmetrically: each puts its data
//                    in its slot, reads the others' and combines them itself
//                    (one hand-off and one copy less than the tree: 1.8-2.5x
//                    faster at 1-64 KiB on 2 processes here; default 2, 0 off),
//                    alltoall, allgather, allgatherv, reduce_scatter_block
//                    and reduce_scatter (over single ranks
//                    each copies every other's block from its slot straight
//                    to its place: allgather 2.9 us against 7.8 at 8 KiB);
//                    and the first step of gatherv, scatterv and alltoallv
//                    with each rank's row and its small blocks in its slot
//   OSMP_CMA         auto (default) / 1 / 0: single copy with
//                    process_vm_readv / process_vm_writev between the ranks'
//                    own buffers. 1: wherever the kernel allows (probed at
//                    team creation); auto: where it allows and the copy pays
//                    on this host (cma_pays: the team's ranks time it against
//                    memcpy once per process, shm/cma.hpp); 0: never
//   OSMP_CMA_MIN, OSMP_CMA_MAX  bytes per rank where it is used (default
//                    auto .. 64M). auto (CmaRange), where it won
//                    here, interleaved: bcast from 128K (the root writes 1/n of
//                    each receiver's buffer while the receivers read the rest:
//                    0.45-0.64x the areas' time at 128-512K), allgather and
//                    allgatherv from 32K (also before a one-step call whose
//                    data would fit the areas: 0.75x at 32K), allreduce 64K-1M (0.8-0.9x) and
//                    reduce_scatter_block 64-512K (0.7-0.75x) as slice-parallel
//                    reductions, gather (the senders write into the root's
//                    buffer) and scatter (the receivers read from it) from
//                    64K, the root copying its own block meanwhile: 0.55-0.92x
//                    the areas' time at 64-512K (2 processes; 4 and 8 on 2
//                    cores 0.76-0.95x); at 1M 0.6x the time of the root
//                    copying first (an earlier host, that serial version:
//                    gather of 512K 57-117 us with it, 49-71 us without);
//                    gatherv and scatterv outside their one pass too, the
//                    root's outbox saying where each block goes (strict, 2
//                    processes, 64-512K: 0.5-0.7x the areas' time; 4 on 2
//                    cores 0.57-0.7x)
//   OSMP_DIRECT      1 (default) / 0: single copy through the shared heap
//                    (team/heaps.hpp) and the shared regions (shm/regions.hpp:
//                    MPI shared windows) for calls too large for the areas
//                    whose buffers are there; before OSMP_CMA (docs/heap.md)
//   OSMP_STAGE       1 (default) / 0: calls of OSMP_STAGE_MIN bytes per rank or
//                    more copy an input outside the heap that peers read into a
//                    block of this rank's heap first (and allreduce its output),
//                    so that plain buffers take the single-copy path too, with
//                    one local copy more. OSMP_STAGE_MIN "auto" (default): where
//                    it won here (stage_from()): from 1M, allreduce from 128K;
//                    never where CMA carries the call;
//                    below, the areas' pipelined chunks, which start moving
//                    data at once, are faster (gather of 512K: 98-135 us
//                    staged, 49-53 us through the areas)
//   OSMP_CHECK       how mismatched arguments are found (docs/protocol.md,
//                    "One-pass calls"). lazy (default): small bcast,
//                    scatter, reduce and gather make one pass over any tree
//                    (scan and exscan, and gatherv and scatterv at any size
//                    where CMA is allowed, on a tree of one group), the op
//                    header riding with the data; a rank that already
//                    returned learns of a mismatch in its next call on the
//                    team (which then fails on every rank) or in
//                    Team::finish / osmp_finalize. strict: every call agrees
//                    on the headers first (a round trip), so every rank gets
//                    the error in the faulty call itself.
//   OSMP_ONE_PASS_MAX  lazy: a team makes one-pass calls while no group of
//                    its tree has more than this many units (default 64,
//                    which every tree osmp builds by default keeps; 0 turns
//                    them off). Each step of such a team waits for the acks
//                    of every unit of each group the rank acts in.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/ops/describe.hpp"
#include "collectives/types.hpp"
#include "core/status.hpp"

namespace osmp {

// Where operations copy with CMA (collectives/ops/cma.cpp): [from(k),
// until(k)) bytes per rank, and no more than `max`. Set OSMP_CMA_MIN, every
// operation from there.
struct CmaRange {
  static constexpr std::size_t kAuto = ~std::size_t{0};
  std::size_t min = kAuto;                  // OSMP_CMA_MIN
  std::size_t max = std::size_t{64} << 20;  // OSMP_CMA_MAX
  // The operation's own thresholds (its description: CopyRange, ops/description.hpp) unless set.
  std::size_t from(OpKind k) const { return min != kAuto ? min : describe(k).copies.cma_from; }
  std::size_t until(OpKind k) const { return min != kAuto ? kAuto : describe(k).copies.cma_until; }
  bool covers(OpKind k, std::size_t bytes) const { return bytes >= from(k) && bytes < until(k) && bytes <= max; }
};

// OSMP_CMA=auto: CMA's single copy pays where process_vm_readv of a MiB
// takes at most kCmaPaysSlowdown times memcpy's time (cma_slowdown(),
// shm/cma.hpp). CMA replaces the areas' two copies (into the area, out of
// it) by one copy plus pinning each page, so it pays while it costs less
// than about two copies: 2.5 leaves room for noise above 2 and stays well
// below the 4 of a host where it lost. There (a VM, 2026-12-03) a MiB took
// 4.2-4.5x memcpy's time (256 KiB 8x, 4 MiB 4x) and with OSMP_CMA=0 the
// areas took 0.2-0.55x CMA's time at 32-512 KiB (allgather, allreduce,
// bcast, exscan, gather, scatter, reduce_scatter_block, alltoall; 2
// processes bound), 0.7-1.4x at 1-4 MiB; the thresholds of the operations'
// descriptions were measured on a host where CMA beat the areas (0.45-0.9x).
inline constexpr double kCmaPaysSlowdown = 2.5;
constexpr bool cma_pays(double slowdown) { return slowdown > 0 && slowdown <= kCmaPaysSlowdown; }

// What the team found CMA can do (api/views.cpp): `works`, every rank can
// read and write every other's memory; `pays`, at least half of them timed
// it as cma_pays. Policy (OSMP_CMA) is applied to it by Engine::cma_settings.
struct CmaProbe {
  bool works = false;
  bool pays = false;
};

struct BaseCase {
  enum class Kind { automatic, flat, knomial };
  Kind kind = Kind::automatic;
  int radix = 0;  // knomial; 0: the default radix
};

struct CollectiveConfig {
  BaseCase default_case;
  std::map<std::string, BaseCase> per_level;  // canonical level name -> base case
  int flat_max = 8;
  int radix = 4;
  int sym_max = 8;
  int sym_slot_max = 2;
  enum class Cma { off, automatic, on };  // OSMP_CMA: 0, auto, 1
  Cma cma = Cma::automatic;
  bool direct = true;
  bool stage = true;
  static constexpr std::size_t kAuto = ~std::size_t{0};
  std::size_t stage_min = kAuto;
  // The bytes per rank from which operation `k` stages plain buffers;
  // `with_cma`: CMA's range covers this call (the plan's cma_carries), which beat
  // staging here for every operation (2 processes, 1 MiB: alltoall 270-286
  // us against 618-704 staged, gather 279-315 / 457-470, allgather 312-313
  // / 422-508, scatter 270-277 / 405-468; 4 MiB 1.1-1.5x), so that a call
  // CMA carries never stages.
  std::size_t stage_from(OpKind k, bool with_cma) const {
    if (stage_min != kAuto) return stage_min;
    if (with_cma) return kAuto;  // never: CMA's single copy without the local one won everywhere
    return describe(k).copies.stage_from;
  }
  CmaRange cma_range;          // OSMP_CMA_MIN, OSMP_CMA_MAX
  bool lazy = kLazyByDefault;  // OSMP_CHECK
  int one_pass_max = 64;
  static constexpr bool kLazyByDefault = true;

  static Result<CollectiveConfig> from_env();
  // Sets one of the OSMP_* settings above by name, from its text (the same
  // syntax as the environment variable); the error names the setting.
  Status set(std::string_view name, std::string_view value);
  // The settings set() knows, and those that may differ per operation.
  static bool known(std::string_view name);
  // Every name set() knows, in a fixed order.
  static std::vector<std::string_view> names();
  static bool per_op(std::string_view name);
  static Result<BaseCase> parse_base_case(const std::string& text);
  Status set_base_cases(const std::string& spec);  // "flat" or "L3=flat,*=knomial:2"
  // The base case a group of `members` at `level` uses: flat or knomial(k).
  BaseCase choose(const std::string& level, int members) const;
  // A canonical text of every setting, compared across ranks.
  std::string fingerprint() const;
};

}  // namespace osmp
