/* coll_bench: OSU-style collective latency, one source for every library.
 *
 * Built three times: against osmp (osmp-bench, run under osmprun), Open MPI
 * (coll_bench_ompi) and MPICH (coll_bench_mpich), so that scripts/compare.sh
 * times every library with the same loop, buffers and statistics.
 *
 * Options: kUsage below (also --help).
 *
 * Sizes are per rank (gather: what each rank sends; alltoall: what each rank
 * sends to each other, as osu_alltoall counts). Reductions use float sum.
 * Send and receive buffers rotate through several copies so that a cache
 * warmed by the last call flatters no one. Output follows osu_* (average over
 * ranks of each rank's mean, then min and max over ranks).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Under callgrind (scripts/callcost.sh) the counts start after the warm-up
   and are dumped after the timed loop; elsewhere these do nothing. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_ZERO_STATS
#define CALLGRIND_ZERO_STATS \
  do {                       \
  } while (0)
#define CALLGRIND_DUMP_STATS \
  do {                       \
  } while (0)
#endif

#ifndef OSMP_VERSION_TEXT /* given by the build (bench/CMakeLists.txt) */
#define OSMP_VERSION_TEXT "unknown"
#define OSMP_GIT_TEXT "unknown"
#endif

#ifdef BENCH_OSMP
#include "osmp.h"
#define LIBRARY "osmp"
static osmp_team* g_team;
#else
#include <mpi.h>
#ifdef BENCH_LIBRARY
#define BENCH_STR2(x) #x
#define BENCH_STR(x) BENCH_STR2(x)
#define LIBRARY BENCH_STR(BENCH_LIBRARY)
#else
#define LIBRARY "mpi"
#endif
#endif

/* The options (--help); sizes and modes as the header says. */
static const char* const kUsage =
    "usage: %s [options]   (osmp-bench: under osmprun; coll_bench_<mpi>: under mpirun)\n"
    "    -o OPS        comma list: barrier,bcast,reduce,allreduce,gather,allgather,scatter,\n"
    "                  reduce_scatter,alltoall,scan,exscan,gatherv,allgatherv,scatterv,alltoallv,\n"
    "                  reduce_scatter_v (reduce_scatter: MPI_Reduce_scatter_block)\n"
    "                  (default: all)\n"
    "    -m MIN:MAX    message sizes in bytes (default 4:4194304), doubling\n"
    "    -i N          iterations for sizes <= 8 KiB (default 10000); larger sizes get\n"
    "                  fewer, at least 20 (scaled by size)\n"
    "    -x N          warm-up iterations (default: iterations / 10)\n"
    "    -s MODE       osu: time each call, a barrier between calls (OSU's semantics);\n"
    "                  loop: time the whole loop of {operation; barrier} per iteration,\n"
    "                  which stays honest when ranks outnumber cores;\n"
    "                  tight: time a loop of the operation alone, back to back;\n"
    "                  overlap: the non-blocking form, as osu_iallreduce measures\n"
    "                  it: the pure time of {start; wait}, then {start; compute for\n"
    "                  that long; wait}, overlap = 100 * (1 - (overall - compute) /\n"
    "                  pure), no test call while computing (default osu)\n"
    "    -r ROOT       root of rooted operations (default 0)\n"
    "    -c FILE       append CSV rows: library,op,procs,bytes,avg_us,min_us,max_us,iters,mode\n"
    "                  (overlap: library,op,procs,bytes,pure_us,overall_us,compute_us,overlap_pct,iters)\n"
    "    -l LABEL      library name in the CSV (default: the build's)\n"
    "    -H            buffers from the library's allocator for shared memory:\n"
    "                  osmp_alloc (osmp's shared heap: single-copy collectives)\n"
    "                  or MPI_Alloc_mem (which the osmp interposer serves from\n"
    "                  the heap too); default malloc\n"
    "    -h, --help, --version\n";

