// MPI's non-blocking collectives on osmp (MPI_Ibarrier ... MPI_Iexscan: every
// operation of osmp_ops.h).
//
// A call on osmp is an osmp request (collectives/requests.hpp) wrapped in an
// MPI request the application waits for like any other: a generalized
// request, or through the component an Open MPI collective request
// (osmp_pmpi_set_requests, logic.h). osmp has no progress thread:
// osmp_pmpi_progress() moves the pending calls on and completes their
// requests. The interposer calls it from
// its MPI_Wait, MPI_Test and the rest of that family (interpose.cpp); the
// Open MPI component registers it with opal_progress, which Open MPI's own
// waits call, as libnbc does.
//
// The route (logic.cpp) is the blocking calls': a communicator osmp does not
// run, a single process, one spanning nodes (osmp per node chained with the
// MPI among leaders is not done for non-blocking calls yet), or a process
// at MPI_THREAD_MULTIPLE (where any thread's opal_progress could reach
// another thread's team) start the MPI's own call at once, the same on
// every rank. On a node, every rank joins osmp's call: with its data, or
// abstaining with its reason. A rank that declines the call (a user op ...:
// what every rank of a legal program declines alike) starts the MPI's own
// call at once too, so that every rank issues its MPI collectives on the
// communicator in program order, and its abstention checks that every rank
// declined. One where a rank erred or the headers differ completes with
// that error on every rank (a declining rank's MPI call, whose peers never
// join it, is left behind), so an erroneous program gets errors, never a
// hang, as with blocking calls.
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "api/access.hpp"
#include "collectives/engine.hpp"
#include "core/strings.hpp"
#include "mpi_glue/pmpi/call.hpp"
#include "mpi_glue/pmpi/errors.hpp"
#include "mpi_glue/pmpi/logic.h"

