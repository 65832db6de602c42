/* coll/osmp: osmp as an Open MPI 4.1 collective component (mca_coll_osmp.so).
 *
 * Selected for intra-communicators whose processes all share this node
 * (communicators spanning nodes are left to the other components, e.g. han).
 * The module keeps the previous component's functions (as coll/han does) and
 * uses them: to bootstrap the osmp team at the first collective (allgather,
 * bcast), and whenever osmp declines a call (derived datatypes, user ops,
 * MINLOC/MAXLOC, a refused or failed team creation), logging the reason once.
 * Load: mpirun --mca mca_base_component_path <default dir>:<dir of this file>.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/constants.h"
#include "ompi/group/group.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/coll/coll.h"
#include "opal/mca/base/mca_base_var.h"
#include "osmp.h"

/* ---- parameters ------------------------------------------------------- */

static int osmp_priority = 90;  /* above tuned (30): chosen whenever it is loaded */
static int osmp_verbose = 0;    /* 1: reasons for declining, once; 2: every call's path */
static char* osmp_vh = NULL;
static char* osmp_wait = NULL;
static char* osmp_base_case = NULL;
static char* osmp_cma_min = NULL;
static char* osmp_slot_size = NULL;

typedef struct {
  mca_coll_base_module_t super;
  struct ompi_communicator_t* comm;
  osmp_team* team;
  int state; /* 0: no team yet, 1: on osmp, -1: declined for this communicator */
  long long on_osmp, by_previous;
#define OSMP_PREV(name)                              \
  mca_coll_base_module_##name##_fn_t prev_##name;    \
  mca_coll_base_module_t* prev_##name##_module;
  OSMP_PREV(barrier)
  OSMP_PREV(bcast)
  OSMP_PREV(reduce)
  OSMP_PREV(allreduce)
  OSMP_PREV(gather)
  OSMP_PREV(allgather)
  OSMP_PREV(scatter)
  OSMP_PREV(reduce_scatter_block)
#undef OSMP_PREV
} mca_coll_osmp_module_t;

static void module_construct(mca_coll_osmp_module_t* m) {
  m->comm = NULL;
  m->team = NULL;
  m->state = 0;
  m->on_osmp = m->by_previous = 0;
}