enum {
  OP_BARRIER,
  OP_BCAST,
  OP_REDUCE,
  OP_ALLREDUCE,
  OP_GATHER,
  OP_ALLGATHER,
  OP_SCATTER,
  OP_RSB,
  OP_ALLTOALL,
  OP_SCAN,
  OP_EXSCAN,
  OP_GATHERV,
  OP_ALLGATHERV,
  OP_SCATTERV,
  OP_ALLTOALLV,
  OP_RS, /* MPI_Reduce_scatter (per-rank counts), "reduce_scatter_v": "reduce_scatter" is the block form */
  OP_COUNT
};
static const char* kOpNames[OP_COUNT] = {
    "barrier",  "bcast", "reduce", "allreduce", "gather",     "allgather", "scatter",   "reduce_scatter",
    "alltoall", "scan",  "exscan", "gatherv",   "allgatherv", "scatterv",  "alltoallv", "reduce_scatter_v"};

/* The v-variants' counts and displacements: every rank's block n long, in
 * rank order (as osu_gatherv and the others measure them). */
#define MAX_RANKS 4096
static int64_t g_vcounts[MAX_RANKS], g_vdispls[MAX_RANKS];
static int g_vcounts_int[MAX_RANKS], g_vdispls_int[MAX_RANKS];
static long g_vn = -1;
static void set_counts(long n, int ranks) {
  if (n == g_vn) return;
  if (ranks > MAX_RANKS) {
    fprintf(stderr, "coll_bench: the v-variants take at most %d ranks\n", MAX_RANKS);
    exit(1);
  }
  for (int q = 0; q < ranks; ++q) {
    g_vcounts[q] = n;
    g_vdispls[q] = (int64_t)q * n;
    g_vcounts_int[q] = (int)n;
    g_vdispls_int[q] = (int)((int64_t)q * n);
  }
  g_vn = n;
}

static int g_rank, g_size;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void fail(const char* what, int code) {
  fprintf(stderr, "coll_bench (%s) rank %d: %s failed (%d)\n", LIBRARY, g_rank, what, code);
  exit(1);
}

/* ---- the backend: the only part that differs between libraries ---- */

