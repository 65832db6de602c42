/* osmp: topology-aware shared-memory collectives, the C interface.
 *
 * Every function returns OSMP_SUCCESS (0) or an error code; osmp_strerror()
 * names a code and osmp_last_error() gives the message. All
 * collective calls are collective over the team, with the same arguments
 * (count, datatype, op, root) on every rank; ranks that disagree all get
 * OSMP_ERR_MISMATCH, and the team stays usable.
 */
#ifndef OSMP_H
#define OSMP_H

#include <stddef.h>
#include <stdint.h>

#include "osmp_ops.h" /* the operations: osmp_coll, OSMP_COLLECTIVES */

#ifdef __cplusplus
extern "C" {
#endif

/* A team handle. It is checked on every call, never dereferenced: NULL, a
 * team already finalized, or any value osmp_init / osmp_init_with did not
 * return gives OSMP_ERR_ARG with a message (osmp_last_error(NULL)), never a
 * crash; a finalized team's handle never names a later team. Freeing a team
 * while another thread is in a call on it is an error osmp does not catch. */
typedef struct osmp_team osmp_team;

enum osmp_error {
  OSMP_SUCCESS = 0,
  OSMP_ERR_ARG = 1,       /* a bad argument on some rank */
  OSMP_ERR_NOT_FOUND = 2, /* not started by osmprun, a missing level, ... */
  OSMP_ERR_TOPOLOGY = 3,  /* hwloc could not load the topology */
  OSMP_ERR_SYSTEM = 4,    /* a system call failed */
  OSMP_ERR_MISMATCH = 5,  /* ranks passed different counts, types, ops or roots */
  OSMP_ERR_PEER_DEAD = 6, /* a rank of the team died */
  OSMP_ERR_ABORTED = 7,   /* the team was stopped */
  OSMP_ERR_NO_SPACE = 8,  /* not enough shared memory */
  OSMP_ERR_UNSUPPORTED = 9,
  OSMP_ERR_TIMEOUT = 10,
  OSMP_ERR_INTERNAL = 11
};

/* The same names as C++'s osmp::Datatype (int8 ... float32, float64). */
typedef enum {
  OSMP_INT8,
  OSMP_INT16,
  OSMP_INT32,
  OSMP_INT64,
  OSMP_UINT8,
  OSMP_UINT16,
  OSMP_UINT32,
  OSMP_UINT64,
  OSMP_FLOAT32,
  OSMP_FLOAT64,
  OSMP_FLOAT = OSMP_FLOAT32, /* older spellings, kept as aliases */
  OSMP_DOUBLE = OSMP_FLOAT64
} osmp_datatype;

typedef enum { OSMP_SUM, OSMP_PROD, OSMP_MIN, OSMP_MAX, OSMP_BAND, OSMP_BOR, OSMP_BXOR, OSMP_LAND, OSMP_LOR } osmp_op;

/* Pass as the send buffer (scatter: the root's receive buffer) when the data
 * is already in place, as MPI_IN_PLACE. */
#define OSMP_IN_PLACE ((void*)1)

/* Creates the team of the job osmprun started (collective). */
int osmp_init(osmp_team** team);
/* Creates a team over any launcher or library (collective over `size`
 * processes): the caller supplies an allgather (every rank gives `len` bytes,
 * `out` gets size * len in rank order; len 0 is a barrier) and a broadcast
 * from `root`, each returning 0 on success. osmp calls them only inside this
 * function. Settings come from the OSMP_* environment variables. On error,
 * `error` (when not NULL) gets a message of at most error_len bytes. */
typedef int (*osmp_allgather_fn)(const void* in, size_t len, void* out, void* ctx);
typedef int (*osmp_bcast_fn)(void* buf, size_t len, int root, void* ctx);
int osmp_init_with(int rank, int size, osmp_allgather_fn allgather, osmp_bcast_fn bcast, void* ctx, osmp_team** team,
                   char* error, size_t error_len);
/* Frees the team. Collective: every rank must call it. In a team that makes
 * one-pass calls (OSMP_CHECK=lazy, docs/protocol.md) it first waits until
 * every rank has reached its own osmp_finalize, so that an error found late
 * in the last calls is returned here (OSMP_ERR_MISMATCH naming the call);
 * finalize several teams in the same order on every rank. The handle is dead
 * afterwards: using it, or finalizing it again, is OSMP_ERR_ARG. */
int osmp_finalize(osmp_team* team);
/* New teams from `team`, collective over it (osmp::Team::split,
 * docs/standalone.md "Sub-teams"): the ranks that pass the same color (>= 0) form a team,
 * ordered by key, then by their rank in `team`; a negative color
 * (OSMP_UNDEFINED) joins none and gets NULL. The new teams take the
 * machine, places and settings of `team` (nothing loaded again, no
 * rendezvous) and are finalized on their own (in the same order on every
 * rank, as any teams). A failure in making them (no room, a dead rank) is
 * every rank's error, and *out is NULL; a bad argument (NULL out) is only the
 * caller's, which then takes no part: pass the same kind everywhere. osmp_team_dup: one team over every rank. */
#define OSMP_UNDEFINED (-1)
int osmp_team_split(osmp_team* team, int color, int key, osmp_team** out);
int osmp_team_dup(osmp_team* team, osmp_team** out);
/* This rank and the team's size; -1 for a bad handle. */
int osmp_rank(const osmp_team* team);
int osmp_size(const osmp_team* team);

/* The collectives: osmp_<name> and its non-blocking osmp_i<name> for each
 * row of osmp_ops.h (osmp_barrier, osmp_bcast, ..., osmp_reduce_scatter),
 * declared below from the row's form. What each computes, and its in-place and NULL rules, as
 * MPI's namesake: docs/standalone.md, "The collectives". The parameters,
 * after the team, by form, then `osmp_op op` where the operation reduces
 * and `int root` where it has one:
 *   none       nothing (barrier)
 *   buffer     buf, count, type: the root's input, the others' output (bcast)
 *   uniform    sendbuf, recvbuf, count, type: count elements per block
 *   gathered   sendbuf, sendcount, recvbuf, recvcounts, displs, type:
 *              rank r's block is recvcounts[r] elements at displs[r] of
 *              recvbuf (gatherv: the root's; allgatherv: every rank's, with
 *              the same counts everywhere), read only where recvbuf holds
 *              every block; sendcount is this rank's own, equal to its entry
 *   scattered  sendbuf, sendcounts, displs, recvbuf, recvcount, type: the
 *              same, the blocks in the root's sendbuf (scatterv)
 *   shares     sendbuf, recvbuf, recvcounts, type: rank r's share of the
 *              input is recvcounts[r] elements (reduce_scatter)
 *   pairs      sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls,
 *              type: both sides' blocks on every rank (alltoallv)
 * OSMP_IN_PLACE as sendbuf (scatter, scatterv: the root's recvbuf) where MPI
 * allows MPI_IN_PLACE.
 */
#define OSMP_PARAMS_none
#define OSMP_PARAMS_buffer , void *buf, int64_t count, osmp_datatype type
#define OSMP_PARAMS_uniform , const void *sendbuf, void *recvbuf, int64_t count, osmp_datatype type
#define OSMP_PARAMS_gathered                                                                                 \
  , const void *sendbuf, int64_t sendcount, void *recvbuf, const int64_t *recvcounts, const int64_t *displs, \
      osmp_datatype type
#define OSMP_PARAMS_scattered                                                                                \
  , const void *sendbuf, const int64_t *sendcounts, const int64_t *displs, void *recvbuf, int64_t recvcount, \
      osmp_datatype type
#define OSMP_PARAMS_shares , const void *sendbuf, void *recvbuf, const int64_t *recvcounts, osmp_datatype type
#define OSMP_PARAMS_pairs                                                                                             \
  , const void *sendbuf, const int64_t *sendcounts, const int64_t *sdispls, void *recvbuf, const int64_t *recvcounts, \
      const int64_t *rdispls, osmp_datatype type
/* A row's parameters after the team: its form's, then op, then root. The
 * form and flags are pasted where the row is read (OSMP_DECLARE_), never
 * passed on, so that a program's own macro named like a form (`buffer`)
 * cannot reach them. OSMP_PARAMS_* and the macros ending in _ are the
 * header's means, not API (docs/install.md). */
#define OSMP_PARAMS_OF_(form, rooted, reduces) \
  OSMP_PARAMS_##form OSMP_IF_##reduces(, osmp_op op) OSMP_IF_##rooted(, int root)

/* Non-blocking calls (docs/nonblocking.md): the same calls, started now; the
 * request completes them. Every rank starts a team's calls, blocking and not,
 * in the same order; the buffers must stay put until the request completes.
 * Calls run in the order they were started; progress happens in osmp_test,
 * osmp_wait and any later call on the team. A request is a handle checked on
 * every call, as a team's is. A call's own error (bad arguments, a mismatch,
 * a dead peer) is returned by the osmp_test or osmp_wait that completes it,
 * with its message in osmp_last_error(NULL); starting returns only errors of
 * the start itself (a bad team handle, a NULL request pointer). */
typedef struct osmp_request_s* osmp_request;
#define OSMP_REQUEST_NULL ((osmp_request)0)
/* Every row's osmp_<name> and osmp_i<name> (above); a started call's counts
 * and displacements too stay put until the request completes. */
#define OSMP_DECLARE_(name, Name, NAME, key, rooted, reduces, form)                                                 \
  int osmp_##name(osmp_team* team OSMP_PARAMS_##form OSMP_IF_##reduces(, osmp_op op) OSMP_IF_##rooted(, int root)); \
  int osmp_i##name(osmp_team* team OSMP_PARAMS_##form OSMP_IF_##reduces(, osmp_op op) OSMP_IF_##rooted(, int root), \
                   osmp_request* req);
