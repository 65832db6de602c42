/* coll/osmp: osmp as an Open MPI collective component (mca_coll_osmp.so),
 * built from this one source against Open MPI 4.1 and 5.0 (OMPI_MAJOR_VERSION
 * below picks where their coll frameworks differ; docs/install.md).
 *
 * Selected for every intra-communicator of two or more processes. On one node
 * the whole call runs on osmp; across nodes osmp runs inside each node and
 * the previous components among node leaders. The module keeps the previous
 * component's functions (as coll/han does) and uses them for the team
 * bootstrap, the leaders' part, and every call that goes to the MPI (user
 * ops, MINLOC/MAXLOC, a failed team creation), the reason logged once. Which
 * calls those are is decided the same way on every rank: the route rule in
 * mpi_glue/pmpi/logic.cpp. Errors (mismatched arguments) come back as the
 * collective's return code; Open MPI hands them to the communicator's error
 * handler. The non-blocking collectives (MPI_Ibarrier ...) run on osmp too,
 * completed from a function registered with opal_progress. Arguments Open
 * MPI checks itself (a negative count, a root out of
 * range, a predefined op on a derived datatype) never reach the module.
 * Load: mpirun --mca mca_base_component_path <default dir>:<dir of this file>.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr1 */
#endif
#include "ompi_config.h"

#include <dlfcn.h>
#include <link.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "mpi_glue/pmpi/logic.h"
#include "ompi/communicator/communicator.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/group/group.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/request/request.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/info_subscriber.h"
#include "osmp_ops.h"

/* Open MPI 5.0's coll framework: component interface 2.4.0 (persistent
 * collectives in the module, which this module leaves to the components
 * below it: Open MPI takes each function from the highest module that has
 * one), info callbacks on const strings. 4.1: interface 2.0.0. */
#if OMPI_MAJOR_VERSION >= 5
#define OSMP_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_4_0
typedef const char osmp_info_char;
#elif OMPI_MAJOR_VERSION == 4
#define OSMP_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
typedef char osmp_info_char;
#else
#error "coll/osmp is built against Open MPI 4.1 or 5.0 (OMPI_MAJOR_VERSION from its mpi.h)"
#endif

/* ---- parameters ------------------------------------------------------- */
/* 1: per rank at MPI_Finalize, how many calls ran where, and why osmp
 *    declined (each reason once); 2: also the path of every call. */

/* coll_osmp_priority, read as a string and parsed here (Open MPI reads a
 * typo in an int parameter as 0): above tuned (30), chosen whenever it is
 * loaded; < 0, or not a number, disables the component. */
static char* osmp_priority_text = NULL;
static int osmp_priority = 90;
static int osmp_verbose = 0;
static char* osmp_vh = NULL;
static char* osmp_wait = NULL;
static char* osmp_base_case = NULL;
static char* osmp_cma = NULL;
static char* osmp_cma_min = NULL;
static char* osmp_check = NULL;
static char* osmp_slot_size = NULL;
static char* osmp_tuning_file = NULL;
/* Per operation (coll_osmp_vh_<op>, as OSMP_VH_<OP>), in osmp_ops.h's order. */
#define OSMP_OP_NAME_(name, Name, NAME, key, rooted, reduces, form) #name,
static const char* const osmp_ops[OSMP_COLL_COUNT] = {OSMP_COLLECTIVES(OSMP_OP_NAME_)};
#undef OSMP_OP_NAME_
/* "OSMP_VH_REDUCE_SCATTER_BLOCK": the variable the engine reads for op i. */
#define OSMP_OP_VH_ENV_(name, Name, NAME, key, rooted, reduces, form) "OSMP_VH_" #NAME,
static const char* const osmp_vh_env[OSMP_COLL_COUNT] = {OSMP_COLLECTIVES(OSMP_OP_VH_ENV_)};
#undef OSMP_OP_VH_ENV_
static char* osmp_vh_op[OSMP_COLL_COUNT] = {NULL};

typedef struct {
  mca_coll_base_module_t super;
  struct ompi_communicator_t* comm;
#define OSMP_PREV(name)                           \
  mca_coll_base_module_##name##_fn_t prev_##name; \
  mca_coll_base_module_t* prev_##name##_module;
  /* every operation of osmp_ops.h, blocking and non-blocking */
#define OSMP_BOTH_(name, Name, NAME, key, rooted, reduces, form) OSMP_PREV(name) OSMP_PREV(i##name)
  OSMP_COLLECTIVES(OSMP_BOTH_)
#undef OSMP_BOTH_
#undef OSMP_PREV
} mca_coll_osmp_module_t;

