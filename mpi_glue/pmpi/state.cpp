#include "mpi_glue/pmpi/state.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <set>

#include "api/access.hpp"
#include "core/env.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"
#include "mpi_glue/pmpi/agree.hpp"
#include "mpi_glue/pmpi/bootstrap.hpp"
#include "mpi_glue/pmpi/call.hpp"
#include "mpi_glue/pmpi/errors.hpp"
#include "mpi_glue/pmpi/reuse.hpp"
#include "shm/segment.hpp"
#include "team/team.hpp"

namespace osmp::pmpi {

// The look-up every call makes (known_state, state.hpp).
std::atomic<std::uint64_t> g_generation{0};
std::atomic<bool> g_finalizing{false};
constinit thread_local Known t_known;

namespace {

std::set<CommState*>& live() {
  static std::set<CommState*> s;
  return s;
}

void count_single_copies(long long n);

// A freed communicator's team waits for the next one over the same
// processes (reuse.hpp) if it lay on one node with the process's own
// settings; MPI_Finalize lets every team go.
bool keepable(const CommState& st) {
  return st.kind == CommState::Kind::node && !st.reshaped && !st.world.empty() && settings().reuse > 0 &&
         !g_finalizing.load(std::memory_order_relaxed);
}

int delete_state(MPI_Comm comm, int, void* value, void*) {
  // Non-blocking calls still on this communicator's team end first
  // (MPI_Comm_free is collective: every rank has started them).
  complete_osmp_parts(comm);
  auto* st = static_cast<CommState*>(value);
  // Leaving the team: the error of an earlier one-pass call that another
  // rank found and this one was not told of yet, through comm's handler.
  // MPI_Finalize waits for every rank's last call (it announced on every
  // team first: release_all); MPI_Comm_free waits for nobody (real MPIs do
  // not synchronise it, and programs free communicators in orders of their
  // own): only an error already raised. The callback itself always
  // succeeds: an MPI keeps a communicator whose attribute's delete failed
  // (and its attribute, which would name this freed state).
  bool kept = false;
  if (st->team) {
    const bool finalizing = g_finalizing.load(std::memory_order_relaxed);
    Status left;
    if (keepable(*st)) {  // paused, not left: its next call continues the numbering
      left = TeamAccess::pause(*st->team);
      kept = left.ok() && core_of(*st->team).usable().ok();
    } else {
      left = finalizing ? TeamAccess::finish_alone(*st->team) : TeamAccess::leave(*st->team);
    }
    if (!left.ok()) {
      const int code =
          error_code(comm, finalizing ? "MPI_Finalize" : "MPI_Comm_free", class_of(left.code()), left.message());
      PMPI_Comm_call_errhandler(comm, code);
    }
  }
  // Before the state goes: a thread that reads the new generation asks the
  // attribute again (the ordering: see g_generation).
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  if (st->leaders != MPI_COMM_NULL) PMPI_Comm_free(&st->leaders);
  if (st->node != MPI_COMM_NULL) PMPI_Comm_free(&st->node);
  if (st->team) {
    count_single_copies(static_cast<long long>(st->team->single_copies() - st->copies_before));
    if (kept)
      keep(std::move(st->world), std::move(*st->team), st->shm_bytes);
    else
      note_team(TeamEvent::freed, st->shm_bytes);
  }
  live().erase(st);
  delete st;
  return MPI_SUCCESS;
}

int keyval() {
  static int kv = MPI_KEYVAL_INVALID;
  // A duplicate gets its own state on first use: no copy.
  if (kv == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &kv, nullptr);
  return kv;
}

int world_rank() {
  int r = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Where every rank of comm is, from one allgather over comm: its node (the
// simulated nodes of OSMP_SIM_RANKS_PER_NODE, as libosmp_mpi; else its host,
// as MPI_COMM_TYPE_SHARED groups processes) and its rank within the node, in
// comm's order. No communicator is created for it: Open MPI 4.1's
// MPI_Comm_split and MPI_Comm_split_type wait forever on a rank where an
// MPI_Comm_idup of another communicator is pending (MPICH's
// comm_idup_iallreduce, a legal program, hung in the split this made inside
// its collective).
struct Placement {
  std::vector<int> node_of, local_of;  // per comm rank; nodes numbered in order of their first rank
  int nodes = 0, widest = 0;           // how many nodes; the most ranks on one
  // Simulated nodes on one machine: more of comm's processes share this
  // machine than it has CPUs, which a node's team, seeing only its own
  // processes, cannot tell.
  bool crowded = false;
};
Placement place_ranks(MPI_Comm comm, int rank, int size) {
  struct Where {
    std::int32_t sim = -1;  // simulated node, or -1
    char host[MPI_MAX_PROCESSOR_NAME] = {};
  };
  Where mine;
  auto rpn = env_int("OSMP_SIM_RANKS_PER_NODE", 0, 0, 1 << 24);
  if (rpn.ok() && *rpn > 0) mine.sim = world_rank() / static_cast<int>(*rpn);
  int len = 0;
  PMPI_Get_processor_name(mine.host, &len);
  std::vector<Where> all(static_cast<std::size_t>(size));
  PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm);
  auto same_host = [](const Where& a, const Where& b) { return std::strncmp(a.host, b.host, sizeof a.host) == 0; };
  auto same_node = [&](const Where& a, const Where& b) { return a.sim >= 0 ? a.sim == b.sim : same_host(a, b); };
  Placement p;
  std::vector<int> first;  // the first rank of each node
  std::vector<int> count;  // ranks so far on each node
  int on_my_host = 0;
  for (int r = 0; r < size; ++r) {
    const Where& w = all[static_cast<std::size_t>(r)];
    int n = 0;
    while (n < p.nodes && !same_node(all[static_cast<std::size_t>(first[static_cast<std::size_t>(n)])], w)) ++n;
    if (n == p.nodes) {
      first.push_back(r);
      count.push_back(0);
      ++p.nodes;
    }
    p.node_of.push_back(n);
    p.local_of.push_back(count[static_cast<std::size_t>(n)]++);
    p.widest = std::max(p.widest, count[static_cast<std::size_t>(n)]);
    if (same_host(w, all[static_cast<std::size_t>(rank)])) ++on_my_host;
  }
  p.crowded = mine.sim >= 0 && on_my_host > static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  return p;
}

// The communicator of the ranks of comm that `pick` selects, in comm's order
// (collective over comm: every rank passes the group it belongs to, disjoint
// groups, or none; MPI_COMM_NULL where none). MPI_Comm_create allocates its
// context as MPI_Comm_dup does, which Open MPI completes beside a pending
// MPI_Comm_idup (place_ranks).
template <class Pick>
MPI_Comm sub_comm(MPI_Comm comm, int size, Pick&& pick) {
  std::vector<int> members;
  for (int r = 0; r < size; ++r)
    if (pick(r)) members.push_back(r);
  MPI_Group all = MPI_GROUP_NULL, mine = MPI_GROUP_EMPTY;
  PMPI_Comm_group(comm, &all);
  if (!members.empty()) PMPI_Group_incl(all, static_cast<int>(members.size()), members.data(), &mine);
  MPI_Comm out = MPI_COMM_NULL;
  PMPI_Comm_create(comm, mine, &out);
  if (mine != MPI_GROUP_EMPTY) PMPI_Group_free(&mine);
  PMPI_Group_free(&all);
  return out;
}

// `crowded`: waits yield at once (OSMP_WAIT=yield unless it is set), as an
// oversubscribed team's do: a node's part waiting for its leader's MPI part
// must leave the CPU to the processes of the other simulated nodes.
// `one_node`: comm lies on one node, whose team is all of it.
Result<Team> make_team(MPI_Comm node, bool crowded, bool one_node) {
  OSMP_ASSIGN_OR_RETURN(Options options, Options::from_env());
  if (crowded && !options.settings.contains("OSMP_WAIT")) options.settings["OSMP_WAIT"] = "yield";
  options.settings["OSMP_TOPOLOGY"] = "native";  // simulated nodes are only about grouping
  options.settings.erase("OSMP_PLACE");
  // On one node, OSMP_CHECK as it is set (lazy by default): small one-way
  // calls make one pass, and a mismatch reaches the ranks that did not see
  // it at their next call on comm, MPI_Comm_free or MPI_Finalize
  // (delete_state), through comm's error handler. Across nodes every call
  // agrees in the node first (strict), so that every rank of a node holds
  // the node's verdict before its leader acts on it (nodes.cpp).
  if (!one_node) options.settings["OSMP_CHECK"] = "strict";
  MpiBootstrap boot(node);
  return Team::create(boot, options);
}

// Whether this process asks for OSMP_CHECK=strict (the environment, where
// coll_osmp_check puts it; a value that is no mode fails team creation).
bool asks_strict() {
  const char* check = std::getenv("OSMP_CHECK");
  return check && iequals(trim(check), "strict");
}

// The one agreement every state starts with: the operations every rank
// lets osmp run (OSMP_PMPI, OSMP_PMPI_OPS), and the kept team every rank
// proposes for comm (reuse.hpp; 0: none, or ranks that proposed different
// ones). A bitwise and of (ops, id, ~id): every rank proposed the same id
// exactly when the and of the ids is the complement of the and of their
// complements (their or), which every rank sees alike.
struct Agreed {
  unsigned ops = 0;
  std::uint64_t kept = 0;
};
Agreed agree_at_start(MPI_Comm comm, std::uint64_t proposed) {
  const std::uint64_t ops = settings().enabled ? (settings().ops & kAllOps) : 0u;
  std::uint64_t mine[3] = {ops, proposed, ~proposed}, all[3] = {};
  PMPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_BAND, comm);
  return {static_cast<unsigned>(all[0]), all[1] != 0 && all[1] == ~all[2] ? all[1] : 0};
}

// This node's team, unless creating it failed or would pass OSMP_PMPI_SHM_MAX.
Result<Team> node_team(MPI_Comm node, bool crowded, bool one_node) {
  Result<Team> team = make_team(node, crowded, one_node);
  if (!team.ok()) return team;
  const std::uint64_t bytes = core_of(*team).shm_bytes(), max = settings().shm_max;
  if (max) make_room(bytes, max);  // kept teams go first
  if (max && shm_use().bytes + bytes > max)
    return Status(Errc::no_space,
                  cat("its team would take this process's teams to ", format_bytes(shm_use().bytes + bytes),
                      " of shared memory, over OSMP_PMPI_SHM_MAX (", format_bytes(max), ")"));
  return team;
}

// Node, local rank and leaders' rank of every comm rank.
void map_nodes(CommState& st, const Placement& p) {
  st.node_of = p.node_of;
  st.local_of = p.local_of;
  st.leader_rank_of_node.assign(static_cast<std::size_t>(p.nodes), -1);
  int leaders_seen = 0;
  for (std::size_t r = 0; r < p.node_of.size(); ++r)
    if (p.local_of[r] == 0) st.leader_rank_of_node[static_cast<std::size_t>(p.node_of[r])] = leaders_seen++;
  // Local ranks count up within a run of one node's ranks and restart at 0
  // with the next: a node split in two runs would restart at a rank > 0.
  st.nodes_in_rank_order = true;
  for (std::size_t u = 0; u < p.node_of.size() && st.nodes_in_rank_order; ++u) {
    const bool next_node = u == 0 || st.node_of[u] != st.node_of[u - 1];
    st.nodes_in_rank_order = st.local_of[u] == (next_node ? 0 : st.local_of[u - 1] + 1);
  }
}

// Every step is decided from what all ranks know (size, intercommunicator)
// or agreed (settings, team creation on every node), so every rank of comm
// ends with the same kind.
void build(CommState& st, MPI_Comm comm) {
  st.comm = comm;
  st.lean = settings().lean;
  int inter = 0, size = 0, rank = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) {
    st.declined_because = "intercommunicator";
    return;
  }
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  st.rank = rank;
  st.size = size;
  std::vector<int> world = size > 1 && settings().reuse > 0 ? world_ranks(comm, size) : std::vector<int>{};
  const std::uint64_t proposed = world.empty() ? 0 : reserve_kept(world);
  const Agreed agreed = agree_at_start(comm, proposed);
  st.ops = agreed.ops;
  if (proposed && !(agreed.kept && st.ops)) unreserve_kept(proposed);
  if (size == 1 && st.ops) {
    st.kind = CommState::Kind::alone;
    return;
  }
  if (st.ops == 0) {
    st.declined_because = "OSMP_PMPI or OSMP_PMPI_OPS turn osmp off (on some rank)";
    return;
  }
  if (agreed.kept) {  // every rank kept this team for these processes: all of comm, on one node
    st.team.emplace(take_kept(agreed.kept));
    st.shm_bytes = core_of(*st.team).shm_bytes();
    st.copies_before = st.team->single_copies();
    Placement one;
    one.nodes = 1;
    one.widest = size;
    one.node_of.assign(static_cast<std::size_t>(size), 0);
    one.local_of.resize(static_cast<std::size_t>(size));
    std::iota(one.local_of.begin(), one.local_of.end(), 0);
    map_nodes(st, one);
    st.world = std::move(world);
    st.kind = CommState::Kind::node;
    return;
  }
  const Placement where = place_ranks(comm, rank, size);
  // One process on every node (node leaders' communicators, one rank per
  // node): nothing is shared in a node, and every call would be the
  // MPI's own collective with osmp's hand-offs (strictly its agreement too)
  // on top.
  if (where.widest == 1) {
    st.declined_because = "one process on every node (nothing to share in a node: the MPI's own collectives)";
    return;
  }
  // On one node the team's bootstrap runs over comm itself: no communicator
  // is made for it.
  const int my_node = where.node_of[static_cast<std::size_t>(rank)];
  MPI_Comm node = where.nodes == 1 ? comm : sub_comm(comm, size, [&](int r) {
    return where.node_of[static_cast<std::size_t>(r)] == my_node;
  });
  auto drop_node = [&] {
    if (node != comm) PMPI_Comm_free(&node);
  };
  // agreed across the node by team creation
  Result<Team> team = node_team(node, where.crowded, where.nodes == 1);
  // Bit 1: this node's team failed; bit 2: this rank asks the leaders to
  // agree on every call (across nodes, where one rank asking is enough).
  constexpr int kFailed = 1, kStrict = 2;
  const int mine = (team.ok() ? 0 : kFailed) | (where.nodes > 1 && asks_strict() ? kStrict : 0);
  int any = 0;
  PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_BOR, comm);
  if (any & kFailed) {
    drop_node();
    st.declined_because = team.ok() ? "team creation failed on another node" : team.status().to_string();
    return;
  }
  st.team.emplace(std::move(*team));
  st.shm_bytes = core_of(*st.team).shm_bytes();
  note_team(TeamEvent::made, st.shm_bytes);
  map_nodes(st, where);
  st.my_node = my_node;
  if (where.nodes == 1) {
    st.world = std::move(world);
    st.kind = CommState::Kind::node;
    return;
  }
  st.node = node;
  st.leaders_agree = (any & kStrict) != 0;
  st.leaders = sub_comm(comm, size, [&](int r) { return where.local_of[static_cast<std::size_t>(r)] == 0; });
  st.kind = CommState::Kind::nodes;
}

}  // namespace