OSMP_COLLECTIVES(OSMP_DECLARE_)
#undef OSMP_DECLARE_
/* *flag = 1 when the call completed: then returns its status and frees the
 * request (*req = OSMP_REQUEST_NULL). *flag = 0: not yet (returns
 * OSMP_SUCCESS). Never blocks. OSMP_REQUEST_NULL: *flag = 1, OSMP_SUCCESS. */
int osmp_test(osmp_request* req, int* flag);
/* Completes the call, frees the request (*req = OSMP_REQUEST_NULL) and
 * returns the call's status. OSMP_REQUEST_NULL: OSMP_SUCCESS at once. */
int osmp_wait(osmp_request* req);
/* osmp_wait on each, in any order; the first error by position (every
 * request is completed and freed, whatever fails). */
int osmp_waitall(int count, osmp_request* reqs);
/* Frees the request without waiting: the call still runs, in order, when
 * the team's later calls (or osmp_finalize) move the team on. */
int osmp_request_free(osmp_request* req);
/* The shared heap (docs/heap.md): memory of this process that every rank of
 * its teams maps. Collectives whose buffers lie in the ranks' heaps copy each
 * byte once. Both calls are local (no other rank takes part). osmp_alloc
 * rounds `bytes` up to pages; no room is OSMP_ERR_NO_SPACE with the sizes in
 * osmp_last_error (OSMP_HEAP_SIZE sets the heap's size; 0 turns it off).
 * osmp_free takes what osmp_alloc returned (NULL: nothing); anything else, a
 * second free, or calls started on the team still pending are OSMP_ERR_ARG
 * and change nothing. Blocks live as long as their team: free them before
 * osmp_finalize. */
