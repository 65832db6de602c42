// What the interposer knows about each communicator: whether osmp runs its
// collectives, the node team, and for communicators that span nodes the node
// layout and the leaders' communicator. Built at the first collective call on
// the communicator (collective), freed with it (an attribute).
#pragma once

#include <mpi.h>

#include <atomic>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "osmp.hpp"

namespace osmp::pmpi {

struct CommState {
  // alone: one process (MPI_COMM_SELF, ...): every call is the local copy it implies.
  enum class Kind { declined, alone, node, nodes } kind = Kind::declined;
  std::string declined_because;
  MPI_Comm comm = MPI_COMM_NULL;
  unsigned ops = 0;                      // the operations osmp runs here (agreed: OSMP_PMPI_OPS)
  std::optional<Team> team;              // this process's node (all of comm when kind == node)
  std::uint64_t shm_bytes = 0;           // the team's shared memory
  MPI_Comm leaders = MPI_COMM_NULL;      // kind == nodes: local rank 0 of every node
  MPI_Comm node = MPI_COMM_NULL;         // kind == nodes: this node's ranks (root <-> leader)
  std::vector<int> node_of, local_of;    // per comm rank
  std::vector<int> leader_rank_of_node;  // rank in `leaders` of each node
  // Every node's ranks follow one another in comm, in their local order
  // (so the nodes come in the leaders' order): scan's rank order is the
  // nodes' order, then each node's (nodes_scan).
  bool nodes_in_rank_order = false;
  int my_node = 0;
  // kind == nodes: the leaders agree on every call before the MPI's own
  // collective among them (OSMP_CHECK=strict on some rank: agree.hpp), or
  // run only that collective, each node keeping its own verdict (lazy, the
  // default). Agreed at creation; the osmp_check info hint changes it on
  // every rank alike.
  bool leaders_agree = false;
  // A call on the node whose buffers osmp takes as they are goes the lean
  // way (logic.cpp; OSMP_PMPI_LEAN=0: every call prepared, for tests).
  bool lean = true;
  int rank = 0, size = 0;  // in comm (unset for an intercommunicator)
  // kind == node: comm's MPI_COMM_WORLD ranks (reuse.hpp: who may take its
  // team once it is freed; empty: nobody).
  std::vector<int> world;
  // An info hint reconfigured the team (hints.cpp): not kept for reuse.
  bool reshaped = false;
  // The team's single copies before this communicator took it (a kept team).
  std::uint64_t copies_before = 0;
};

// The state of `comm`, built on first use (collective over comm).
CommState& state_of(MPI_Comm comm);
// The state of `comm` if it was built, else null (not collective).
CommState* existing_state(MPI_Comm comm);
// Every call looks its communicator's state up: each thread keeps its last
// answer, valid while no state has been released since (the generation,
// bumped by delete_state before a state goes; MPI_Finalize releases every
// state). A handle is reused only after its delete callback has run, so a
// kept answer for a reused handle is of an older generation. The atomic
// publishes no data: freeing a communicator while another thread uses it is
// erroneous, so the program's own synchronisation orders a free before any
// other thread's next use of that handle (relaxed would do; acquire/acq_rel
// cost nothing more here).
extern std::atomic<std::uint64_t> g_generation;
// Set when MPI_Finalize begins (release_at_finalize): from then on every call
// asks the MPI (PMPI_Finalized, the attribute), as before any state existed.
// Relaxed: it orders nothing else; MPI_Finalize runs in the thread that
// makes MPI calls then (MPI forbids other threads' calls during and after
// it), so that thread reads its own store.
extern std::atomic<bool> g_finalizing;
struct Known {
  MPI_Comm comm{};  // none (a constant initializer: MPI_COMM_NULL is not one in Open MPI)
  CommState* st = nullptr;
  std::uint64_t generation = ~std::uint64_t{0};
};
extern thread_local constinit Known t_known;  // constinit: no wrapper call to reach it

// The state of `comm` if this thread looked it up last, no state was
// released since and MPI_Finalize has not begun (no MPI call), else null.
// Inline: every call asks.
inline CommState* known_state(MPI_Comm comm) {
  if (g_finalizing.load(std::memory_order_relaxed)) return nullptr;
  const Known& k = t_known;
  return k.comm == comm && k.generation == g_generation.load(std::memory_order_acquire) ? k.st : nullptr;
}
// The osmp_vh hints of comm's info, applied to a state just built (hints.cpp).
int apply_creation_hints(CommState& st);
// Frees every state still alive (MPI_Finalize): announces the finish on
// every team first, then finishes each alone (Calls::finish), reporting an
// error an earlier one-pass call left through its communicator's handler.
void release_all();

// The bit of an operation in the masks below (1 << its place in osmp_ops.h).
constexpr unsigned op_bit(OpKind k) { return 1u << op_index(k); }
inline constexpr unsigned kAllOps = (1u << kOpKindCount) - 1;
static_assert(kOpKindCount < 32, "the operation masks are unsigned ints");

// Settings: OSMP_PMPI (0 turns the interposer off), OSMP_PMPI_OPS (which
// collectives, default all), OSMP_PMPI_STATS / OSMP_VERBOSE >= 2 (report),
// OSMP_PMPI_SHM_MAX (the most shared memory this process's teams may map
// together; a communicator whose team would pass it runs on the MPI),
// OSMP_PMPI_REUSE (freed communicators' teams kept for reuse, reuse.hpp).
// Each rank reads its own environment; a communicator runs on osmp only
// what every rank's settings allow (agreed when its state is built).

inline constexpr int kDefaultReuse = 4;  // OSMP_PMPI_REUSE
struct Settings {
  bool enabled = true;
  bool lean = true;  // OSMP_PMPI_LEAN
  unsigned ops = kAllOps;
  bool stats = false;
  std::uint64_t shm_max = 0;
  int reuse = kDefaultReuse;
};
const Settings& settings();

// Counters and the once-per-reason log: how many calls ran on osmp and on
// the MPI (inline: every call counts itself).
extern long long g_calls[2];  // [on_osmp]
inline void count(bool on_osmp) { ++g_calls[on_osmp ? 1 : 0]; }
// Teams alive, kept for reuse (reuse.hpp) and the shared memory of both,
// now and at most (for the report).
struct ShmUse {
  int teams = 0, peak_teams = 0;
  int kept = 0;
  long long reused = 0;  // communicators that took a kept team
  std::uint64_t bytes = 0, peak_bytes = 0;
};
const ShmUse& shm_use();
// A team made for a communicator, let go with it, kept when it was freed,
// taken from the kept ones, or let go from them.
enum class TeamEvent { made, freed, kept, taken, dropped };
void note_team(TeamEvent e, std::uint64_t bytes);
long long calls(bool on_osmp);
// Calls of this process's teams that moved their data by single copy
// through the shared heap (memory.cpp: MPI_Alloc_mem's buffers).
long long single_copies();
void declined(const std::string& reason);
void report(int world_rank);
// This process's MPI_COMM_WORLD rank as seen at its first collective.
int reporting_rank();

}  // namespace osmp::pmpi
