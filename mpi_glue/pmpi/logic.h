/* The collectives of libosmp_pmpi and coll/osmp: MPI arguments in, osmp (or
 * the MPI's own collective, reached through PMPI_) out. interpose.cpp maps
 * MPI_X onto these; the Open MPI component calls them from its module. */
#ifndef OSMP_PMPI_LOGIC_H
#define OSMP_PMPI_LOGIC_H

#include <mpi.h>

#include "mpi_glue/pmpi/entries.h"

#ifdef __cplusplus
extern "C" {
#endif

/* osmp_pmpi_<name> and osmp_pmpi_i<name>, as MPI_<Name> and MPI_I<name>
 * (entries.h: one pair per row of osmp_ops.h). The non-blocking forms
 * run on osmp with a request (osmp_pmpi_set_requests below) that
 * osmp_pmpi_progress() completes (the interposer calls it from MPI_Wait,
 * MPI_Test and the rest; the component registers it with opal_progress); or
 * as the MPI's own call (osmp_pmpi_set_own), by the route rule
 * (nonblocking.cpp: across nodes, on one process and under
 * MPI_THREAD_MULTIPLE every non-blocking call is the MPI's). */
#define OSMP_PMPI_DECLARE_(name, Name, NAME, key, rooted, reduces, form) \
  int osmp_pmpi_##name(OSMP_MPI_PARAMS(form, rooted, reduces));          \
  int osmp_pmpi_i##name(OSMP_MPI_PARAMS(form, rooted, reduces), MPI_Request* req);
OSMP_COLLECTIVES(OSMP_PMPI_DECLARE_)
#undef OSMP_PMPI_DECLARE_
/* The MPI's own non-blocking collectives, which the calls osmp hands to the
 * MPI start (nonblocking.cpp). By default PMPI_I<name> for every row. The
 * component passes the previous component's functions: a call through PMPI_
 * from inside the module enters Open MPI's bindings twice, and each keeps a
 * user op or derived datatype in the request (the second over the first,
 * making a completion callback that calls itself without end). */
typedef struct osmp_pmpi_own {
#define OSMP_PMPI_OWN_(name, Name, NAME, key, rooted, reduces, form) \
  int (*i##name)(OSMP_MPI_PARAMS(form, rooted, reduces), MPI_Request * req);
  OSMP_COLLECTIVES(OSMP_PMPI_OWN_)
#undef OSMP_PMPI_OWN_
} osmp_pmpi_own;
/* NULL: the PMPI_ functions again. `own` must outlive its use. */
void osmp_pmpi_set_own(const osmp_pmpi_own* own);
/* The request of a non-blocking call on osmp, which the application waits
 * for: by default an MPI generalized request (PMPI_Grequest_start, and
 * PMPI_Grequest_complete from osmp_pmpi_progress). The component makes Open
 * MPI's collective request instead (Open MPI's bindings keep a user op or
 * derived datatype in the request a coll module returns, where a generalized
 * request has its callbacks). start(comm, query, release, cancel, extra,
 * req) as MPI_Grequest_start; complete(req) as MPI_Grequest_complete. */
typedef struct osmp_pmpi_requests {
  int (*start)(MPI_Comm comm, MPI_Grequest_query_function* query, MPI_Grequest_free_function* release,
               MPI_Grequest_cancel_function* cancel, void* extra, MPI_Request* req);
  int (*complete)(MPI_Request req);
} osmp_pmpi_requests;
/* NULL: generalized requests again. `requests` must outlive its use. */
void osmp_pmpi_set_requests(const osmp_pmpi_requests* requests);
/* Moves the pending non-blocking calls on; the number that completed (0
 * when called again from inside itself). */
int osmp_pmpi_progress(void);
/* How many non-blocking calls on osmp have not completed yet. */
int osmp_pmpi_pending(void);
/* MPI_Request_free for the interposer: a call pending on osmp is freed once
 * it completes; any other request goes to PMPI_Request_free. */
int osmp_pmpi_request_free(MPI_Request* req);
/* 1 when *req is a call still pending on osmp: it is freed once complete,
 * and *req becomes MPI_REQUEST_NULL; else 0 (the component's request free). */
int osmp_pmpi_free_when_complete(MPI_Request* req);
/* Info hints osmp_vh, osmp_vh_<op> (hints.cpp). The interposer calls
 * set_info after PMPI_Comm_set_info (collective) and get_info after
 * PMPI_Comm_get_info; the component subscribes to the keys and calls
 * hint_changed, which returns the value, or NULL when refused. */
int osmp_pmpi_set_info(MPI_Comm comm, MPI_Info info);
/* Keeps the hints of `info` for comm, created with it (MPI_Comm_dup_with_info,
 * MPI_Comm_split_type): applied when its osmp state is built. */
void osmp_pmpi_created_with(MPI_Comm comm, MPI_Info info);
void osmp_pmpi_get_info(MPI_Comm comm, MPI_Info info);
const char* osmp_pmpi_hint_changed(MPI_Comm comm, const char* key, const char* value);
const char* const* osmp_pmpi_hint_keys(void);
/* MPI_Alloc_mem / MPI_Free_mem from osmp's shared heap, falling back to the
 * MPI's (memory.cpp; the interposer only: Open MPI's framework gives a coll
 * component no say in MPI_Alloc_mem). */
int osmp_pmpi_alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr);
int osmp_pmpi_free_mem(void* base);
/* MPI_Win_allocate_shared's windows registered as shared regions, so that
 * collectives on their memory take single copy too (windows.cpp; the
 * interposer only, as above); MPI_Win_free forgets them. */
int osmp_pmpi_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                  MPI_Win* win);
int osmp_pmpi_win_free(MPI_Win* win);
/* Frees every team and prints the counters (OSMP_PMPI_STATS). */
void osmp_pmpi_finalize(void);
long long osmp_pmpi_calls(int on_osmp);
long long osmp_pmpi_single_copies(void);
/* MPI calls this process made among the node leaders (across nodes). */
long long osmp_pmpi_leader_calls(void);
void osmp_pmpi_shm_use(int* teams, int* peak_teams, unsigned long long* bytes, unsigned long long* peak_bytes);
/* Only prints the counters (no MPI calls): for the component's close. */
void osmp_pmpi_report(void);
/* The component's test for a datatype the MPI cannot describe (Open MPI's
 * own internal types, e.g. coll/inter's, have no MPI_Type_get_envelope):
 * those are packed as they are and never reduced on osmp. The interposer
 * sees only the application's types and sets none. */
void osmp_pmpi_set_undescribed_test(int (*undescribed)(MPI_Datatype t));
/* What osmp's waits call now and then (shm/wait.hpp, set_progress_hook):
 * the MPI's progress. The component passes opal_progress (with its bypass);
 * the interposer sets its own at load time. */
void osmp_pmpi_set_progress_hook(void (*hook)(void));
/* 1: reasons for declining (once each); 2: also every call's path. */
void osmp_pmpi_set_verbose(int level);

#ifdef __cplusplus
}
#endif

#endif
