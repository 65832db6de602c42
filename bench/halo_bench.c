/* halo_bench: the halo-exchange benchmark of the cartesian-weighted paper
 * (section 7, Tables 1-3), against libosmp_mpi (osmp_mpi.h).
 *
 * Built once per MPI (halo_bench_ompi against libosmp_mpi, halo_bench_mpich
 * against libosmp_mpi_mpich); scripts/halo.sh runs both on simulated nodes.
 *
 * A global 3-D mesh of floats with the ratio g0:g1:g2 (default 1:2:4) is
 * decomposed over a periodic process grid made three ways:
 *   (a) MPI_Dims_create + MPI_Cart_create (reorder 0),
 *   (b) MPIX_Cart_create_weighted with MPIX_WEIGHTS_EQUAL,
 *   (c) MPIX_Cart_create_weighted with MPIX_Weights_from_mesh(ratio).
 * Every process owns ceil(g_i / d_i) points in dimension i (d_i read back
 * with MPI_Cart_get) and exchanges halos of width 1 as the paper does: per
 * dimension, both directions in a ring (MPI_Cart_shift), 2x MPI_Irecv, 2x
 * MPI_Send, MPI_Waitall(2); send and receive buffers swap roles after each
 * step. One repetition = 6 messages = 4 * 2 * (ab + ac + bc) bytes per
 * process (a, b, c the subdomain extents): the "halo bytes" of Table 2.
 * The mesh grows 8x in volume (2x per dimension) per step.
 *
 *   -m A:B:C     mesh ratio (default 1:2:4)
 *   -b B         first mesh = B * ratio (default: the smallest B giving at
 *                least 8 points per process, as the paper's 8x12x24 on 192)
 *   -s STEPS     mesh sizes (default 7)
 *   -r REPS      timed repetitions (default 50); warm-up: REPS/10, at least 2
 *   -t TRIALS    measure each size TRIALS times, the variants interleaved,
 *                and report the median trial (default 1, the paper's way)
 *   -c FILE      append CSV rows (header written when FILE is empty)
 *   -l LABEL     library name in the output (default: the build's)
 *   --table2     no MPI at all: the paper's Table 2 (halo bytes of its 10
 *                meshes on 8x6x4 and 4x6x8) next to the paper's figures
 *   --dims N     local: the dims each variant picks for N processes
 *                (MPI_Dims_create, MPIX_Dims_create_weighted equal / mesh);
 *                with -L 8,2,12 also the multi-level factors per hardware
 *                level (MPIX_Dims_create_ml), as the paper's Table 1
 *
 * Output: header lines (# ...) with the context (processes, MPI library,
 * OSMP_SIM_* and OSMP_TOPOLOGY), then per mesh size and variant the halo
 * bytes, the time per exchange of 6 messages (max over ranks of each rank's
 * average), the bandwidth (halo bytes / time, MB/s as the paper's) and the
 * time saved against (a), as the paper's Table 3; then the halo bytes that
 * leave the busiest (simulated) node per exchange, which the hardware-aware
 * mapping is meant to cut. Each variant checks in its first warm-up
 * exchange that every message came from the neighbour MPI_Cart_shift names.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <osmp_mpi.h>

#ifdef BENCH_LIBRARY
#define BENCH_STR2(x) #x
#define BENCH_STR(x) BENCH_STR2(x)
#define LIBRARY BENCH_STR(BENCH_LIBRARY)
#else
#define LIBRARY "mpi"
#endif

#define NDIMS 3
#define NVAR 3

static const char* kVarShort[NVAR] = {"cart_create", "weighted_equal", "weighted_mesh"};
static const char* kVarLong[NVAR] = {"(a) MPI_Dims_create + MPI_Cart_create (reorder 0)",
                                     "(b) MPIX_Cart_create_weighted, MPIX_WEIGHTS_EQUAL",
                                     "(c) MPIX_Cart_create_weighted, MPIX_Weights_from_mesh"};

static int g_rank, g_size;

/* ---- pure arithmetic, shared by every mode ---- */