int g_world_rank = -1;

namespace {
// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still
// works: every team goes then, also through the Open MPI component, and for
// communicators the program never freed.
int release_at_finalize(MPI_Comm, int, void*, void*) {
  g_finalizing.store(true, std::memory_order_relaxed);
  complete_all();  // non-blocking calls the program freed or never waited for
  release_all();
  return MPI_SUCCESS;
}
void hook_finalize() {
  int kv = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, release_at_finalize, &kv, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, kv, nullptr);
}
}  // namespace

CommState& state_of(MPI_Comm comm) {
  if (g_world_rank < 0) {
    g_world_rank = world_rank();
    hook_finalize();
  }
  if (CommState* st = existing_state(comm)) return *st;
  auto* st = new CommState;
  build(*st, comm);
  if (st->kind == CommState::Kind::declined) declined("communicator: " + st->declined_because);
  live().insert(st);
  PMPI_Comm_set_attr(comm, keyval(), st);
  if (st->team) apply_creation_hints(*st);
  return *st;
}

CommState* existing_state(MPI_Comm comm) {
  if (CommState* st = known_state(comm)) return st;
  const std::uint64_t generation = g_generation.load(std::memory_order_acquire);  // before the look-up
  void* value = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(comm, keyval(), &value, &flag);
  if (!flag) return nullptr;
  t_known = {comm, static_cast<CommState*>(value), generation};
  return static_cast<CommState*>(value);
}

