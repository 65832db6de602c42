/* comm_bench: what a new communicator costs, as an application meets it.
 *
 * Built against Open MPI (comm_bench_ompi) and MPICH (comm_bench_mpich);
 * scripts/comm_bench.sh runs each without osmp, with the interposer and,
 * under Open MPI, with the coll/osmp component, in one run.
 *
 * Per communicator: its creation (MPI_Comm_dup of the world, or
 * MPI_Comm_split into two colors, even and odd ranks), one 8-byte
 * MPI_Allreduce on it (the first collective, which gives osmp's state its
 * team) and, in the default mode, its MPI_Comm_free. --alive keeps every
 * communicator until the end (then frees them all, the free timed too), as
 * libraries that dup the world at start do, and checks the allreduce's
 * result on every one of them. Output: milliseconds per communicator,
 * the slowest rank's (max over ranks), best of --reps runs.
 *
 * usage: comm_bench [-o dup|split] [-n COMMS] [-r REPS] [--alive]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LIBRARY /* given by the build (bench/CMakeLists.txt): "ompi", "mpich" */
#define LIBRARY "mpi"
#endif

static int g_rank, g_size;

static void fail(const char* what) {
  fprintf(stderr, "comm_bench: rank %d: %s\n", g_rank, what);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static MPI_Comm create(int split) {
  MPI_Comm c = MPI_COMM_NULL;
  int rc = split ? MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &c) : MPI_Comm_dup(MPI_COMM_WORLD, &c);
  if (rc != MPI_SUCCESS || c == MPI_COMM_NULL) fail(split ? "MPI_Comm_split failed" : "MPI_Comm_dup failed");
  return c;
}

/* The 8-byte allreduce on c: the sum of c's ranks plus one, checked. */
static void first_call(MPI_Comm c) {
  int n = 0, r = 0;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &r);
  long long mine = r + 1, sum = 0;
  if (MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, c) != MPI_SUCCESS) fail("MPI_Allreduce failed");
  if (sum != (long long)n * (n + 1) / 2) {
    char text[128];
    snprintf(text, sizeof text, "allreduce gave %lld, not %lld", sum, (long long)n * (n + 1) / 2);
    fail(text);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int split = 0, alive = 0, comms = 100, reps = 3;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      const char* v = argv[++i];
      if (!strcmp(v, "split")) {
        split = 1;
      } else if (strcmp(v, "dup")) {
        fail("-o takes dup or split");
      }
    } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
      comms = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--alive")) {
      alive = 1;
    } else {
      if (g_rank == 0) fprintf(stderr, "usage: %s [-o dup|split] [-n COMMS] [-r REPS] [--alive]\n", argv[0]);
      MPI_Finalize();
      return strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  if (comms < 1 || reps < 1) fail("-n and -r take a positive count");
  MPI_Comm* all = malloc(sizeof(MPI_Comm) * (size_t)comms);
  if (!all) fail("out of memory");
  double best = -1;
  for (int rep = 0; rep < reps; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < comms; ++i) {
      all[i] = create(split);
      first_call(all[i]);
      if (!alive) MPI_Comm_free(&all[i]);
    }
    if (alive) {
      for (int i = 0; i < comms; ++i) first_call(all[i]); /* all alive: each still works */
      for (int i = 0; i < comms; ++i) MPI_Comm_free(&all[i]);
    }
    double mine = (MPI_Wtime() - t0) * 1e3 / comms, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (best < 0 || slowest < best) best = slowest;
  }
  if (g_rank == 0)
    printf("# %s %s, %d ranks, %d communicators%s: ms per communicator (best of %d)\n%.4f\n", LIBRARY,
           split ? "split" : "dup", g_size, comms, alive ? " alive at once" : "", reps, best);
  free(all);
  MPI_Finalize();
  return 0;
}