static long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/* Subdomain extents: ceil(g_i / d_i). */
static void extents(const long long g[NDIMS], const int d[NDIMS], long long e[NDIMS]) {
  for (int i = 0; i < NDIMS; ++i) e[i] = ceil_div(g[i], d[i]);
}

/* Halo bytes per process and repetition: floats (4 bytes), width 1, both
 * directions of every dimension: 4 * 2 * (ab + ac + bc). */
static long long halo_bytes(const long long e[NDIMS]) { return 4LL * 2LL * (e[0] * e[1] + e[0] * e[2] + e[1] * e[2]); }

/* Floats in the face sent along dimension i. */
static long long face(const long long e[NDIMS], int i) {
  long long f = 1;
  for (int j = 0; j < NDIMS; ++j)
    if (j != i) f *= e[j];
  return f;
}

static int parse_ratio(const char* s, long long r[NDIMS]) {
  char* end = NULL;
  for (int i = 0; i < NDIMS; ++i) {
    r[i] = strtoll(s, &end, 10);
    if (end == s || r[i] < 1) return -1;
    if (i < NDIMS - 1) {
      if (*end != ':' && *end != 'x') return -1;
      s = end + 1;
    }
  }
  return *end ? -1 : 0;
}

static void dims_str(const int d[NDIMS], char* buf, size_t n) { snprintf(buf, n, "%dx%dx%d", d[0], d[1], d[2]); }

/* ---- --table2: the paper's Table 2, no MPI ---- */

static int table2(void) {
  static const long long mesh[10][NDIMS] = {{8, 12, 24},        {12, 24, 48},       {24, 48, 96},     {48, 96, 184},
                                            {92, 186, 376},     {184, 372, 744},    {372, 738, 1480}, {740, 1476, 2960},
                                            {1476, 2958, 5912}, {2956, 5910, 11816}};
  /* The paper's published figures (Table 2), only to compare against. */
  static const long long paper[10][2] = {{160, 128},         {640, 432},          {2216, 1728},     {8864, 6688},
                                         {34968, 26008},     {137208, 103168},    {548088, 411192}, {2187192, 1639840},
                                         {8740888, 6551480}, {34936960, 26194104}};
  static const int orig[NDIMS] = {8, 6, 4}, meshd[NDIMS] = {4, 6, 8};
  printf("# halo_bench --table2: the paper's Table 2. Halo bytes per process, 4 * 2 * (ab + ac + bc),\n");
  printf("# a,b,c = ceil(g_i / d_i); original grid 8x6x4 (MPI_Dims_create), mesh-based 4x6x8.\n");
  printf("# 'paper' columns: the published figures; check '=' when ours equal them.\n");
  printf("%-22s %12s %12s %10s | %12s %12s %10s %6s\n", "# mesh g_i", "original", "mesh-based", "reduction",
         "paper orig", "paper mesh", "paper red", "check");
  int differ = 0;
  for (int k = 0; k < 10; ++k) {
    long long eo[NDIMS], em[NDIMS];
    extents(mesh[k], orig, eo);
    extents(mesh[k], meshd, em);
    long long ho = halo_bytes(eo), hm = halo_bytes(em);
    double red = 100.0 * (double)(ho - hm) / (double)ho;
    double pred = 100.0 * (double)(paper[k][0] - paper[k][1]) / (double)paper[k][0];
    int same = ho == paper[k][0] && hm == paper[k][1];
    differ += !same;
    char m[64];
    snprintf(m, sizeof m, "%lld x %lld x %lld", mesh[k][0], mesh[k][1], mesh[k][2]);
    printf("%-22s %12lld %12lld %9.1f%% | %12lld %12lld %9.1f%% %6s\n", m, ho, hm, red, paper[k][0], paper[k][1], pred,
           same ? "=" : "differ");
  }
  if (differ)
    printf(
        "# %d of 10 rows differ from the paper: its 'original' column there matches ceil(g_i/d_i) only with\n"
        "# g2 four smaller than listed (24x48x92 gives 2216); the mesh-based column matches in every row.\n",
        differ);
  else
    printf("# all 10 rows equal the paper's.\n");
  return 0;
}