void release_all() {
  g_finalizing.store(true, std::memory_order_relaxed);  // both callers are MPI_Finalize's
  release_kept();                                       // they leave at once: nobody waits for them
  std::vector<CommState*> all(live().begin(), live().end());
  for (CommState* st : all) {
    complete_osmp_parts(st->comm);
    if (st->team) TeamAccess::announce_finish(*st->team);
  }
  for (CommState* st : all) PMPI_Comm_delete_attr(st->comm, keyval());  // runs delete_state
  release_agreement();
}

const Settings& settings() {
  static const Settings s = [] {
    Settings v;
    auto on = env_bool("OSMP_PMPI", true);
    auto stats = env_bool("OSMP_PMPI_STATS", false);
    auto lean = env_bool("OSMP_PMPI_LEAN", true);
    auto verbose = env_int("OSMP_VERBOSE", 1, 0, 3);
    auto shm_max = env_size("OSMP_PMPI_SHM_MAX", 1ull << 30);
    auto reuse = env_int("OSMP_PMPI_REUSE", kDefaultReuse, 0, 1 << 16);
    v.enabled = !on.ok() || *on;
    v.lean = !lean.ok() || *lean;
    v.shm_max = shm_max.ok() ? *shm_max : (1ull << 30);
    v.reuse = reuse.ok() ? static_cast<int>(*reuse) : kDefaultReuse;
    v.stats = (stats.ok() && *stats) || (verbose.ok() && *verbose >= 2);
    if (auto ops = env_get("OSMP_PMPI_OPS")) {
      v.ops = 0;
      for (auto item : split(*ops, ',')) {
        if (iequals(trim(item), "all")) v.ops = kAllOps;
        if (auto k = parse_op_kind(trim(item)); k.ok()) v.ops |= op_bit(*k);
      }
    }
    return v;
  }();
  return s;
}

