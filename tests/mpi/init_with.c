/* osmp_init_with over a caller's own bootstrap, here MPI (label mpi): the
 * node's processes build an osmp team through MPI_Allgather and MPI_Bcast
 * callbacks, run collectives through the C API, change the virtual hierarchy,
 * and finalize. Checks every element; prints "init_with N ranks: ok".
 *
 *   init_with [TAG]     TAG is ignored (tests find their processes by it) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "osmp.h"

static int rank, failures;

static int allgather(const void* in, size_t len, void* out, void* ctx) {
  MPI_Comm comm = *(MPI_Comm*)ctx;
  if (len == 0) return MPI_Barrier(comm);
  return MPI_Allgather(in, (int)len, MPI_BYTE, out, (int)len, MPI_BYTE, comm);
}

static int bcast(void* buf, size_t len, int root, void* ctx) {
  return MPI_Bcast(buf, (int)len, MPI_BYTE, root, *(MPI_Comm*)ctx);
}

static void check(int rc, osmp_team* t, const char* what) {
  if (rc != OSMP_SUCCESS) {
    printf("rank %d: error: %s: %s\n", rank, what, osmp_last_error(t));
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

static void collectives(osmp_team* t, int size, int round) {
  enum { n = 4099 };
  static double in[n], out[n];
  for (int i = 0; i < n; ++i) in[i] = rank + i + round;
  check(osmp_allreduce(t, in, out, n, OSMP_FLOAT64, OSMP_SUM), t, "allreduce");
  for (int i = 0; i < n; i += 101) {
    double want = (double)size * (i + round) + size * (size - 1) / 2.0;
    if (out[i] != want) {
      printf("FAIL rank %d: allreduce[%d] = %g, expected %g\n", rank, i, out[i], want);
      ++failures;
    }
  }
  long v = rank == round % size ? 42 + round : -1;
  check(osmp_bcast(t, &v, 1, OSMP_INT64, round % size), t, "bcast");
  if (v != 42 + round) {
    printf("FAIL rank %d: bcast gave %ld\n", rank, v);
    ++failures;
  }
  check(osmp_barrier(t), t, "barrier");
}

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  MPI_Init(&argc, &argv);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int size;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &size);
  printf("pid %d %d\n", rank, (int)getpid());
  fflush(stdout);
  osmp_team* t = NULL;
  char err[512];
  if (osmp_init_with(rank, size, allgather, bcast, &node, &t, err, sizeof err) != OSMP_SUCCESS) {
    printf("rank %d: error: %s\n", rank, err);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  for (int round = 0; round < 20; ++round) collectives(t, size, round);
  check(osmp_set_vh(t, OSMP_COLL_ALL, "?2"), t, "set_vh");
  for (int round = 20; round < 40; ++round) collectives(t, size, round);
  check(osmp_finalize(t), NULL, "finalize");
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("init_with %d ranks: ok\n", size);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return all ? 1 : 0;
}