/* ---- --dims N: local factorizations ---- */

/* The box spanned by world ranks [0, span) in a row-major grid `d` (what
 * sequential ranking puts on one hardware unit), or 0 if it is not a box. */
static int sequential_box(const int d[NDIMS], int span, int box[NDIMS]) {
  int lo[NDIMS], hi[NDIMS];
  for (int i = 0; i < NDIMS; ++i) lo[i] = 1 << 30, hi[i] = -1;
  for (int r = 0; r < span; ++r) {
    int rest = r;
    for (int i = NDIMS - 1; i >= 0; --i) {
      int c = rest % d[i];
      rest /= d[i];
      if (c < lo[i]) lo[i] = c;
      if (c > hi[i]) hi[i] = c;
    }
  }
  long long vol = 1;
  for (int i = 0; i < NDIMS; ++i) box[i] = hi[i] - lo[i] + 1, vol *= box[i];
  return vol == span;
}

static int dims_mode(int n, const long long ratio[NDIMS], const int* levels, int nlevels) {
  double w[NDIMS];
  if (MPIX_Weights_from_mesh(NDIMS, ratio, w) != MPI_SUCCESS) return 1;
  int d[NVAR][NDIMS] = {{0}};
  if (MPI_Dims_create(n, NDIMS, d[0]) != MPI_SUCCESS) return 1;
  if (MPIX_Dims_create_weighted(n, NDIMS, MPIX_WEIGHTS_EQUAL, d[1]) != MPI_SUCCESS) return 1;
  if (MPIX_Dims_create_weighted(n, NDIMS, w, d[2]) != MPI_SUCCESS) return 1;
  printf("# halo_bench --dims %d, mesh ratio %lld:%lld:%lld, mesh weights %g:%g:%g\n", n, ratio[0], ratio[1], ratio[2],
         w[0], w[1], w[2]);
  printf("%-44s %10s %14s\n", "# function", "dims", "sum(w_i*d_i)");
  const char* fn[NVAR] = {"MPI_Dims_create", "MPIX_Dims_create_weighted, MPIX_WEIGHTS_EQUAL",
                          "MPIX_Dims_create_weighted, mesh weights"};
  for (int v = 0; v < NVAR; ++v) {
    char b[48];
    dims_str(d[v], b, sizeof b);
    double s = 0;
    for (int i = 0; i < NDIMS; ++i) s += w[i] * d[v][i];
    printf("%-44s %10s %14g\n", fn[v], b, s);
  }
  if (nlevels <= 0) return 0;
  long long prod = 1;
  for (int l = 0; l < nlevels; ++l) prod *= levels[l];
  if (prod != n) {
    fprintf(stderr, "halo_bench: the levels multiply to %lld, not %d\n", prod, n);
    return 2;
  }
  /* Multi-level: per level factors (paper Table 1). (a): what sequential
   * ranking implies (the box one unit of each level holds, over the box of
   * the level below). */
  int* lv[NVAR];
  int md[NVAR][NDIMS] = {{0}};
  for (int v = 0; v < NVAR; ++v) lv[v] = calloc((size_t)nlevels * NDIMS, sizeof(int));
  int ok_a = 1, prev[NDIMS] = {0};
  long long below = n;
  for (int l = 0; l < nlevels; ++l) {
    int box[NDIMS];
    below /= levels[l];
    if (!sequential_box(d[0], (int)below, box)) ok_a = 0;
    for (int i = 0; i < NDIMS; ++i) {
      int upper = l == 0 ? d[0][i] : prev[i];
      lv[0][l * NDIMS + i] = box[i] ? upper / box[i] : 0;
      prev[i] = box[i];
    }
  }
  for (int i = 0; i < NDIMS; ++i) md[0][i] = d[0][i];
  if (MPIX_Dims_create_ml(nlevels, levels, NDIMS, MPIX_WEIGHTS_EQUAL, md[1], lv[1]) != MPI_SUCCESS) return 1;
  if (MPIX_Dims_create_ml(nlevels, levels, NDIMS, w, md[2], lv[2]) != MPI_SUCCESS) return 1;
  printf("# multi-level (MPIX_Dims_create_ml), levels");
  for (int l = 0; l < nlevels; ++l) printf(" %d", levels[l]);
  printf("; (a): implied by sequential ranks on MPI_Dims_create's grid%s\n",
         ok_a ? "" : " (NOT boxes: a level's ranks do not form a box)");
  printf("%-10s %22s %22s %22s\n", "# level", "Dims_create+Cart", "weighted equal", "weighted mesh");
  for (int l = 0; l < nlevels; ++l) {
    char b[NVAR][48];
    for (int v = 0; v < NVAR; ++v) dims_str(lv[v] + l * NDIMS, b[v], sizeof b[v]);
    printf("%-10d %22s %22s %22s\n", l, b[0], b[1], b[2]);
  }
  char b[NVAR][48];
  for (int v = 0; v < NVAR; ++v) dims_str(md[v], b[v], sizeof b[v]);
  printf("%-10s %22s %22s %22s\n", "implied", b[0], b[1], b[2]);
  for (int v = 0; v < NVAR; ++v) free(lv[v]);
  return 0;
}