static void module_destruct(mca_coll_osmp_module_t* m) {
  if (osmp_verbose >= 1 && m->comm && ompi_comm_rank(m->comm) == 0)
    fprintf(stderr, "coll:osmp: %s: %lld collectives on osmp, %lld by the previous component\n",
            m->comm->c_name, m->on_osmp, m->by_previous);
  if (m->team) osmp_finalize(m->team);
  m->team = NULL;
#define OSMP_RELEASE(name) \
  if (m->prev_##name##_module) OBJ_RELEASE(m->prev_##name##_module);
  OSMP_RELEASE(barrier)
  OSMP_RELEASE(bcast)
  OSMP_RELEASE(reduce)
  OSMP_RELEASE(allreduce)
  OSMP_RELEASE(gather)
  OSMP_RELEASE(allgather)
  OSMP_RELEASE(scatter)
  OSMP_RELEASE(reduce_scatter_block)
#undef OSMP_RELEASE
}

OBJ_CLASS_INSTANCE(mca_coll_osmp_module_t, mca_coll_base_module_t, module_construct, module_destruct);

/* ---- the team, built at the first collective -------------------------- */

static int boot_allgather(const void* in, size_t len, void* out, void* ctx) {
  mca_coll_osmp_module_t* m = ctx;
  if (len == 0) return m->prev_barrier(m->comm, m->prev_barrier_module);
  return m->prev_allgather(in, (int)len, MPI_BYTE, out, (int)len, MPI_BYTE, m->comm, m->prev_allgather_module);
}

static int boot_bcast(void* buf, size_t len, int root, void* ctx) {
  mca_coll_osmp_module_t* m = ctx;
  return m->prev_bcast(buf, (int)len, MPI_BYTE, root, m->comm, m->prev_bcast_module);
}

static void setting(const char* env, const char* value) {
  if (value && value[0]) setenv(env, value, 1);
}

static int ready(mca_coll_osmp_module_t* m) {
  if (m->state != 0) return m->state > 0;
  setting("OSMP_VH", osmp_vh);
  setting("OSMP_WAIT", osmp_wait);
  setting("OSMP_BASE_CASE", osmp_base_case);
  setting("OSMP_CMA_MIN", osmp_cma_min);
  setting("OSMP_SLOT_SIZE", osmp_slot_size);
  char error[512] = "";
  int rc = osmp_init_with(ompi_comm_rank(m->comm), ompi_comm_size(m->comm), boot_allgather, boot_bcast, m, &m->team,
                          error, sizeof error);
  m->state = rc == OSMP_SUCCESS ? 1 : -1;
  if (rc != OSMP_SUCCESS && osmp_verbose >= 1 && ompi_comm_rank(m->comm) == 0)
    fprintf(stderr, "coll:osmp: %s: no osmp team (%s); using the previous component\n", m->comm->c_name, error);
  return m->state > 0;
}

/* ---- arguments -------------------------------------------------------- */

static int arith_type(struct ompi_datatype_t* t, osmp_datatype* out) {
  struct { MPI_Datatype mpi; osmp_datatype o; } map[] = {
      {MPI_INT8_T, OSMP_INT8},     {MPI_SIGNED_CHAR, OSMP_INT8},   {MPI_CHAR, OSMP_INT8},
      {MPI_INT16_T, OSMP_INT16},   {MPI_SHORT, OSMP_INT16},        {MPI_INT32_T, OSMP_INT32},
      {MPI_INT, OSMP_INT32},       {MPI_INT64_T, OSMP_INT64},      {MPI_LONG_LONG, OSMP_INT64},
      {MPI_LONG, OSMP_INT64},      {MPI_UINT8_T, OSMP_UINT8},      {MPI_UNSIGNED_CHAR, OSMP_UINT8},
      {MPI_BYTE, OSMP_UINT8},      {MPI_UINT16_T, OSMP_UINT16},    {MPI_UNSIGNED_SHORT, OSMP_UINT16},
      {MPI_UINT32_T, OSMP_UINT32}, {MPI_UNSIGNED, OSMP_UINT32},    {MPI_UINT64_T, OSMP_UINT64},
      {MPI_UNSIGNED_LONG, OSMP_UINT64}, {MPI_UNSIGNED_LONG_LONG, OSMP_UINT64},
      {MPI_FLOAT, OSMP_FLOAT},     {MPI_DOUBLE, OSMP_DOUBLE}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i)
    if (t == map[i].mpi) {
      if ((t == MPI_LONG || t == MPI_UNSIGNED_LONG) && sizeof(long) != 8) return 0;
      *out = map[i].o;
      return 1;
    }
  return 0;
}

static int op_of(struct ompi_op_t* op, osmp_op* out) {
  struct { MPI_Op mpi; osmp_op o; } map[] = {{MPI_SUM, OSMP_SUM},   {MPI_PROD, OSMP_PROD}, {MPI_MIN, OSMP_MIN},
                                             {MPI_MAX, OSMP_MAX},   {MPI_BAND, OSMP_BAND}, {MPI_BOR, OSMP_BOR},
                                             {MPI_BXOR, OSMP_BXOR}, {MPI_LAND, OSMP_LAND}, {MPI_LOR, OSMP_LOR}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i)
    if (op == map[i].mpi) {
      *out = map[i].o;
      return 1;
    }
  return 0;
}

/* Bytes of `count` contiguous elements, or -1. */
static long long bytes_of(struct ompi_datatype_t* t, int count) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
  if (count < 0) return -1;
  PMPI_Type_size(t, &size);
  PMPI_Type_get_extent(t, &lb, &extent);
  PMPI_Type_get_true_extent(t, &tlb, &textent);
  if (lb != 0 || tlb != 0 || extent != size || textent != size) return -1;
  return (long long)size * count;
}

static const void* in_of(const void* p) { return p == MPI_IN_PLACE ? OSMP_IN_PLACE : p; }
static void* out_of(void* p) { return p == MPI_IN_PLACE ? OSMP_IN_PLACE : p; }

/* Whether to run on osmp; else the caller uses the previous component. */
static int take(mca_coll_osmp_module_t* m, int supported, const char* op) {
  if (!supported) {
    if (osmp_verbose >= 2) fprintf(stderr, "coll:osmp: %s: %s: datatype or op osmp lacks: previous component\n", m->comm->c_name, op);
    ++m->by_previous;
    return 0;
  }
  if (!ready(m)) {
    ++m->by_previous;
    return 0;
  }
  return 1;
}

/* An osmp outcome: 1 done, 0 refused on every rank (use the previous), or an error. */
static int done(mca_coll_osmp_module_t* m, int rc, const char* op, int* err) {
  *err = OMPI_SUCCESS;
  if (rc == OSMP_SUCCESS) {
    ++m->on_osmp;
    if (osmp_verbose >= 2) fprintf(stderr, "coll:osmp: %s: %s on osmp\n", m->comm->c_name, op);
    return 1;
  }
  if (rc == OSMP_ERR_ARG || rc == OSMP_ERR_MISMATCH || rc == OSMP_ERR_UNSUPPORTED) {
    if (osmp_verbose >= 1) fprintf(stderr, "coll:osmp: %s: %s refused (%s: %s): previous component\n", m->comm->c_name, op,
                                   osmp_strerror(rc), osmp_last_error(m->team));
    ++m->by_previous;
    return 0;
  }
  fprintf(stderr, "coll:osmp: %s: %s failed: %s\n", m->comm->c_name, op, osmp_last_error(m->team));
  *err = OMPI_ERROR;
  return 1;
}