#ifdef BENCH_OSMP
static void be_init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  int rc = osmp_init(&g_team);
  if (rc) {
    fprintf(stderr, "osmp_init: %s\n", osmp_strerror(rc));
    exit(1);
  }
  g_rank = osmp_rank(g_team);
  g_size = osmp_size(g_team);
}
static void be_finalize(void) { osmp_finalize(g_team); }
static void be_barrier(void) {
  int rc = osmp_barrier(g_team);
  if (rc) fail("barrier", rc);
}
/* count: elements (floats for reductions, bytes otherwise) */
static void be_op(int op, void* s, void* r, long n, int root) {
  int rc = 0;
  switch (op) {
    case OP_BARRIER: rc = osmp_barrier(g_team); break;
    case OP_BCAST: rc = osmp_bcast(g_team, s, n, OSMP_UINT8, root); break;
    case OP_REDUCE: rc = osmp_reduce(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM, root); break;
    case OP_ALLREDUCE: rc = osmp_allreduce(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM); break;
    case OP_GATHER: rc = osmp_gather(g_team, s, r, n, OSMP_UINT8, root); break;
    case OP_ALLGATHER: rc = osmp_allgather(g_team, s, r, n, OSMP_UINT8); break;
    case OP_SCATTER: rc = osmp_scatter(g_team, s, r, n, OSMP_UINT8, root); break;
    case OP_RSB: rc = osmp_reduce_scatter_block(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM); break;
    case OP_ALLTOALL: rc = osmp_alltoall(g_team, s, r, n, OSMP_UINT8); break;
    case OP_SCAN: rc = osmp_scan(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM); break;
    case OP_EXSCAN: rc = osmp_exscan(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM); break;
    case OP_GATHERV:
      set_counts(n, g_size);
      rc = osmp_gatherv(g_team, s, n, r, g_vcounts, g_vdispls, OSMP_UINT8, root);
      break;
    case OP_ALLGATHERV:
      set_counts(n, g_size);
      rc = osmp_allgatherv(g_team, s, n, r, g_vcounts, g_vdispls, OSMP_UINT8);
      break;
    case OP_SCATTERV:
      set_counts(n, g_size);
      rc = osmp_scatterv(g_team, s, g_vcounts, g_vdispls, r, n, OSMP_UINT8, root);
      break;
    case OP_ALLTOALLV:
      set_counts(n, g_size);
      rc = osmp_alltoallv(g_team, s, g_vcounts, g_vdispls, r, g_vcounts, g_vdispls, OSMP_UINT8);
      break;
    case OP_RS:
      set_counts(n, g_size);
      rc = osmp_reduce_scatter(g_team, s, r, g_vcounts, OSMP_FLOAT32, OSMP_SUM);
      break;
  }
  if (rc) {
    fprintf(stderr, "%s\n", osmp_last_error(g_team));
    fail(kOpNames[op], rc);
  }
}
static osmp_request g_req;
static void be_start(int op, void* s, void* r, long n, int root) {
  int rc = 0;
  switch (op) {
    case OP_BARRIER: rc = osmp_ibarrier(g_team, &g_req); break;
    case OP_BCAST: rc = osmp_ibcast(g_team, s, n, OSMP_UINT8, root, &g_req); break;
    case OP_REDUCE: rc = osmp_ireduce(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM, root, &g_req); break;
    case OP_ALLREDUCE: rc = osmp_iallreduce(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM, &g_req); break;
    case OP_GATHER: rc = osmp_igather(g_team, s, r, n, OSMP_UINT8, root, &g_req); break;
    case OP_ALLGATHER: rc = osmp_iallgather(g_team, s, r, n, OSMP_UINT8, &g_req); break;
    case OP_SCATTER: rc = osmp_iscatter(g_team, s, r, n, OSMP_UINT8, root, &g_req); break;
    case OP_RSB: rc = osmp_ireduce_scatter_block(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM, &g_req); break;
    case OP_ALLTOALL: rc = osmp_ialltoall(g_team, s, r, n, OSMP_UINT8, &g_req); break;
    case OP_SCAN: rc = osmp_iscan(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM, &g_req); break;
    case OP_EXSCAN: rc = osmp_iexscan(g_team, s, r, n, OSMP_FLOAT32, OSMP_SUM, &g_req); break;
    case OP_GATHERV:
      set_counts(n, g_size);
      rc = osmp_igatherv(g_team, s, n, r, g_vcounts, g_vdispls, OSMP_UINT8, root, &g_req);
      break;
    case OP_ALLGATHERV:
      set_counts(n, g_size);
      rc = osmp_iallgatherv(g_team, s, n, r, g_vcounts, g_vdispls, OSMP_UINT8, &g_req);
      break;
    case OP_SCATTERV:
      set_counts(n, g_size);
      rc = osmp_iscatterv(g_team, s, g_vcounts, g_vdispls, r, n, OSMP_UINT8, root, &g_req);
      break;
    case OP_ALLTOALLV:
      set_counts(n, g_size);
      rc = osmp_ialltoallv(g_team, s, g_vcounts, g_vdispls, r, g_vcounts, g_vdispls, OSMP_UINT8, &g_req);
      break;
    case OP_RS:
      set_counts(n, g_size);
      rc = osmp_ireduce_scatter(g_team, s, r, g_vcounts, OSMP_FLOAT32, OSMP_SUM, &g_req);
      break;
  }
  if (rc) fail(kOpNames[op], rc);
}
static void be_wait(void) {
  int rc = osmp_wait(&g_req);
  if (rc) {
    fprintf(stderr, "%s\n", osmp_last_error(NULL));
    fail("wait", rc);
  }
}
static void* be_alloc(size_t bytes) {
  void* p = NULL;
  int rc = osmp_alloc(g_team, bytes, &p);
  if (rc) {
    fprintf(stderr, "%s\n", osmp_last_error(g_team));
    fail("osmp_alloc", rc);
  }
  return p;
}
static void be_free(void* p) {
  int rc = osmp_free(g_team, p);
  if (rc) fail("osmp_free", rc);
}
static void be_gather_double(double v, double* all) {
  int rc = osmp_gather(g_team, &v, all, 1, OSMP_FLOAT64, 0);
  if (rc) fail("gather of timings", rc);
}
#else
static void be_init(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
}
static void be_finalize(void) { MPI_Finalize(); }
static void be_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
static void be_op(int op, void* s, void* r, long n, int root) {
  int c = (int)n;
  MPI_Comm w = MPI_COMM_WORLD;
  switch (op) {
    case OP_BARRIER: MPI_Barrier(w); break;
    case OP_BCAST: MPI_Bcast(s, c, MPI_BYTE, root, w); break;
    case OP_REDUCE: MPI_Reduce(s, r, c, MPI_FLOAT, MPI_SUM, root, w); break;
    case OP_ALLREDUCE: MPI_Allreduce(s, r, c, MPI_FLOAT, MPI_SUM, w); break;
    case OP_GATHER: MPI_Gather(s, c, MPI_BYTE, r, c, MPI_BYTE, root, w); break;
    case OP_ALLGATHER: MPI_Allgather(s, c, MPI_BYTE, r, c, MPI_BYTE, w); break;
    case OP_SCATTER: MPI_Scatter(s, c, MPI_BYTE, r, c, MPI_BYTE, root, w); break;
    case OP_RSB: MPI_Reduce_scatter_block(s, r, c, MPI_FLOAT, MPI_SUM, w); break;
    case OP_ALLTOALL: MPI_Alltoall(s, c, MPI_BYTE, r, c, MPI_BYTE, w); break;
    case OP_SCAN: MPI_Scan(s, r, c, MPI_FLOAT, MPI_SUM, w); break;
    case OP_EXSCAN: MPI_Exscan(s, r, c, MPI_FLOAT, MPI_SUM, w); break;
    case OP_GATHERV:
      set_counts(n, g_size);
      MPI_Gatherv(s, c, MPI_BYTE, r, g_vcounts_int, g_vdispls_int, MPI_BYTE, root, w);
      break;
    case OP_ALLGATHERV:
      set_counts(n, g_size);
      MPI_Allgatherv(s, c, MPI_BYTE, r, g_vcounts_int, g_vdispls_int, MPI_BYTE, w);
      break;
    case OP_SCATTERV:
      set_counts(n, g_size);
      MPI_Scatterv(s, g_vcounts_int, g_vdispls_int, MPI_BYTE, r, c, MPI_BYTE, root, w);
      break;
    case OP_ALLTOALLV:
      set_counts(n, g_size);
      MPI_Alltoallv(s, g_vcounts_int, g_vdispls_int, MPI_BYTE, r, g_vcounts_int, g_vdispls_int, MPI_BYTE, w);
      break;
    case OP_RS:
      set_counts(n, g_size);
      MPI_Reduce_scatter(s, r, g_vcounts_int, MPI_FLOAT, MPI_SUM, w);
      break;
  }
}
static MPI_Request g_req;
static void be_start(int op, void* s, void* r, long n, int root) {
  int c = (int)n;
  MPI_Comm w = MPI_COMM_WORLD;
  switch (op) {
    case OP_BARRIER: MPI_Ibarrier(w, &g_req); break;
    case OP_BCAST: MPI_Ibcast(s, c, MPI_BYTE, root, w, &g_req); break;
    case OP_REDUCE: MPI_Ireduce(s, r, c, MPI_FLOAT, MPI_SUM, root, w, &g_req); break;
    case OP_ALLREDUCE: MPI_Iallreduce(s, r, c, MPI_FLOAT, MPI_SUM, w, &g_req); break;
    case OP_GATHER: MPI_Igather(s, c, MPI_BYTE, r, c, MPI_BYTE, root, w, &g_req); break;
    case OP_ALLGATHER: MPI_Iallgather(s, c, MPI_BYTE, r, c, MPI_BYTE, w, &g_req); break;
    case OP_SCATTER: MPI_Iscatter(s, c, MPI_BYTE, r, c, MPI_BYTE, root, w, &g_req); break;
    case OP_RSB: MPI_Ireduce_scatter_block(s, r, c, MPI_FLOAT, MPI_SUM, w, &g_req); break;
    case OP_ALLTOALL: MPI_Ialltoall(s, c, MPI_BYTE, r, c, MPI_BYTE, w, &g_req); break;
    case OP_SCAN: MPI_Iscan(s, r, c, MPI_FLOAT, MPI_SUM, w, &g_req); break;
    case OP_EXSCAN: MPI_Iexscan(s, r, c, MPI_FLOAT, MPI_SUM, w, &g_req); break;
    case OP_GATHERV:
      set_counts(n, g_size);
      MPI_Igatherv(s, c, MPI_BYTE, r, g_vcounts_int, g_vdispls_int, MPI_BYTE, root, w, &g_req);
      break;
    case OP_ALLGATHERV:
      set_counts(n, g_size);
      MPI_Iallgatherv(s, c, MPI_BYTE, r, g_vcounts_int, g_vdispls_int, MPI_BYTE, w, &g_req);
      break;
    case OP_SCATTERV:
      set_counts(n, g_size);
      MPI_Iscatterv(s, g_vcounts_int, g_vdispls_int, MPI_BYTE, r, c, MPI_BYTE, root, w, &g_req);
      break;
    case OP_ALLTOALLV:
      set_counts(n, g_size);
      MPI_Ialltoallv(s, g_vcounts_int, g_vdispls_int, MPI_BYTE, r, g_vcounts_int, g_vdispls_int, MPI_BYTE, w, &g_req);
      break;
    case OP_RS:
      set_counts(n, g_size);
      MPI_Ireduce_scatter(s, r, g_vcounts_int, MPI_FLOAT, MPI_SUM, w, &g_req);
      break;
  }
}
static void be_wait(void) { MPI_Wait(&g_req, MPI_STATUS_IGNORE); }
static void* be_alloc(size_t bytes) {
  void* p = NULL;
  int rc = MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p);
  if (rc != MPI_SUCCESS) fail("MPI_Alloc_mem", rc);
  return p;
}
static void be_free(void* p) { MPI_Free_mem(p); }
static void be_gather_double(double v, double* all) {
  MPI_Gather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
#endif

/* Busy for `us` microseconds without calling the library (the computation
 * a non-blocking call should overlap with). */
static void compute_for(double us) {
  const double end = now_us() + us;
  volatile double x = 1.0;
  while (now_us() < end)
    for (int k = 0; k < 64; ++k) x = x * 1.0000001 + 1e-9;
}

/* The average over ranks of each rank's `v` (on rank 0). */
static double rank_average(double v, double* all) {
  be_gather_double(v, all);
  double sum = 0;
  for (int q = 0; q < g_size; ++q) sum += all[q];
  return sum / g_size;
}

/* ---- the benchmark, the same for everyone ---- */

static void release(int shared_alloc, void* p) {
  if (shared_alloc)
    be_free(p);
  else
    free(p);
}

static int is_reduction(int op) {
  return op == OP_REDUCE || op == OP_ALLREDUCE || op == OP_RSB || op == OP_SCAN || op == OP_EXSCAN || op == OP_RS;
}

/* Bytes of the send and receive buffers for `bytes` per rank. */
static void sizes(int op, size_t bytes, size_t* sb, size_t* rb) {
  size_t all = bytes * (size_t)g_size;
  *sb = *rb = bytes;
  if (op == OP_GATHER || op == OP_ALLGATHER || op == OP_GATHERV || op == OP_ALLGATHERV) *rb = all;
  if (op == OP_SCATTER || op == OP_RSB || op == OP_ALLTOALL || op == OP_SCATTERV || op == OP_ALLTOALLV || op == OP_RS)
    *sb = all;
  if (op == OP_ALLTOALL || op == OP_ALLTOALLV) *rb = all;
  if (op == OP_BARRIER) *sb = *rb = 0;
}

/* --help and --version: answered before any team or MPI is set up, so
 * they work without osmprun or mpirun. */
static int answered(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf(kUsage, argv[0]);
      return 1;
    }
    if (!strcmp(argv[i], "--version")) {
      const char* slash = strrchr(argv[0], '/');
      printf("%s (osmp) %s (git %s)\n", slash ? slash + 1 : argv[0], OSMP_VERSION_TEXT, OSMP_GIT_TEXT);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (answered(argc, argv)) return 0;
  be_init(&argc, &argv);
  int want[OP_COUNT];
  for (int i = 0; i < OP_COUNT; ++i) want[i] = 1;
  size_t min = 4, max = 4 << 20;
  long iters_small = 10000, warm = -1;
  int loop_mode = 0, tight = 0, overlap = 0, root = 0, shared_alloc = 0;
  const char* csv = NULL;
  const char* label = LIBRARY;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(a, "-o")) {
      for (int k = 0; k < OP_COUNT; ++k) want[k] = 0;
      char* list = strdup(v);
      for (char* t = strtok(list, ","); t; t = strtok(NULL, ","))
        for (int k = 0; k < OP_COUNT; ++k)
          if (!strcmp(t, kOpNames[k]) || !strcmp(t, "all")) want[k] = 1;
      free(list);
      ++i;
    } else if (!strcmp(a, "-m")) {
      min = strtoull(v, NULL, 10);
      const char* c = strchr(v, ':');
      max = c ? strtoull(c + 1, NULL, 10) : min;
      ++i;
    } else if (!strcmp(a, "-i")) {
      iters_small = atol(v), ++i;
    } else if (!strcmp(a, "-x")) {
      warm = atol(v), ++i;
    } else if (!strcmp(a, "-s")) {
      loop_mode = !strcmp(v, "loop") || !strcmp(v, "tight");
      tight = !strcmp(v, "tight");
      overlap = !strcmp(v, "overlap");
      ++i;
    } else if (!strcmp(a, "-r")) {
      root = atoi(v), ++i;
    } else if (!strcmp(a, "-c")) {
      csv = v, ++i;
    } else if (!strcmp(a, "-H")) {
      shared_alloc = 1;
    } else if (!strcmp(a, "-l")) {
      label = v, ++i;
    } else {
      if (g_rank == 0) fprintf(stderr, "coll_bench: unknown option %s\n", a);
      be_finalize();
      return 2;
    }
  }
  if (min < 1) min = 1;
  FILE* out = NULL;
  if (csv && g_rank == 0) out = fopen(csv, "a");
  double* all = malloc(sizeof(double) * (size_t)g_size);

  for (int op = 0; op < OP_COUNT; ++op) {
    if (!want[op]) continue;
    if (g_rank == 0 && overlap) {
      printf("# %s i%s, %d processes, overlap with computation (as osu_i%s)\n", label, kOpNames[op], g_size,
             kOpNames[op]);
      printf("%-10s %13s %13s %15s %11s %10s\n", "# Size", "Overall(us)", "Compute(us)", "Pure Comm.(us)", "Overlap(%)",
             "Iterations");
    } else if (g_rank == 0) {
      printf("# %s %s, %d processes, %s timing\n", label, kOpNames[op], g_size,
             tight       ? "tight loop {op}"
             : loop_mode ? "loop {op; barrier}"
                         : "per call (OSU)");
      printf("%-10s %13s %13s %13s %10s\n", "# Size", "Avg Latency(us)", "Min(us)", "Max(us)", "Iterations");
    }
    for (size_t bytes = min; bytes <= max; bytes *= 2) {
      if (op == OP_BARRIER && bytes != min) break;
      size_t unit = is_reduction(op) ? sizeof(float) : 1;
      if (bytes < unit) continue;
      long n = (long)(bytes / unit);
      size_t sb, rb;
      sizes(op, bytes, &sb, &rb);
      long iters = bytes <= 8192 ? iters_small : (long)(iters_small * 8192.0 / (double)bytes);
      if (iters < 20) iters = 20;
      long w = warm >= 0 ? warm : iters / 10;
      /* Rotate through several buffers, at most 64 MiB of them per rank. */
      int nbuf = 8;
      while (nbuf > 1 && (double)nbuf * (double)(sb + rb) > 64.0 * 1024 * 1024) nbuf /= 2;
      char* sbuf = shared_alloc ? be_alloc(sb * (size_t)nbuf + 64) : malloc(sb * (size_t)nbuf + 64);
      char* rbuf = shared_alloc ? be_alloc(rb * (size_t)nbuf + 64) : malloc(rb * (size_t)nbuf + 64);
      memset(sbuf, 1, sb * (size_t)nbuf + 64);
      memset(rbuf, 0, rb * (size_t)nbuf + 64);
      if (overlap) {
        /* Pure: {start; wait}. Then {start; compute as long; wait}. */
        double pure = 0, overall = 0, cpu = 0;
        for (long it = -w; it < iters; ++it) {
          char* s = sbuf + (size_t)((it + w) % nbuf) * sb;
          char* r = rbuf + (size_t)((it + w) % nbuf) * rb;
          be_barrier();
          double t0 = now_us();
          be_start(op, s, r, n, root);
          be_wait();
          if (it >= 0) pure += now_us() - t0;
        }
        pure /= (double)iters;
        for (long it = -w; it < iters; ++it) {
          char* s = sbuf + (size_t)((it + w) % nbuf) * sb;
          char* r = rbuf + (size_t)((it + w) % nbuf) * rb;
          be_barrier();
          double t0 = now_us();
          be_start(op, s, r, n, root);
          double c0 = now_us();
          compute_for(pure);
          double c1 = now_us();
          be_wait();
          if (it >= 0) {
            overall += now_us() - t0;
            cpu += c1 - c0;
          }
        }
        overall /= (double)iters;
        cpu /= (double)iters;
        double pct = pure > 0 ? 100.0 * (1.0 - (overall - cpu) / pure) : 0;
        if (pct < 0) pct = 0;
        double a_overall = rank_average(overall, all), a_cpu = rank_average(cpu, all);
        double a_pure = rank_average(pure, all), a_pct = rank_average(pct, all);
        if (g_rank == 0) {
          printf("%-10zu %13.2f %13.2f %15.2f %11.2f %10ld\n", op == OP_BARRIER ? 0 : bytes, a_overall, a_cpu, a_pure,
                 a_pct, iters);
          if (out) {
            fprintf(out, "%s,%s,%d,%zu,%.4f,%.4f,%.4f,%.2f,%ld\n", label, kOpNames[op], g_size,
                    op == OP_BARRIER ? (size_t)0 : bytes, a_pure, a_overall, a_cpu, a_pct, iters);
          }
          fflush(stdout);
        }
        release(shared_alloc, sbuf);
        release(shared_alloc, rbuf);
        continue;
      }
      double total = 0;
      for (long it = -w; it < iters; ++it) {
        char* s = sbuf + (size_t)((it + w) % nbuf) * sb;
        char* r = rbuf + (size_t)((it + w) % nbuf) * rb;
        if (it == 0) CALLGRIND_ZERO_STATS;
        if (!loop_mode) {
          be_barrier();
          double t0 = now_us();
          be_op(op, op == OP_BCAST ? s : s, r, n, root);
          if (it >= 0) total += now_us() - t0;
        } else {
          if (it == 0) {
            be_barrier();
            total = now_us();
          }
          be_op(op, s, r, n, root);
          if (!tight) be_barrier();
        }
      }
      CALLGRIND_DUMP_STATS;
      double mine = loop_mode ? (now_us() - total) / (double)iters : total / (double)iters;
      be_gather_double(mine, all);
      if (g_rank == 0) {
        double lo = all[0], hi = all[0], sum = 0;
        for (int q = 0; q < g_size; ++q) {
          sum += all[q];
          if (all[q] < lo) lo = all[q];
          if (all[q] > hi) hi = all[q];
        }
        double avg = sum / g_size;
        printf("%-10zu %13.2f %13.2f %13.2f %10ld\n", op == OP_BARRIER ? 0 : bytes, avg, lo, hi, iters);
        if (out) {
          fprintf(out, "%s,%s,%d,%zu,%.4f,%.4f,%.4f,%ld,%s\n", label, kOpNames[op], g_size,
                  op == OP_BARRIER ? (size_t)0 : bytes, avg, lo, hi, iters,
                  tight       ? "tight"
                  : loop_mode ? "loop"
                              : "osu");
        }
        fflush(stdout);
      }
      release(shared_alloc, sbuf);
      release(shared_alloc, rbuf);
    }
  }
  if (out) fclose(out);
  free(all);
  be_finalize();
  return 0;
}