/* ---- the benchmark ---- */

struct variant {
  MPI_Comm cart;
  int dims[NDIMS];
  int nb[NDIMS][2];       /* cart ranks: [i][0] coord-1, [i][1] coord+1 */
  int nb_world[NDIMS][2]; /* the same as world ranks */
};

static void fail(const char* what) {
  fprintf(stderr, "halo_bench (%s) rank %d: %s\n", LIBRARY, g_rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void make_variant(int v, const long long ratio[NDIMS], struct variant* out) {
  int periods[NDIMS] = {1, 1, 1};
  int rc;
  if (v == 0) {
    int d[NDIMS] = {0, 0, 0};
    MPI_Dims_create(g_size, NDIMS, d);
    rc = MPI_Cart_create(MPI_COMM_WORLD, NDIMS, d, periods, 0, &out->cart);
  } else if (v == 1) {
    rc = MPIX_Cart_create_weighted(MPI_COMM_WORLD, NDIMS, MPIX_WEIGHTS_EQUAL, periods, MPI_INFO_NULL, &out->cart);
  } else {
    double w[NDIMS];
    if (MPIX_Weights_from_mesh(NDIMS, ratio, w) != MPI_SUCCESS) fail("MPIX_Weights_from_mesh");
    rc = MPIX_Cart_create_weighted(MPI_COMM_WORLD, NDIMS, w, periods, MPI_INFO_NULL, &out->cart);
  }
  if (rc != MPI_SUCCESS || out->cart == MPI_COMM_NULL) fail("creating the Cartesian communicator");
  int per[NDIMS], coords[NDIMS];
  MPI_Cart_get(out->cart, NDIMS, out->dims, per, coords);
  MPI_Group wg, cg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Comm_group(out->cart, &cg);
  for (int i = 0; i < NDIMS; ++i) {
    MPI_Cart_shift(out->cart, i, 1, &out->nb[i][0], &out->nb[i][1]);
    MPI_Group_translate_ranks(cg, 2, out->nb[i], wg, out->nb_world[i]);
  }
  MPI_Group_free(&wg);
  MPI_Group_free(&cg);
}

/* The (simulated) node of every world rank, as the lowest world rank on it:
 * osmp's MPI_HW_DOMAIN_TYPE=Machine split (sees OSMP_SIM_*), else the MPI's
 * MPI_COMM_TYPE_SHARED. */
static void node_of_ranks(int* node) {
  MPI_Comm dup, nodecomm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, MPIX_HW_DOMAIN_TYPE_KEY, "Machine");
  int rc = MPIX_Comm_split_type(dup, MPIX_COMM_TYPE_HW_DOMAIN, g_rank, info, &nodecomm);
  MPI_Info_free(&info);
  int bad = rc != MPI_SUCCESS || nodecomm == MPI_COMM_NULL, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any) {
    if (nodecomm != MPI_COMM_NULL) MPI_Comm_free(&nodecomm);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &nodecomm);
  }
  int lowest = g_rank;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, nodecomm);
  MPI_Allgather(&lowest, 1, MPI_INT, node, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Comm_free(&nodecomm);
  MPI_Comm_free(&dup);
}