/* ---- the collectives -------------------------------------------------- */

#define M ((mca_coll_osmp_module_t*)module)

static int coll_barrier_fn(struct ompi_communicator_t* comm, mca_coll_base_module_t* module) {
  int err;
  if (take(M, 1, "barrier") && done(M, osmp_barrier(M->team), "barrier", &err)) return err;
  return M->prev_barrier(comm, M->prev_barrier_module);
}

static int coll_bcast_fn(void* buf, int count, struct ompi_datatype_t* t, int root, struct ompi_communicator_t* comm,
                         mca_coll_base_module_t* module) {
  int err;
  long long bytes = bytes_of(t, count);
  if (take(M, bytes >= 0, "bcast") && done(M, osmp_bcast(M->team, buf, bytes, OSMP_UINT8, root), "bcast", &err))
    return err;
  return M->prev_bcast(buf, count, t, root, comm, M->prev_bcast_module);
}

static int coll_allreduce_fn(const void* s, void* r, int count, struct ompi_datatype_t* t, struct ompi_op_t* op,
                             struct ompi_communicator_t* comm, mca_coll_base_module_t* module) {
  int err;
  osmp_datatype dt;
  osmp_op o;
  if (take(M, arith_type(t, &dt) && op_of(op, &o), "allreduce") &&
      done(M, osmp_allreduce(M->team, in_of(s), r, count, dt, o), "allreduce", &err))
    return err;
  return M->prev_allreduce(s, r, count, t, op, comm, M->prev_allreduce_module);
}

static int coll_reduce_fn(const void* s, void* r, int count, struct ompi_datatype_t* t, struct ompi_op_t* op, int root,
                          struct ompi_communicator_t* comm, mca_coll_base_module_t* module) {
  int err;
  osmp_datatype dt;
  osmp_op o;
  if (take(M, arith_type(t, &dt) && op_of(op, &o), "reduce") &&
      done(M, osmp_reduce(M->team, in_of(s), r, count, dt, o, root), "reduce", &err))
    return err;
  return M->prev_reduce(s, r, count, t, op, root, comm, M->prev_reduce_module);
}

static int coll_gather_fn(const void* s, int sc, struct ompi_datatype_t* st, void* r, int rc,
                          struct ompi_datatype_t* rt, int root, struct ompi_communicator_t* comm,
                          mca_coll_base_module_t* module) {
  int err;
  long long bytes = (s == MPI_IN_PLACE) ? bytes_of(rt, rc) : bytes_of(st, sc);
  if (take(M, bytes >= 0, "gather") &&
      done(M, osmp_gather(M->team, in_of(s), r, bytes, OSMP_UINT8, root), "gather", &err))
    return err;
  return M->prev_gather(s, sc, st, r, rc, rt, root, comm, M->prev_gather_module);
}

static int coll_allgather_fn(const void* s, int sc, struct ompi_datatype_t* st, void* r, int rc,
                             struct ompi_datatype_t* rt, struct ompi_communicator_t* comm,
                             mca_coll_base_module_t* module) {
  int err;
  long long bytes = (s == MPI_IN_PLACE) ? bytes_of(rt, rc) : bytes_of(st, sc);
  if (take(M, bytes >= 0, "allgather") &&
      done(M, osmp_allgather(M->team, in_of(s), r, bytes, OSMP_UINT8), "allgather", &err))
    return err;
  return M->prev_allgather(s, sc, st, r, rc, rt, comm, M->prev_allgather_module);
}

static int coll_scatter_fn(const void* s, int sc, struct ompi_datatype_t* st, void* r, int rc,
                           struct ompi_datatype_t* rt, int root, struct ompi_communicator_t* comm,
                           mca_coll_base_module_t* module) {
  int err;
  long long bytes = (r == MPI_IN_PLACE) ? bytes_of(st, sc) : bytes_of(rt, rc);
  if (take(M, bytes >= 0, "scatter") &&
      done(M, osmp_scatter(M->team, s, out_of(r), bytes, OSMP_UINT8, root), "scatter", &err))
    return err;
  return M->prev_scatter(s, sc, st, r, rc, rt, root, comm, M->prev_scatter_module);
}

static int coll_reduce_scatter_block_fn(const void* s, void* r, int rc, struct ompi_datatype_t* t,
                                        struct ompi_op_t* op, struct ompi_communicator_t* comm,
                                        mca_coll_base_module_t* module) {
  int err;
  osmp_datatype dt;
  osmp_op o;
  if (take(M, arith_type(t, &dt) && op_of(op, &o), "reduce_scatter_block") &&
      done(M, osmp_reduce_scatter_block(M->team, in_of(s), r, rc, dt, o), "reduce_scatter_block", &err))
    return err;
  return M->prev_reduce_scatter_block(s, r, rc, t, op, comm, M->prev_reduce_scatter_block_module);
}