namespace osmp::pmpi {
namespace {

// One non-blocking call on osmp, until its request completes.
struct NbCall {
  MPI_Comm comm = MPI_COMM_NULL;
  const char* name = "";
  Prepared x;    // the plan and the streams osmp reads and writes
  Request osmp;  // osmp's call, or this rank's abstention
  bool osmp_done = false;
  MPI_Request inner = MPI_REQUEST_NULL;  // the MPI's own call, when this rank declined
  MPI_Request outer = MPI_REQUEST_NULL;  // the application's request (g_requests)
  int code = MPI_SUCCESS;                // the call's error code once complete
  bool user_freed = false;               // MPI_Request_free came first (osmp_pmpi_request_free)
  // Duplicates of the derived types the call unpacks with once complete
  // (Stream::hold_type): the program may free its own before the wait.
  std::vector<MPI_Datatype> held;
  void hold_types() {
    if (x.commit) x.out.hold_type(held);
    x.hold_block_types(held);
  }
  void release_types() {
    for (MPI_Datatype& t : held) PMPI_Type_free(&t);
    held.clear();
  }
};

std::vector<NbCall*> g_pending;  // calls whose request is not complete
// Held while osmp_pmpi_progress runs (any thread may call it from
// opal_progress; non-blocking calls run on osmp only below
// MPI_THREAD_MULTIPLE, so one thread at a time starts and waits for them).
// The exchange that takes it (acquire) pairs with the release store that
// gave it back, so the taker sees that run's changes to g_pending.
std::atomic<bool> g_progressing{false};

int query(void* extra, MPI_Status* status) {
  const auto* n = static_cast<NbCall*>(extra);
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  status->MPI_ERROR = n->code;
  return n->code;
}

// Called by the MPI once the request is complete and freed (never before
// MPI_Grequest_complete): nothing refers to the call any more.
int release(void* extra) {
  delete static_cast<NbCall*>(extra);
  return MPI_SUCCESS;
}

// A collective cannot be cancelled (MPI says so): nothing to do.
int cancel(void*, int) { return MPI_SUCCESS; }

int grequest_start(MPI_Comm, MPI_Grequest_query_function* q, MPI_Grequest_free_function* f,
                   MPI_Grequest_cancel_function* c, void* extra, MPI_Request* req) {
  return PMPI_Grequest_start(q, f, c, extra, req);
}
const osmp_pmpi_requests kGrequests{grequest_start, PMPI_Grequest_complete};
const osmp_pmpi_requests* g_requests = &kGrequests;  // osmp_pmpi_set_requests

#define OSMP_PMPI_OF_(name, Name, NAME, key, rooted, reduces, form) PMPI_I##name,
const osmp_pmpi_own kPmpi{OSMP_COLLECTIVES(OSMP_PMPI_OF_)};
#undef OSMP_PMPI_OF_
const osmp_pmpi_own* g_own = &kPmpi;  // osmp_pmpi_set_own

// osmp's part ended with `st`: true when the call is complete (done on
// osmp, or an error); false when the MPI's own call is what is left.
bool after_osmp(NbCall& n, const Status& st) {
  if (n.x.p.failed()) {
    n.code = error_code(n.comm, n.name, n.x.p.mpi_class, n.x.p.what);
    return true;
  }
  const Outcome o = Outcome::of(st);
  switch (o.route) {
    case Outcome::Route::osmp:
      if (n.x.commit) n.x.out.commit();
      n.x.commit_blocks();
      count(true);
      return true;
    case Outcome::Route::mpi:
      // Every rank declined, this one too: its MPI call runs since the start.
      if (n.inner == MPI_REQUEST_NULL) {
        n.code = error_code(n.comm, n.name, MPI_ERR_INTERN, "osmp agreed to hand the call to the MPI, but it had not");
        return true;
      }
      declined(cat(n.name, ": ", n.x.p.what));
      count(false);
      return false;
    case Outcome::Route::error: break;
  }
  n.code = error_code(n.comm, n.name, class_of(o.error.code()), o.error.message());
  return true;
}

// Moves one call on, without blocking; true once it is complete.
bool advance(NbCall& n) {
  if (!n.osmp_done) {
    if (!n.osmp.test()) return false;
    n.osmp_done = true;
    if (after_osmp(n, n.osmp.status())) return true;
  }
  int flag = 0;
  MPI_Status status;
  int rc = PMPI_Test(&n.inner, &flag, &status);
  if (rc != MPI_SUCCESS) {
    n.code = rc;
    return true;
  }
  return flag != 0;
}

}  // namespace

int nonblocking(const Call& c, Prepared&& x, MPI_Request* req, const std::function<int(MPI_Request*)>& mpi) {
  if (!req) return deliver(c.comm, c.name, MPI_ERR_REQUEST, "the request pointer is NULL");
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  if (c.alone() || c.nodes() || level == MPI_THREAD_MULTIPLE) {
    // The same on every rank: a property of the communicator (and the
    // thread level every rank of a program asks for alike).
    declined(cat(c.name, c.alone()   ? ": a single process"
                         : c.nodes() ? ": across nodes (not chained for non-blocking calls)"
                                     : ": MPI_THREAD_MULTIPLE"));
    count(false);
    return mpi(req);
  }
  auto n = std::make_unique<NbCall>();
  n->comm = c.comm;
  n->name = c.name;
  n->x = std::move(x);  // the streams keep their buffers: osmp's pointers stay valid
  n->hold_types();
  int started = MPI_SUCCESS;
  if (n->x.p.refuses()) started = mpi(&n->inner);  // in program order, as every rank's
  n->osmp = start_joined(c.team(), n->x);
  int rc = started == MPI_SUCCESS ? g_requests->start(c.comm, query, release, cancel, n.get(), req) : started;
  if (rc != MPI_SUCCESS) {
    // osmp's part is under way on every rank: finish it, then report.
    (void)n->osmp.wait();
    n->release_types();
    return started != MPI_SUCCESS ? started : deliver(c.comm, c.name, MPI_ERR_INTERN, "starting the request failed");
  }
  n->outer = *req;
  g_pending.push_back(n.release());
  return MPI_SUCCESS;
}

const osmp_pmpi_own& own() { return *g_own; }

void complete_osmp_parts(MPI_Comm comm) {
  auto pending_here = [comm] {
    return std::any_of(g_pending.begin(), g_pending.end(),
                       [comm](const NbCall* n) { return n->comm == comm && !n->osmp_done; });
  };
  while (!g_progressing.load(std::memory_order_relaxed) && pending_here()) {
    if (osmp_pmpi_progress() == 0) sched_yield();
  }
}

void complete_all() {
  while (!g_progressing.load(std::memory_order_relaxed) && !g_pending.empty()) {
    if (osmp_pmpi_progress() == 0) sched_yield();
  }
}

// The call `x` prepared for operation K, as its entry point would make it
// (as_called): the v-variants' blocks where this rank holds them
// (alltoallv: the send side's, and the receive side's as its pairs),
// reduce_scatter's shares. K a constant, the description folds away: the
// same instructions as a call of the entry point.
template <OpKind K>
Status run_as(Team& team, const Prepared& x) {
  return TeamAccess::run(team, args_of<K>(x));
}
template <OpKind K>
Request start_as(Team& team, const Prepared& x) {
  return TeamAccess::start(team, args_of<K>(x));
}

// One entry per row of osmp_ops.h, in its order (op_index).
template <std::size_t... I>
constexpr auto run_table(std::index_sequence<I...>) {
  return std::array{&run_as<kOpKinds[I]>...};
}
template <std::size_t... I>
constexpr auto start_table(std::index_sequence<I...>) {
  return std::array{&start_as<kOpKinds[I]>...};
}
constexpr auto kRun = run_table(std::make_index_sequence<kOpKindCount>{});
constexpr auto kStart = start_table(std::make_index_sequence<kOpKindCount>{});

Status run_joined(Team& team, const Prepared& x) {
  const int i = op_index(x.p.kind);  // every Call's kind is one of osmp_ops.h's
  if (i < 0) return Status(Errc::internal, cat("unknown operation ", static_cast<int>(x.p.kind)));
  return join(team, x.p, [&] { return kRun[static_cast<std::size_t>(i)](team, x); });
}

Request start_joined(Team& team, const Prepared& x) {
  const Plan& p = x.p;
  if (p.why != Errc::ok) return team.iabstain(p.kind, p.count, p.dtype, p.op, p.root, p.why);
  const int i = op_index(p.kind);
  if (i < 0) return team.iabstain(p.kind, p.count, p.dtype, p.op, p.root, Errc::internal);
  return kStart[static_cast<std::size_t>(i)](team, x);
}

}  // namespace osmp::pmpi