int osmp_alloc(osmp_team* team, size_t bytes, void** ptr);
int osmp_free(osmp_team* team, void* ptr);
/* Runtime tuning. Each call is collective over the team: every rank passes
 * the same values, and all switch between the same two collectives; a bad or
 * different value on any rank is an error on every rank and changes nothing.
 * `which` names one operation (OSMP_COLL_BARRIER, OSMP_COLL_BCAST, ...,
 * OSMP_COLL_REDUCE_SCATTER_BLOCK: osmp_ops.h), or OSMP_COLL_ALL for every one. */
/* The virtual hierarchy, e.g. "Package:7" (the OSMP_VH syntax; "" for none). */
int osmp_set_vh(osmp_team* team, osmp_coll which, const char* spec);
/* Any setting by its variable's name: OSMP_VH, OSMP_BASE_CASE, OSMP_FLAT_MAX,
 * OSMP_KNOMIAL_RADIX (per operation or all); OSMP_SYMMETRIC_MAX, OSMP_CMA,
 * OSMP_CMA_MIN, OSMP_CMA_MAX (all only). */
int osmp_set(osmp_team* team, osmp_coll which, const char* name, const char* value);
/* The spec `which` runs with now (OSMP_COLL_ALL: barrier's), NUL-terminated in
 * at most `len` bytes of `buf`; returns its full length, or -1 (a bad handle
 * or operation). */
int osmp_get_vh(const osmp_team* team, osmp_coll which, char* buf, size_t len);

/* "OSMP_ERR_MISMATCH: ranks passed different ..." */
const char* osmp_strerror(int code);
/* The message of this team's last failed call on this rank ("" if its last
 * call succeeded). With NULL or a bad handle: the message of this thread's
 * last failed osmp call, whatever its team (a bad handle, a failed
 * osmp_init). Valid until the next osmp call on that team or thread. */
const char* osmp_last_error(const osmp_team* team);

#ifdef __cplusplus
}
#endif

#endif /* OSMP_H */
