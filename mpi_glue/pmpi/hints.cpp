// Info hints that tune osmp on one communicator, for both routes:
//
//   osmp_vh            the virtual hierarchy of every collective ("Package:7",
//                      "none" for no virtual levels)
//   osmp_vh_<op>       of one: osmp_vh_reduce, osmp_vh_bcast, ... (after osmp_vh;
//                      the keys come from osmp_ops.h, where reduce_scatter_block's
//                      is osmp_vh_reduce_scatter: Open MPI keeps keys it tells
//                      components about under 28 characters)
//   osmp_check         the mismatch check (as OSMP_CHECK): "strict" makes
//                      every call agree on its arguments first, "lazy" (the
//                      default) one-pass calls; across nodes "strict"
//                      makes the leaders agree before the MPI's collective
//                      among them, "lazy" runs only that collective (each
//                      node's own part agrees in the node either way).
//
// Set with MPI_Comm_set_info (collective) or given at creation
// (MPI_Comm_dup_with_info, MPI_Comm_split_type with info): read when the
// communicator's osmp state is built, applied at once when it already is. Each
// node's team switches collectively (team/ agreement); then every rank of the
// communicator learns whether all nodes did. MPI_Comm_get_info reports the
// specs in effect.
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>

#include "core/log.hpp"
#include "core/strings.hpp"
#include "mpi_glue/pmpi/logic.h"
#include "mpi_glue/pmpi/state.hpp"

namespace osmp::pmpi {
namespace {

// "osmp_vh", then one key per operation, in osmp_ops.h's order, then
// "osmp_check"; null-ended.
#define OSMP_HINT_KEY_(name, Name, NAME, key, rooted, reduces, form) "osmp_vh_" #key,
constexpr const char* kCheckKey = "osmp_check";
const char* const kKeys[] = {"osmp_vh", OSMP_COLLECTIVES(OSMP_HINT_KEY_) kCheckKey, nullptr};
#undef OSMP_HINT_KEY_
static_assert(std::size(kKeys) == kOpKindCount + 3);
// The key of one operation.
const char* key_of(OpKind k) { return kKeys[op_index(k) + 1]; }

struct Hints {
  osmp::Settings all;
  std::map<OpKind, osmp::Settings> per_op;
  bool empty() const { return all.empty() && per_op.empty(); }
};

// One key: false when it is not ours or asks nothing ("").
bool add_hint(const char* key, const char* value, Hints& h) {
  if (!value || !value[0]) return false;
  const std::string v = iequals(trim(value), "none") ? "" : std::string(trim(value));
  if (std::strcmp(key, "osmp_vh") == 0) {
    h.all["OSMP_VH"] = v;
    return true;
  }
  if (std::strcmp(key, kCheckKey) == 0) {
    h.all["OSMP_CHECK"] = trim(value);
    return true;
  }
  for (OpKind k : kOpKinds) {
    if (std::strcmp(key, key_of(k)) == 0) {
      h.per_op[k]["OSMP_VH"] = v;
      return true;
    }
  }
  return false;
}

// The keys info holds, those of osmp read (a communicator's info holds few
// keys, mostly the MPI's own: one look-up each, not one per osmp key).
Hints hints_of(MPI_Info info) {
  Hints h;
  if (info == MPI_INFO_NULL) return h;
  int keys = 0;
  PMPI_Info_get_nkeys(info, &keys);
  for (int i = 0; i < keys; ++i) {
    char key[MPI_MAX_INFO_KEY + 1] = {};
    if (PMPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS || std::strncmp(key, "osmp_", 5) != 0) continue;
    char value[MPI_MAX_INFO_VAL + 1] = {};
    int flag = 0;
    PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    if (flag) add_hint(key, value, h);
  }
  return h;
}

std::string text_of(const Hints& h) {
  std::string s;
  for (const auto& [k, v] : h.all) s += cat(k, "=", v, ";");
  for (const auto& [op, set] : h.per_op)
    for (const auto& [k, v] : set) s += cat(to_string(op), ".", k, "=", v, ";");
  return s;
}

// Did every rank of comm ask for the same? (MPI_Comm_set_info is collective;
// the hints of different ranks must match, as for any MPI hint.)
bool same_everywhere(const Hints& h, MPI_Comm comm) {
  const std::uint64_t x = fnv1a(text_of(h));
  long long v[2] = {static_cast<long long>(x >> 1), -static_cast<long long>(x >> 1)}, m[2] = {0, 0};
  PMPI_Allreduce(v, m, 2, MPI_LONG_LONG, MPI_MAX, comm);
  return m[0] == v[0] && m[1] == v[1];
}

// The specs `team` runs now, as hints (to undo a change other nodes refused).
Hints current(const Team& team) {
  Hints h;
  h.all["OSMP_VH"] = team.vh(OpKind::barrier);
  for (OpKind k : kOpKinds) h.per_op[k]["OSMP_VH"] = team.vh(k);
  return h;
}

// Across nodes the node's teams always agree in the node (state.cpp,
// make_team): an osmp_check hint there sets whether the leaders agree
// (CommState::leaders_agree) and goes no further. A value that is no check
// mode is every rank's MPI_ERR_INFO_VALUE.
int check_across_nodes(CommState& st, Hints& h, bool lead) {
  auto check = h.all.find("OSMP_CHECK");
  if (check == h.all.end() || st.kind != CommState::Kind::nodes) return MPI_SUCCESS;
  const bool lazy = iequals(check->second, "lazy");
  if (!lazy && !iequals(check->second, "strict")) {
    if (lead) log(LogLevel::error, "osmp_pmpi: info hint osmp_check: '", check->second, "' is not lazy or strict");
    return MPI_ERR_INFO_VALUE;
  }
  st.leaders_agree = !lazy;  // every rank holds the same hints (apply)
  h.all.erase(check);
  return MPI_SUCCESS;
}

// Every node's team switches, or none does; every rank of comm gets the
// same verdict.
int apply(CommState& st, Hints h) {
  if (!st.team) {  // declined, or one process: no tree to shape
    if (st.kind == CommState::Kind::declined)
      declined("info osmp_vh or osmp_check on a communicator osmp does not run: " + st.declined_because);
    return MPI_SUCCESS;
  }
  const bool lead = st.team->rank() == 0;
  if (!same_everywhere(h, st.comm)) {
    if (lead)
      log(LogLevel::error,
          "osmp_pmpi: info hint osmp_vh or osmp_check: the ranks of the communicator gave different values");
    return MPI_ERR_INFO_VALUE;
  }
  // From here every rank holds the same hints and the same kind: what follows
  // decides alike everywhere.
  if (int rc = check_across_nodes(st, h, lead); rc != MPI_SUCCESS || h.empty()) return rc;
  const Hints before = current(*st.team);
  st.reshaped = true;  // its settings are no longer the process's own (reuse.hpp)
  Status s = st.team->configure(h.all, h.per_op);
  int bad = s.ok() ? 0 : 1, any = 0;
  PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, st.comm);
  if (!s.ok() && lead) log(LogLevel::error, "osmp_pmpi: info hint: ", s.to_string());
  if (!any) return MPI_SUCCESS;
  if (s.ok()) {  // this node switched, another could not: back to where all were
    Status back = st.team->configure(before.all, before.per_op);
    if (lead)
      log(LogLevel::error, "osmp_pmpi: info hint refused on another node; kept the previous settings",
          back.ok() ? "" : cat(" (", back.to_string(), ")").c_str());
  }
  return MPI_ERR_INFO_VALUE;
}

// Whether the MPI's MPI_Comm_get_info can hold osmp's keys at all (a
// communicator's info from MPI_Comm_dup of one that has them, Open MPI's
// component route): Open MPI keeps the keys it was given; MPICH and its
// derivatives return only the hints they know, and building that answer is
// most of what a new communicator costs there (a zeroed info object: 120
// thousand instructions, against 5 thousand for the rest of its state).
#if defined(MPICH)
constexpr bool kInfoKeepsOurKeys = false;
#else
constexpr bool kInfoKeepsOurKeys = true;
#endif

// Hints given at creation, kept on the new communicator until its state is
// built: MPICH's MPI_Comm_get_info drops keys it does not know.
int creation_keyval() {
  static int kv = MPI_KEYVAL_INVALID;
  auto drop = [](MPI_Comm, int, void* value, void*) -> int {
    delete static_cast<Hints*>(value);
    return MPI_SUCCESS;
  };
  if (kv == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop, &kv, nullptr);
  return kv;
}

}  // namespace