namespace {
struct Counters {
  long long single_copies = 0;  // of the teams already freed
  std::map<std::string, long long> reasons;
  ShmUse shm;
};
Counters& counters() {
  static Counters c;
  return c;
}

void count_single_copies(long long n) { counters().single_copies += n; }
}  // namespace

long long single_copies() {
  long long n = counters().single_copies;
  for (CommState* st : live())
    if (st->team) n += static_cast<long long>(st->team->single_copies() - st->copies_before);
  return n;
}

const ShmUse& shm_use() { return counters().shm; }

void note_team(TeamEvent e, std::uint64_t bytes) {
  ShmUse& u = counters().shm;
  switch (e) {
    case TeamEvent::made: ++u.teams, u.bytes += bytes; break;
    case TeamEvent::freed: --u.teams, u.bytes -= bytes; break;
    case TeamEvent::kept: --u.teams, ++u.kept; break;
    case TeamEvent::taken: ++u.teams, --u.kept, ++u.reused; break;
    case TeamEvent::dropped: --u.kept, u.bytes -= bytes; break;
  }
  u.peak_teams = std::max(u.peak_teams, u.teams);
  u.peak_bytes = std::max(u.peak_bytes, u.bytes);
}

long long g_calls[2] = {0, 0};

long long calls(bool on_osmp) { return g_calls[on_osmp ? 1 : 0]; }