/* One exchange of 6 messages: per dimension Irecv x2, Send x2, Waitall(2),
 * then the dimension's send and receive buffers swap roles. buf[i][0..1]:
 * send to coord-1 / coord+1, buf[i][2..3]: receive from coord-1 / coord+1.
 * Tags keep the two directions apart when both neighbours are one process. */
static void exchange(const struct variant* v, float* buf[NDIMS][4], const long long e[NDIMS]) {
  for (int i = 0; i < NDIMS; ++i) {
    int n = (int)face(e, i);
    MPI_Request req[2];
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: MPICH's header trips gcc's -Wstringop-overflow */
    MPI_Irecv(buf[i][2], n, MPI_FLOAT, v->nb[i][0], 2 * i + 0, v->cart, &req[0]); /* moving up */
    MPI_Irecv(buf[i][3], n, MPI_FLOAT, v->nb[i][1], 2 * i + 1, v->cart, &req[1]); /* moving down */
    MPI_Send(buf[i][1], n, MPI_FLOAT, v->nb[i][1], 2 * i + 0, v->cart);
    MPI_Send(buf[i][0], n, MPI_FLOAT, v->nb[i][0], 2 * i + 1, v->cart);
    MPI_Waitall(2, req, st);
    float* t = buf[i][0];
    buf[i][0] = buf[i][2], buf[i][2] = t;
    t = buf[i][1];
    buf[i][1] = buf[i][3], buf[i][3] = t;
  }
}

/* First warm-up exchange: every send buffer starts with 8 * the sender's
 * cart rank + the message's tag; every receive must name the neighbour
 * Cart_shift gave and the direction it came from. */
static int checked_exchange(const struct variant* v, float* buf[NDIMS][4], const long long e[NDIMS]) {
  int me;
  MPI_Comm_rank(v->cart, &me);
  for (int i = 0; i < NDIMS; ++i) {
    buf[i][0][0] = (float)(8 * me + 2 * i + 1); /* to coord-1: moving down */
    buf[i][1][0] = (float)(8 * me + 2 * i + 0); /* to coord+1: moving up */
  }
  exchange(v, buf, e);
  int bad = 0;
  for (int i = 0; i < NDIMS; ++i) {
    /* After the swap the received data sit in the send slots. */
    if (buf[i][0][0] != (float)(8 * v->nb[i][0] + 2 * i + 0)) bad = 1;
    if (buf[i][1][0] != (float)(8 * v->nb[i][1] + 2 * i + 1)) bad = 1;
  }
  return bad;
}

static const char* env_or(const char* name, const char* dflt) {
  const char* v = getenv(name);
  return v && *v ? v : dflt;
}