int apply_creation_hints(CommState& st) {
  Hints h;
  void* kept = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(st.comm, creation_keyval(), &kept, &flag);
  if (flag) {
    h = *static_cast<Hints*>(kept);
    PMPI_Comm_delete_attr(st.comm, creation_keyval());
  } else if (kInfoKeepsOurKeys) {
    MPI_Info info = MPI_INFO_NULL;
    if (PMPI_Comm_get_info(st.comm, &info) != MPI_SUCCESS) return MPI_SUCCESS;
    h = hints_of(info);
    PMPI_Info_free(&info);
  }
  return h.empty() ? MPI_SUCCESS : apply(st, h);
}

}  // namespace osmp::pmpi

using namespace osmp;
using namespace osmp::pmpi;

extern "C" {

int osmp_pmpi_set_info(MPI_Comm comm, MPI_Info info) {
  Hints h = hints_of(info);
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (h.empty() || finalized || comm == MPI_COMM_NULL || !settings().enabled) return MPI_SUCCESS;
  // Built now if it was not (collective, as this call is); the hint is then
  // applied from here, not read back from the comm's info, which the MPI may
  // not keep (MPICH and Open MPI drop keys they do not know).
  int rc = apply(state_of(comm), h);
  if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm, rc);
  return rc;
}

void osmp_pmpi_created_with(MPI_Comm comm, MPI_Info info) {
  Hints h = hints_of(info);
  if (h.empty() || comm == MPI_COMM_NULL) return;
  PMPI_Comm_set_attr(comm, creation_keyval(), new Hints(std::move(h)));
}

void osmp_pmpi_get_info(MPI_Comm comm, MPI_Info info) {
  CommState* st = existing_state(comm);
  if (!st || !st->team || info == MPI_INFO_NULL) return;
  const std::string all = st->team->vh(OpKind::barrier);
  PMPI_Info_set(info, "osmp_vh", all.empty() ? "none" : all.c_str());
  for (OpKind k : kOpKinds) {
    const std::string v = st->team->vh(k);
    if (v != all) PMPI_Info_set(info, key_of(k), v.empty() ? "none" : v.c_str());
  }
}

const char* osmp_pmpi_hint_changed(MPI_Comm comm, const char* key, const char* value) {
  Hints h;
  CommState* st = existing_state(comm);
  if (!add_hint(key, value, h) || !st) return value;  // read from the comm's info when built
  return apply(*st, h) == MPI_SUCCESS ? value : nullptr;
}

const char* const* osmp_pmpi_hint_keys(void) { return kKeys; }

}  // extern "C"