/* Everything after the base module zeroed: a module whose enable failed
 * part way is destructed with only the previous modules it kept. */
static void module_construct(mca_coll_osmp_module_t* m) {
  memset((char*)m + sizeof(m->super), 0, sizeof(*m) - sizeof(m->super));
}

/* The communicator's osmp state (team, leaders) is an attribute of it and
 * goes with it; this only lets go of the previous component. */
static void module_destruct(mca_coll_osmp_module_t* m) {
#define OSMP_RELEASE(name) \
  if (m->prev_##name##_module) OBJ_RELEASE(m->prev_##name##_module);
  /* every operation of osmp_ops.h, blocking and non-blocking */
#define OSMP_BOTH_(name, Name, NAME, key, rooted, reduces, form) OSMP_RELEASE(name) OSMP_RELEASE(i##name)
  OSMP_COLLECTIVES(OSMP_BOTH_)
#undef OSMP_BOTH_
#undef OSMP_RELEASE
}

OBJ_CLASS_INSTANCE(mca_coll_osmp_module_t, mca_coll_base_module_t, module_construct, module_destruct);

/* ---- the collectives ---------------------------------------------------
 * Each call goes to the logic the PMPI interposer uses (mpi_glue/pmpi/
 * logic.cpp): osmp per node, the MPI among node leaders. That logic reaches
 * the MPI through PMPI_ calls, on this communicator too (team bootstrap,
 * fallbacks): while it runs, `bypass` sends those calls straight to the
 * previous component instead of back into this module. */

static __thread int bypass = 0;

#define M ((mca_coll_osmp_module_t*)module)
#define OSMP_CALL(name, logic_call, prev_call) \
  if (bypass) return prev_call;                \
  bypass = 1;                                  \
  int rc_ = logic_call;                        \
  bypass = 0;                                  \
  return rc_
/* Open MPI starts non-blocking collectives of its own: the rounds of its
 * communicator creation (MPI_Iallreduce on the parent), from progress
 * callbacks, at moments that differ from rank to rank (before or after a
 * collective the program calls meanwhile, inside this module's logic or
 * outside it). osmp orders a team's calls by when each rank starts them, so
 * those go to the previous component on every rank (as they would without
 * osmp: libnbc matches them apart from the program's calls). A call the
 * program made comes through Open MPI's bindings (PMPI_I<op>): it takes the
 * route rule, bypass or not (the logic never starts a non-blocking call
 * through the module: own below; nor builds a state for one: logic.cpp). */
typedef struct {
  uintptr_t begin, end;
} osmp_code_range_t;
static osmp_code_range_t binding_of[OSMP_COLL_COUNT + 1]; /* [OSMP_COLL_<OP>]: PMPI_I<op>, set once (init_query) */
static void find_binding(osmp_code_range_t* range, const char* symbol) {
  void* at = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info;
  const ElfW(Sym)* sym = NULL;
  if (!at || !dladdr1(at, &info, (void**)&sym, RTLD_DL_SYMENT) || !sym) return;
  range->begin = (uintptr_t)at;
  range->end = (uintptr_t)at + sym->st_size;
}
static int from_bindings(int op, const void* return_address) {
  const uintptr_t a = (uintptr_t)return_address;
  return a >= binding_of[op].begin && a < binding_of[op].end;
}
#define OSMP_NB_CALL(NAME, logic_call, prev_call)                                      \
  if (!from_bindings(OSMP_COLL_##NAME, __builtin_return_address(0))) return prev_call; \
  int saved_ = bypass;                                                                 \
  bypass = 1;                                                                          \
  int rc_ = logic_call;                                                                \
  bypass = saved_;                                                                     \
  return rc_

/* coll_<name>_fn and coll_i<name>_fn, one pair per row of osmp_ops.h
 * (mpi_glue/pmpi/entries.h). Non-blocking: an osmp call in an Open MPI
 * collective request (requests below), completed by progress() below from
 * opal_progress (Open MPI's waits call it), as libnbc's requests are; or
 * the previous component's call (own below). */
#define OSMP_COLL_FNS_(name, Name, NAME, key, rooted, reduces, form)                                    \
  static int coll_##name##_fn(OSMP_MPI_PARAMS(form, rooted, reduces), mca_coll_base_module_t* module) { \
    OSMP_CALL(name, osmp_pmpi_##name(OSMP_MPI_ARGS(form, rooted, reduces)),                             \
              M->prev_##name(OSMP_MPI_ARGS(form, rooted, reduces), M->prev_##name##_module));           \
  }                                                                                                     \
  static int coll_i##name##_fn(OSMP_MPI_PARAMS(form, rooted, reduces), MPI_Request* req,                \
                               mca_coll_base_module_t* module) {                                        \
    OSMP_NB_CALL(NAME, osmp_pmpi_i##name(OSMP_MPI_ARGS(form, rooted, reduces), req),                    \
                 M->prev_i##name(OSMP_MPI_ARGS(form, rooted, reduces), req, M->prev_i##name##_module)); \
  }
OSMP_COLLECTIVES(OSMP_COLL_FNS_)
#undef OSMP_COLL_FNS_

/* From opal_progress: what the logic calls through PMPI_ (a call every rank
 * declined goes to the previous component) bypasses this module. */
static int progress(void) {
  int saved = bypass;
  bypass = 1;
  int n = osmp_pmpi_progress();
  bypass = saved;
  return n;
}
static int progress_registered = 0;

/* What osmp's waits call now and then: Open MPI's progress, so that the
 * point-to-point traffic and libnbc requests a peer needs move while this
 * rank waits in osmp (as coll/sm's waits call opal_progress). What the
 * callbacks reach through the module goes to the previous component. */
static void wait_progress(void) {
  int saved = bypass;
  bypass = 1;
  opal_progress();
  bypass = saved;
}

#undef OSMP_CALL
#undef M

/* ---- the MPI's own non-blocking calls ------------------------------------
 * What the logic starts when a non-blocking call goes to the MPI: the
 * previous component's function, called directly. Through PMPI_ it would
 * pass Open MPI's bindings a second time, each keeping a user op or derived
 * datatype in the request; the second keeps the first's callback, and the
 * request's completion then calls itself without end. A communicator this
 * module does not serve (not reached from the module) gets its own. */
#define OSMP_OWN(name, ...)                                                                  \
  if (comm->c_coll->coll_##name == coll_##name##_fn) {                                       \
    mca_coll_osmp_module_t* m = (mca_coll_osmp_module_t*)comm->c_coll->coll_##name##_module; \
    return m->prev_##name(__VA_ARGS__, m->prev_##name##_module);                             \
  }                                                                                          \
  return comm->c_coll->coll_##name(__VA_ARGS__, comm->c_coll->coll_##name##_module);

#define OSMP_OWN_FN_(name, Name, NAME, key, rooted, reduces, form)                   \
  static int own_i##name(OSMP_MPI_PARAMS(form, rooted, reduces), MPI_Request* req) { \
    OSMP_OWN(i##name, OSMP_MPI_ARGS(form, rooted, reduces), req)                     \
  }
OSMP_COLLECTIVES(OSMP_OWN_FN_)
#undef OSMP_OWN_FN_
#undef OSMP_OWN

#define OSMP_OWN_OF_(name, Name, NAME, key, rooted, reduces, form) own_i##name,
static const osmp_pmpi_own own = {OSMP_COLLECTIVES(OSMP_OWN_OF_)};
#undef OSMP_OWN_OF_

/* ---- requests -------------------------------------------------------------
 * A non-blocking call on osmp, as Open MPI's bindings take a coll module's
 * request: an ompi_coll_base_nbc_request_t, in which they keep a user op or
 * derived datatype until it completes (in a generalized request those bytes
 * are its callbacks). Its header (coll/base/coll_base_util.h) includes one
 * libopenmpi-dev does not install, so the class is libmpi's, extended at
 * run time: the logic's query (at completion, for the status), release (at
 * free) and cancel follow the parent's bytes (`tail`). */
extern opal_class_t ompi_coll_base_nbc_request_t_class;

typedef struct {
  MPI_Grequest_query_function* query;
  MPI_Grequest_free_function* release;
  MPI_Grequest_cancel_function* cancel;
  void* extra;
} osmp_request_tail_t;

static size_t tail_offset = 0; /* set with the class's size (init_query) */
static osmp_request_tail_t* tail(ompi_request_t* r) { return (osmp_request_tail_t*)((char*)r + tail_offset); }

static int request_free(ompi_request_t** rq) {
  /* Still running on osmp (MPI_Request_free first): the logic frees it
   * once complete, through this function again. */
  if (!REQUEST_COMPLETE(*rq)) return osmp_pmpi_free_when_complete(rq) ? MPI_SUCCESS : MPI_ERR_REQUEST;
  ompi_request_t* r = *rq;
  int rc = tail(r)->release(tail(r)->extra);
  OMPI_REQUEST_FINI(r);
  OBJ_RELEASE(r);
  *rq = MPI_REQUEST_NULL;
  return rc;
}

/* Open MPI passes its own flag here, not whether the call is complete; the
 * logic's cancel does nothing either way (a collective cannot be cancelled). */
static int request_cancel(ompi_request_t* r, int flag) { return tail(r)->cancel(tail(r)->extra, flag); }

static void request_construct(ompi_request_t* r) {
  r->req_type = OMPI_REQUEST_COLL;
  r->req_status._cancelled = 0;
  r->req_free = request_free;
  r->req_cancel = request_cancel;
}

static opal_class_t osmp_request_class = {.cls_name = "osmp_request_t",
                                          .cls_parent = &ompi_coll_base_nbc_request_t_class,
                                          .cls_construct = (opal_construct_t)request_construct};

static void request_class_init(void) {
  const size_t a = sizeof(void*);
  tail_offset = (ompi_coll_base_nbc_request_t_class.cls_sizeof + a - 1) / a * a;
  osmp_request_class.cls_sizeof = tail_offset + sizeof(osmp_request_tail_t);
}

static int request_start(MPI_Comm comm, MPI_Grequest_query_function* query, MPI_Grequest_free_function* release,
                         MPI_Grequest_cancel_function* cancel, void* extra, MPI_Request* req) {
#if OPAL_ENABLE_DEBUG /* as OBJ_NEW: a debug build checks every object's magic on release */
  ompi_request_t* r = (ompi_request_t*)opal_obj_new_debug(&osmp_request_class, __FILE__, __LINE__);
#else
  ompi_request_t* r = (ompi_request_t*)opal_obj_new(&osmp_request_class);
#endif
  if (!r) return MPI_ERR_NO_MEM;
  OMPI_REQUEST_INIT(r, false);
  r->req_state = OMPI_REQUEST_ACTIVE;
  r->req_mpi_object.comm = comm;
  *tail(r) = (osmp_request_tail_t){query, release, cancel, extra};
  *req = r;
  return MPI_SUCCESS;
}

/* The call's status (its error code) from the logic's query, then complete:
 * Open MPI's waits return it. */
static int request_complete(MPI_Request r) {
  MPI_Status st;
  (void)tail(r)->query(tail(r)->extra, &st);
  r->req_status.MPI_SOURCE = st.MPI_SOURCE;
  r->req_status.MPI_TAG = st.MPI_TAG;
  r->req_status.MPI_ERROR = st.MPI_ERROR;
  r->req_status._ucount = 0;
  return ompi_request_complete(r, true);
}

static const osmp_pmpi_requests requests = {request_start, request_complete};

/* ---- info hints ---------------------------------------------------------
 * osmp_vh and osmp_vh_<op> on a communicator (MPI_Comm_set_info, or given at
 * creation): Open MPI tells subscribers of a key when it changes. The logic
 * applies it collectively (MPI_Comm_set_info is collective) and returns the
 * value, or NULL when osmp refused it: Open MPI then leaves the key out of
 * MPI_Comm_get_info (a hint not used). An empty value (the default at
 * subscription) asks nothing and is not stored. */
static osmp_info_char* hint_changed(opal_infosubscriber_t* obj, osmp_info_char* key, osmp_info_char* value) {
  if (!value || !value[0]) return NULL;
  int saved = bypass;
  bypass = 1;
  const char* v = osmp_pmpi_hint_changed((struct ompi_communicator_t*)obj, key, value);
  bypass = saved;
  return (osmp_info_char*)v;
}

/* ---- module and component --------------------------------------------- */

/* A module enabled before every component that provides one of its
 * operations (coll_osmp_priority below theirs) has nothing to fall back on:
 * it declines the communicator (Open MPI then drops it), said once with
 * coll_osmp_verbose. */
static int no_previous(const char* op) {
  static int said = 0;
  if (osmp_verbose >= 1 && !said) {
    said = 1;
    fprintf(stderr,
            "coll/osmp: not used: no component below it provides %s (coll_osmp_priority %d is below the others')\n", op,
            osmp_priority);
  }
  return OMPI_ERROR;
}

static int module_enable(mca_coll_base_module_t* module, struct ompi_communicator_t* comm) {
  mca_coll_osmp_module_t* m = (mca_coll_osmp_module_t*)module;
  m->comm = comm;
#define OSMP_SAVE(name)                                                                             \
  if (!comm->c_coll->coll_##name || !comm->c_coll->coll_##name##_module) return no_previous(#name); \
  m->prev_##name = comm->c_coll->coll_##name;                                                       \
  m->prev_##name##_module = comm->c_coll->coll_##name##_module;                                     \
  OBJ_RETAIN(m->prev_##name##_module);
  /* every operation of osmp_ops.h, blocking and non-blocking */
#define OSMP_BOTH_(name, Name, NAME, key, rooted, reduces, form) OSMP_SAVE(name) OSMP_SAVE(i##name)
  OSMP_COLLECTIVES(OSMP_BOTH_)
#undef OSMP_BOTH_
#undef OSMP_SAVE
  if (!progress_registered) {
    opal_progress_register(progress);
    progress_registered = 1;
  }
  for (const char* const* k = osmp_pmpi_hint_keys(); *k; ++k)
    opal_infosubscribe_subscribe(&comm->super, (osmp_info_char*)*k, "", hint_changed);
  return OMPI_SUCCESS;
}

static void setting(const char* env, const char* value) {
  if (value && value[0]) setenv(env, value, 1);
}

/* The MCA parameters become the OSMP_* settings the engine reads. */
/* Open MPI's components build datatypes of their own without recording how
 * (coll/inter's allgatherv hands coll/osmp an indexed type that
 * MPI_Type_get_envelope refuses with MPI_ERR_INTERN). */
static int undescribed(MPI_Datatype t) { return !ompi_datatype_is_predefined(t) && t->args == NULL; }

/* coll_osmp_priority: an integer, else the component is disabled, said once
 * (by the job's first rank where Open MPI tells which that is). */
static void parse_priority(void) {
  if (!osmp_priority_text || !osmp_priority_text[0]) return;
  char* end = NULL;
  errno = 0;
  const long v = strtol(osmp_priority_text, &end, 10);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  if (errno == 0 && end != osmp_priority_text && end && *end == '\0' && v >= INT_MIN && v <= INT_MAX) {
    osmp_priority = (int)v;
    return;
  }
  osmp_priority = -1;
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank || strcmp(rank, "0") == 0) {
    fprintf(stderr, "coll/osmp: coll_osmp_priority '%s' is not an integer: coll/osmp is disabled\n",
            osmp_priority_text);
  }
}

static int init_query(bool enable_progress_threads, bool enable_mpi_threads) {
  (void)enable_progress_threads;
  (void)enable_mpi_threads;
  parse_priority();
  setting("OSMP_VH", osmp_vh);
  setting("OSMP_WAIT", osmp_wait);
  setting("OSMP_BASE_CASE", osmp_base_case);
  setting("OSMP_CMA", osmp_cma);
  setting("OSMP_CMA_MIN", osmp_cma_min);
  setting("OSMP_CHECK", osmp_check);
  setting("OSMP_SLOT_SIZE", osmp_slot_size);
  setting("OSMP_TUNING_FILE", osmp_tuning_file);
  for (int i = 0; i < OSMP_COLL_COUNT; ++i) setting(osmp_vh_env[i], osmp_vh_op[i]);
  if (osmp_verbose >= 1) setenv("OSMP_PMPI_STATS", "1", 1);
  osmp_pmpi_set_verbose(osmp_verbose);
  osmp_pmpi_set_undescribed_test(undescribed);
  osmp_pmpi_set_progress_hook(wait_progress);
  osmp_pmpi_set_own(&own);
  request_class_init();
  osmp_pmpi_set_requests(&requests);
#define OSMP_FIND_(name, Name, NAME, key, rooted, reduces, form) \
  find_binding(&binding_of[OSMP_COLL_##NAME], "PMPI_I" #name);
  OSMP_COLLECTIVES(OSMP_FIND_)
#undef OSMP_FIND_
  return OMPI_SUCCESS;
}

static mca_coll_base_module_t* comm_query(struct ompi_communicator_t* comm, int* priority) {
  *priority = 0;
  if (osmp_priority < 0 || OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2) return NULL;
  mca_coll_osmp_module_t* m = OBJ_NEW(mca_coll_osmp_module_t);
  if (!m) return NULL;
  *priority = osmp_priority;
  m->super.coll_module_enable = module_enable;
#define OSMP_SET_(name, Name, NAME, key, rooted, reduces, form) \
  m->super.coll_##name = coll_##name##_fn;                      \
  m->super.coll_i##name = coll_i##name##_fn;
  OSMP_COLLECTIVES(OSMP_SET_)
#undef OSMP_SET_
  return &m->super;
}

static int register_params(void);
static int close_component(void) {
  osmp_pmpi_set_progress_hook(NULL);
  osmp_pmpi_set_own(NULL);
  osmp_pmpi_set_requests(NULL);
  if (progress_registered) opal_progress_unregister(progress);
  progress_registered = 0;
  osmp_pmpi_report();
  return OMPI_SUCCESS;
}

mca_coll_base_component_t mca_coll_osmp_component = {
    .collm_version = {OSMP_COLL_BASE_VERSION, .mca_component_name = "osmp",
                      MCA_BASE_MAKE_VERSION(component, OSMP_VERSION_MAJOR, OSMP_VERSION_MINOR, OSMP_VERSION_PATCH),
                      .mca_close_component = close_component, .mca_register_component_params = register_params},
    .collm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT},
    .collm_init_query = init_query,
    .collm_comm_query = comm_query,
};

static void string_param(const char* name, const char* help, char** storage) {
  (void)mca_base_component_var_register(&mca_coll_osmp_component.collm_version, name, help, MCA_BASE_VAR_TYPE_STRING,
                                        NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, storage);
}

static int register_params(void) {
  osmp_priority_text = "90";
  (void)mca_base_component_var_register(&mca_coll_osmp_component.collm_version, "priority",
                                        "Priority of coll/osmp, an integer (default 90, above tuned's 30: chosen "
                                        "whenever it is loaded, for intra-communicators on one node; < 0, or not an "
                                        "integer, disables it; below the other components' it declines)",
                                        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_6,
                                        MCA_BASE_VAR_SCOPE_READONLY, &osmp_priority_text);
  (void)mca_base_component_var_register(&mca_coll_osmp_component.collm_version, "verbose",
                                        "0 quiet; 1 why osmp declined, per communicator; 2 the path of every call",
                                        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
                                        &osmp_verbose);
  string_param("vh", "Virtual hierarchy spec (as OSMP_VH): LEVEL:D, LEVEL?N, ?N, auto", &osmp_vh);
  string_param("wait", "Wait policy (as OSMP_WAIT): spin, yield, futex, auto", &osmp_wait);
  string_param("base_case", "Base case per level (as OSMP_BASE_CASE): flat, knomial[:K], LEVEL=CASE,...",
               &osmp_base_case);
  string_param("cma", "Single copy with process_vm_readv (as OSMP_CMA): auto (where it pays on this host), 1, 0",
               &osmp_cma);
  string_param("cma_min", "Single-copy (process_vm_readv) threshold per rank (as OSMP_CMA_MIN)", &osmp_cma_min);
  string_param("check",
               "Mismatch check (as OSMP_CHECK): lazy (one pass; across nodes the leaders run only the MPI's "
               "collective; the default) or strict (every call agrees first)",
               &osmp_check);
  string_param("slot_size", "Bytes per member data slot (as OSMP_SLOT_SIZE)", &osmp_slot_size);
  string_param("tuning_file", "Tuning file written by osmp-tune (as OSMP_TUNING_FILE; empty: the default location)",
               &osmp_tuning_file);
  for (int i = 0; i < OSMP_COLL_COUNT; ++i) {
    static char names[OSMP_COLL_COUNT][40], helps[OSMP_COLL_COUNT][96];
    snprintf(names[i], sizeof names[i], "vh_%s", osmp_ops[i]);
    snprintf(helps[i], sizeof helps[i], "Virtual hierarchy of %s only (as %s)", osmp_ops[i], osmp_vh_env[i]);
    string_param(names[i], helps[i], &osmp_vh_op[i]);
  }
  return OMPI_SUCCESS;
}