#undef M

/* ---- module and component --------------------------------------------- */

static int module_enable(mca_coll_base_module_t* module, struct ompi_communicator_t* comm) {
  mca_coll_osmp_module_t* m = (mca_coll_osmp_module_t*)module;
  m->comm = comm;
#define OSMP_SAVE(name)                                                       \
  m->prev_##name = comm->c_coll->coll_##name;                                 \
  m->prev_##name##_module = comm->c_coll->coll_##name##_module;               \
  if (!m->prev_##name || !m->prev_##name##_module) {                          \
    if (osmp_verbose >= 1) fprintf(stderr, "coll:osmp: no previous " #name "\n"); \
    return OMPI_ERROR;                                                        \
  }                                                                           \
  OBJ_RETAIN(m->prev_##name##_module);
  OSMP_SAVE(barrier)
  OSMP_SAVE(bcast)
  OSMP_SAVE(reduce)
  OSMP_SAVE(allreduce)
  OSMP_SAVE(gather)
  OSMP_SAVE(allgather)
  OSMP_SAVE(scatter)
  OSMP_SAVE(reduce_scatter_block)
#undef OSMP_SAVE
  return OMPI_SUCCESS;
}

static int init_query(bool enable_progress_threads, bool enable_mpi_threads) {
  (void)enable_progress_threads;
  (void)enable_mpi_threads;
  return OMPI_SUCCESS;
}

static mca_coll_base_module_t* comm_query(struct ompi_communicator_t* comm, int* priority) {
  *priority = 0;
  if (osmp_priority < 0 || OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 ||
      ompi_group_have_remote_peers(comm->c_local_group))
    return NULL;
  mca_coll_osmp_module_t* m = OBJ_NEW(mca_coll_osmp_module_t);
  if (!m) return NULL;
  *priority = osmp_priority;
  m->super.coll_module_enable = module_enable;
  m->super.coll_barrier = coll_barrier_fn;
  m->super.coll_bcast = coll_bcast_fn;
  m->super.coll_reduce = coll_reduce_fn;
  m->super.coll_allreduce = coll_allreduce_fn;
  m->super.coll_gather = coll_gather_fn;
  m->super.coll_allgather = coll_allgather_fn;
  m->super.coll_scatter = coll_scatter_fn;
  m->super.coll_reduce_scatter_block = coll_reduce_scatter_block_fn;
  return &m->super;
}

static int register_params(void);

mca_coll_base_component_2_0_0_t mca_coll_osmp_component = {
    .collm_version = {MCA_COLL_BASE_VERSION_2_0_0, .mca_component_name = "osmp",
                      MCA_BASE_MAKE_VERSION(component, 0, 1, 0),
                      .mca_register_component_params = register_params},
    .collm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT},
    .collm_init_query = init_query,
    .collm_comm_query = comm_query,
};

static void string_param(const char* name, const char* help, char** storage) {
  (void)mca_base_component_var_register(&mca_coll_osmp_component.collm_version, name, help, MCA_BASE_VAR_TYPE_STRING,
                                        NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, storage);
}

static int register_params(void) {
  (void)mca_base_component_var_register(&mca_coll_osmp_component.collm_version, "priority",
                                        "Priority of coll/osmp (default 90, above tuned's 30: chosen whenever it is "
                                        "loaded, for intra-communicators on one node; < 0 disables it)",
                                        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6,
                                        MCA_BASE_VAR_SCOPE_READONLY, &osmp_priority);
  (void)mca_base_component_var_register(&mca_coll_osmp_component.collm_version, "verbose",
                                        "0 quiet; 1 why osmp declined, per communicator; 2 the path of every call",
                                        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
                                        MCA_BASE_VAR_SCOPE_READONLY, &osmp_verbose);
  string_param("vh", "Virtual hierarchy spec (as OSMP_VH): LEVEL:D, LEVEL?N, ?N, auto", &osmp_vh);
  string_param("wait", "Wait policy (as OSMP_WAIT): spin, yield, futex, auto", &osmp_wait);
  string_param("base_case", "Base case per level (as OSMP_BASE_CASE): flat, knomial[:K], LEVEL=CASE,...",
               &osmp_base_case);
  string_param("cma_min", "Single-copy (process_vm_readv) threshold per rank (as OSMP_CMA_MIN)", &osmp_cma_min);
  string_param("slot_size", "Bytes per member data slot (as OSMP_SLOT_SIZE)", &osmp_slot_size);
  return OMPI_SUCCESS;
}