static void library_version(char* out, size_t n) {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  v[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
  for (char* c = v; *c; ++c)
    if (*c == '\t') *c = ' ';
  size_t k = strcspn(v, "\n,");
  if (k >= n) k = n - 1;
  memcpy(out, v, k);
  out[k] = '\0';
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

struct result {
  long long g[NDIMS], halo, node_out;
  double tmax, tavg, tmin;
};

static int usage(void) {
  fprintf(stderr,
          "usage: halo_bench [-m A:B:C] [-b B] [-s STEPS] [-r REPS] [-t TRIALS] [-c FILE] [-l LABEL]\n"
          "       halo_bench --table2\n"
          "       halo_bench --dims N [-m A:B:C] [-L L0,L1,...]\n");
  return 2;
}

int main(int argc, char** argv) {
  long long ratio[NDIMS] = {1, 2, 4};
  long long base = 0;
  int steps = 7, reps = 50, trials = 1, dims_n = 0, want_table2 = 0, nlevels = 0;
  int levels[16];
  const char* csv = NULL;
  const char* label = LIBRARY;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = !strcmp(a, "-m") || !strcmp(a, "-b") || !strcmp(a, "-s") || !strcmp(a, "-r") || !strcmp(a, "-t") ||
                !strcmp(a, "-c") || !strcmp(a, "-l") || !strcmp(a, "--dims") || !strcmp(a, "-L");
    if (takes && !v) return usage();
    if (!strcmp(a, "--table2")) {
      want_table2 = 1;
    } else if (!strcmp(a, "-m")) {
      if (parse_ratio(v, ratio)) return usage();
      ++i;
    } else if (!strcmp(a, "-b")) {
      base = atoll(v), ++i;
    } else if (!strcmp(a, "-s")) {
      steps = atoi(v), ++i;
    } else if (!strcmp(a, "-r")) {
      reps = atoi(v), ++i;
    } else if (!strcmp(a, "-t")) {
      trials = atoi(v), ++i;
    } else if (!strcmp(a, "-c")) {
      csv = v, ++i;
    } else if (!strcmp(a, "-l")) {
      label = v, ++i;
    } else if (!strcmp(a, "--dims")) {
      dims_n = atoi(v), ++i;
      if (dims_n < 1) return usage();
    } else if (!strcmp(a, "-L")) {
      char* list = strdup(v);
      for (char* t = strtok(list, ","); t && nlevels < 16; t = strtok(NULL, ",")) levels[nlevels++] = atoi(t);
      free(list);
      ++i;
    } else {
      fprintf(stderr, "halo_bench: unknown option %s\n", a);
      return usage();
    }
  }
  if (want_table2) return table2();
  if (steps < 1 || reps < 1 || trials < 1) return usage();

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (dims_n) {
    int rc = g_rank == 0 ? dims_mode(dims_n, ratio, levels, nlevels) : 0;
    MPI_Finalize();
    return rc;
  }
  if (base < 1) { /* at least 8 points per process at the first size */
    long long pr = ratio[0] * ratio[1] * ratio[2];
    base = 1;
    while (base * base * base * pr < 8LL * g_size) ++base;
  }

  char version[256];
  library_version(version, sizeof version);
  int* node = malloc(sizeof(int) * (size_t)g_size);
  node_of_ranks(node);
  int nnodes = 0;
  for (int r = 0; r < g_size; ++r) nnodes += node[r] == r;

  struct variant var[NVAR];
  for (int v = 0; v < NVAR; ++v) make_variant(v, ratio, &var[v]);

  if (g_rank == 0) {
    printf("# halo_bench (%s): %d processes on %d node%s, %s\n", label, g_size, nnodes, nnodes == 1 ? "" : "s",
           version);
    printf("# OSMP_SIM_RANKS_PER_NODE=%s OSMP_SIM_NODES=%s OSMP_SIM_PLACES=%s OSMP_SIM_BIND=%s OSMP_TOPOLOGY=%s\n",
           env_or("OSMP_SIM_RANKS_PER_NODE", "-"), env_or("OSMP_SIM_NODES", "-"), env_or("OSMP_SIM_PLACES", "-"),
           env_or("OSMP_SIM_BIND", "-"), env_or("OSMP_TOPOLOGY", "-"));
    printf(
        "# mesh ratio %lld:%lld:%lld, first mesh %lld x ratio, x2 per dimension per step, %d steps; floats, "
        "halo width 1, periodic rings;\n# %d repetitions of 6 messages (+%d warm-up) per trial, %d trial%s "
        "(median); time: max over ranks of each rank's average; MB/s = halo bytes / time\n",
        ratio[0], ratio[1], ratio[2], base, steps, reps, reps / 10 < 2 ? 2 : reps / 10, trials,
        trials == 1 ? "" : "s, variants interleaved");
    for (int v = 0; v < NVAR; ++v) {
      char b[48];
      dims_str(var[v].dims, b, sizeof b);
      printf("# %-54s dims %s\n", kVarLong[v], b);
    }
    fflush(stdout);
  }

  FILE* out = NULL;
  if (csv && g_rank == 0) {
    out = fopen(csv, "a");
    if (!out) fail("cannot open the CSV file");
    fseek(out, 0, SEEK_END);
    if (ftell(out) == 0)
      fprintf(out,
              "library,procs,nodes,ranks_per_node,topology,variant,d0,d1,d2,g0,g1,g2,halo_bytes,"
              "node_out_bytes,reps,trials,time_us_max,time_us_avg,time_us_min,mb_per_s,saved_pct\n");
  }

  struct result* res = calloc((size_t)steps * NVAR, sizeof *res);
  double* trial_t = calloc((size_t)trials * 3, sizeof(double)); /* max, avg, min per trial */
  int warm = reps / 10 < 2 ? 2 : reps / 10;
  for (int s = 0; s < steps; ++s) {
    long long e[NVAR][NDIMS];
    float* buf[NVAR][NDIMS][4];
    for (int v = 0; v < NVAR; ++v) {
      struct result* r = &res[s * NVAR + v];
      for (int i = 0; i < NDIMS; ++i) r->g[i] = (ratio[i] * base) << s;
      extents(r->g, var[v].dims, e[v]);
      r->halo = halo_bytes(e[v]);
      /* Halo bytes this rank sends to another node; the busiest node's sum. */
      long long cross = 0;
      for (int i = 0; i < NDIMS; ++i)
        for (int k = 0; k < 2; ++k)
          if (node[var[v].nb_world[i][k]] != node[g_rank]) cross += 4 * face(e[v], i);
      long long* per_node = calloc((size_t)g_size, sizeof(long long));
      per_node[node[g_rank]] = cross;
      MPI_Allreduce(MPI_IN_PLACE, per_node, g_size, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      r->node_out = 0;
      for (int q = 0; q < g_size; ++q)
        if (per_node[q] > r->node_out) r->node_out = per_node[q];
      free(per_node);
      for (int i = 0; i < NDIMS; ++i)
        for (int k = 0; k < 4; ++k) {
          size_t n = (size_t)face(e[v], i);
          buf[v][i][k] = malloc(n * sizeof(float));
          if (!buf[v][i][k]) fail("out of memory");
          memset(buf[v][i][k], 0, n * sizeof(float));
        }
      int bad = checked_exchange(&var[v], buf[v], e[v]), anybad = 0;
      MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (anybad) fail("a halo came from the wrong neighbour");
    }
    /* Trials interleave the variants, so that drift hits all of them alike;
     * each variant's figures are its median trial's. */
    double* tt[NVAR];
    for (int v = 0; v < NVAR; ++v) tt[v] = calloc((size_t)trials * 3, sizeof(double));
    for (int t = 0; t < trials; ++t)
      for (int v = 0; v < NVAR; ++v) {
        for (int w = 1; w < warm; ++w) exchange(&var[v], buf[v], e[v]);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < reps; ++it) exchange(&var[v], buf[v], e[v]);
        double mine = (MPI_Wtime() - t0) * 1e6 / reps;
        double* o = tt[v] + 3 * t;
        MPI_Reduce(&mine, &o[0], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine, &o[1], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine, &o[2], 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        o[1] /= g_size;
      }
    for (int v = 0; v < NVAR; ++v) {
      struct result* r = &res[s * NVAR + v];
      if (g_rank == 0) {
        /* the median trial by max-over-ranks time (lower median) */
        for (int t = 0; t < trials; ++t) trial_t[t] = tt[v][3 * t];
        qsort(trial_t, (size_t)trials, sizeof(double), cmp_double);
        double med = trial_t[(trials - 1) / 2];
        for (int t = 0; t < trials; ++t)
          if (tt[v][3 * t] == med) {
            r->tmax = tt[v][3 * t], r->tavg = tt[v][3 * t + 1], r->tmin = tt[v][3 * t + 2];
            break;
          }
      }
      free(tt[v]);
      for (int i = 0; i < NDIMS; ++i)
        for (int k = 0; k < 4; ++k) free(buf[v][i][k]);
      if (g_rank == 0 && out) {
        double saved = 100.0 * (res[s * NVAR].tmax - r->tmax) / res[s * NVAR].tmax;
        fprintf(out, "%s,%d,%d,%s,%s,%s,%d,%d,%d,%lld,%lld,%lld,%lld,%lld,%d,%d,%.3f,%.3f,%.3f,%.3f,%.1f\n", label,
                g_size, nnodes, env_or("OSMP_SIM_RANKS_PER_NODE", ""), env_or("OSMP_TOPOLOGY", ""), kVarShort[v],
                var[v].dims[0], var[v].dims[1], var[v].dims[2], r->g[0], r->g[1], r->g[2], r->halo, r->node_out, reps,
                trials, r->tmax, r->tavg, r->tmin, (double)r->halo / r->tmax, saved);
        fflush(out);
      }
    }
  }
  free(trial_t);

  if (g_rank == 0) {
    /* Table 3: time per exchange, (saved against (a)), bandwidth. */
    printf("#\n# time per exchange of 6 messages in us, (saved against (a)), MB/s; halo bytes per process\n");
    printf("%-20s|%10s %10s %9s |%10s %10s %9s %9s |%10s %10s %9s %9s |\n", "# mesh", "(a) halo", "time us", "MB/s",
           "(b) halo", "time us", "(saved)", "MB/s", "(c) halo", "time us", "(saved)", "MB/s");
    for (int s = 0; s < steps; ++s) {
      const struct result* r = &res[s * NVAR];
      char m[64];
      snprintf(m, sizeof m, "%lld x %lld x %lld", r[0].g[0], r[0].g[1], r[0].g[2]);
      printf("%-20s|%10lld %10.3f %9.2f |", m, r[0].halo, r[0].tmax, (double)r[0].halo / r[0].tmax);
      for (int v = 1; v < NVAR; ++v) {
        char pct[24];
        snprintf(pct, sizeof pct, "(%.1f%%)", 100.0 * (r[0].tmax - r[v].tmax) / r[0].tmax);
        printf("%10lld %10.3f %9s %9.2f |", r[v].halo, r[v].tmax, pct, (double)r[v].halo / r[v].tmax);
      }
      printf("\n");
    }
    printf("#\n# halo bytes leaving the busiest node per exchange (reduction against (a))\n");
    printf("%-20s|%12s |%12s %9s |%12s %9s |\n", "# mesh", "(a) bytes", "(b) bytes", "(red.)", "(c) bytes", "(red.)");
    for (int s = 0; s < steps; ++s) {
      const struct result* r = &res[s * NVAR];
      char m[64];
      snprintf(m, sizeof m, "%lld x %lld x %lld", r[0].g[0], r[0].g[1], r[0].g[2]);
      printf("%-20s|%12lld |", m, r[0].node_out);
      for (int v = 1; v < NVAR; ++v) {
        char pct[24];
        if (r[0].node_out > 0)
          snprintf(pct, sizeof pct, "(%.1f%%)",
                   100.0 * (double)(r[0].node_out - r[v].node_out) / (double)r[0].node_out);
        else
          snprintf(pct, sizeof pct, "(-)");
        printf("%12lld %9s |", r[v].node_out, pct);
      }
      printf("\n");
    }
    fflush(stdout);
  }
  if (out) fclose(out);
  free(res);
  for (int v = 0; v < NVAR; ++v) MPI_Comm_free(&var[v].cart);
  free(node);
  MPI_Finalize();
  return 0;
}