void declined(const std::string& reason) {
  auto [it, fresh] = counters().reasons.emplace(reason, 0);
  ++it->second;
  if (fresh)
    log(LogLevel::info, "osmp_pmpi: using the MPI's own collective: ", reason);
  else
    log(LogLevel::debug, "osmp_pmpi: the MPI's own collective: ", reason);
}

int reporting_rank() { return g_world_rank < 0 ? 0 : g_world_rank; }

void report(int world_rank) {
  if (!settings().stats) return;
  const Counters& c = counters();
  std::string reasons;
  for (auto& [r, n] : c.reasons) reasons += cat("; ", n, "x ", r);
  std::fprintf(stderr,
               "osmp_pmpi: rank %d: %lld collectives on osmp, %lld by the MPI%s; teams: %d alive, at most %d, "
               "%lld communicators took a freed one's (OSMP_PMPI_REUSE %d), "
               "shared memory at most %s (OSMP_PMPI_SHM_MAX %s)\n",
               world_rank, g_calls[1], g_calls[0], reasons.c_str(), c.shm.teams, c.shm.peak_teams, c.shm.reused,
               settings().reuse, format_bytes(c.shm.peak_bytes).c_str(), format_bytes(settings().shm_max).c_str());
}

}  // namespace osmp::pmpi