using osmp::pmpi::g_own;
using osmp::pmpi::g_pending;
using osmp::pmpi::g_progressing;
using osmp::pmpi::g_requests;

extern "C" {

int osmp_pmpi_progress(void) {
  if (g_pending.empty() || g_progressing.exchange(true, std::memory_order_acquire)) return 0;
  int done = 0;
  // In start order. Completing one moves those started before it on first
  // (osmp completes a team's calls in order): after each completion the scan
  // starts again, so that an earlier call whose osmp part completed with it
  // completes (unpacks) now too. A call completes no later than any call
  // started after it on its communicator, also when its request was freed.
  for (std::size_t i = 0; i < g_pending.size();) {
    osmp::pmpi::NbCall* n = g_pending[i];
    if (!osmp::pmpi::advance(*n)) {
      ++i;
      continue;
    }
    g_pending.erase(g_pending.begin() + static_cast<std::ptrdiff_t>(i));
    i = 0;
    ++done;
    n->release_types();  // unpacked (after_osmp), or the MPI's own call holds its own
    // The MPI frees n (release) once the request is complete and freed.
    MPI_Request outer = n->outer;
    const bool freed = n->user_freed;
    g_requests->complete(outer);
    if (freed) PMPI_Request_free(&outer);
  }
  g_progressing.store(false, std::memory_order_release);
  return done;
}

void osmp_pmpi_set_own(const osmp_pmpi_own* own) { g_own = own ? own : &osmp::pmpi::kPmpi; }

void osmp_pmpi_set_requests(const osmp_pmpi_requests* requests) {
  g_requests = requests ? requests : &osmp::pmpi::kGrequests;
}

int osmp_pmpi_pending(void) { return static_cast<int>(g_pending.size()); }

int osmp_pmpi_free_when_complete(MPI_Request* req) {
  if (!req) return 0;
  for (osmp::pmpi::NbCall* n : g_pending) {
    if (n->outer != *req) continue;
    n->user_freed = true;
    *req = MPI_REQUEST_NULL;
    return 1;
  }
  return 0;
}

int osmp_pmpi_request_free(MPI_Request* req) {
  // Pending on osmp: freed once complete (MPICH 4.0 frees a generalized
  // request twice when MPI_Request_free comes before its completion).
  if (osmp_pmpi_free_when_complete(req)) return MPI_SUCCESS;
  return PMPI_Request_free(req);
}

}  // extern "C"
