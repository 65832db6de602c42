/* The virtual hierarchy changed through an MPI_Info hint on a communicator,
 * under the PMPI interposer or the Open MPI component (label mpi):
 *
 *   vh_info_test interposer|component
 *
 * osmp_vh and osmp_vh_<op> through MPI_Comm_set_info and at creation
 * (MPI_Comm_dup_with_info); MPI_Comm_get_info reports the spec in effect;
 * collectives stay right before and after; ranks asking for different specs,
 * or a spec naming no level of the machine, change nothing and (interposer)
 * get an error on every rank; the same for the osmp_check hint. Prints
 * "vh N ranks: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

#define CHECK(cond, ...)                                \
  do {                                                  \
    if (!(cond)) {                                      \
      printf("FAIL rank %d line %d: ", rank, __LINE__); \
      printf(__VA_ARGS__);                              \
      printf("\n");                                     \
      ++failures;                                       \
    }                                                   \
  } while (0)

/* Every collective osmp runs, checked element by element. */
static void collectives(MPI_Comm comm, int round) {
  int n = 1000 + round;
  long long* in = malloc(sizeof(long long) * (size_t)n * (size_t)size);
  long long* out = malloc(sizeof(long long) * (size_t)n * (size_t)size);
  for (int i = 0; i < n; ++i) in[i] = (long long)rank * 1000003 + i + round;
  MPI_Allreduce(in, out, n, MPI_LONG_LONG, MPI_SUM, comm);
  for (int i = 0; i < n; i += 97) {
    long long want = 0;
    for (int r = 0; r < size; ++r) want += (long long)r * 1000003 + i + round;
    CHECK(out[i] == want, "allreduce[%d] = %lld, expected %lld", i, out[i], want);
  }
  int root = round % size;
  MPI_Reduce(in, out, n, MPI_LONG_LONG, MPI_MAX, root, comm);
  if (rank == root) CHECK(out[5] == (long long)(size - 1) * 1000003 + 5 + round, "reduce max %lld", out[5]);
  for (int i = 0; i < n; ++i) out[i] = rank == root ? i * 3 + round : -1;
  MPI_Bcast(out, n, MPI_LONG_LONG, root, comm);
  CHECK(out[n - 1] == (n - 1) * 3 + round, "bcast got %lld", out[n - 1]);
  MPI_Allgather(in, n, MPI_LONG_LONG, out, n, MPI_LONG_LONG, comm);
  for (int r = 0; r < size; ++r)
    CHECK(out[(size_t)r * (size_t)n + 7] == (long long)r * 1000003 + 7 + round, "allgather");
  MPI_Barrier(comm);
  free(in);
  free(out);
}

/* The value of `key` in comm's info, "" when absent. */
static const char* info_value(MPI_Comm comm, const char* key) {
  static char value[MPI_MAX_INFO_VAL + 1];
  MPI_Info info;
  int flag = 0;
  value[0] = 0;
  MPI_Comm_get_info(comm, &info);
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  MPI_Info_free(&info);
  if (!flag) value[0] = 0;
  return value;
}

static int set_hint(MPI_Comm comm, const char* key, const char* value) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, key, value);
  int rc = MPI_Comm_set_info(comm, info);
  MPI_Info_free(&info);
  return rc;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int interposer = argc > 1 && strcmp(argv[1], "interposer") == 0;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  collectives(comm, 0);

  /* Every operation, then one. */
  CHECK(set_hint(comm, "osmp_vh", "?2") == MPI_SUCCESS, "set osmp_vh ?2");
  CHECK(strcmp(info_value(comm, "osmp_vh"), "?2") == 0, "osmp_vh reads '%s'", info_value(comm, "osmp_vh"));
  collectives(comm, 1);
  CHECK(set_hint(comm, "osmp_vh_reduce", "?3") == MPI_SUCCESS, "set osmp_vh_reduce ?3");
  CHECK(strcmp(info_value(comm, "osmp_vh_reduce"), "?3") == 0, "osmp_vh_reduce reads '%s'",
        info_value(comm, "osmp_vh_reduce"));
  collectives(comm, 2);

  /* Different values on different ranks: refused everywhere, nothing changes. */
  /* The interposer reports the spec in effect; Open MPI leaves a hint its
   * component refused out of MPI_Comm_get_info. */
  const char* kept = interposer ? "?2" : "";
  int rc = set_hint(comm, "osmp_vh", rank == 0 ? "auto" : "?3");
  if (interposer) CHECK(rc != MPI_SUCCESS, "a mismatch was accepted");
  CHECK(strcmp(info_value(comm, "osmp_vh"), kept) == 0, "after a mismatch osmp_vh reads '%s'",
        info_value(comm, "osmp_vh"));
  collectives(comm, 3);
  /* A level this machine lacks. */
  rc = set_hint(comm, "osmp_vh", "Frob:2");
  if (interposer) {
    int cls = 0;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_VALUE, "Frob:2 gave error class %d", cls);
  }
  CHECK(strcmp(info_value(comm, "osmp_vh"), kept) == 0, "after Frob:2 osmp_vh reads '%s'", info_value(comm, "osmp_vh"));
  collectives(comm, 4);
  /* osmp_check: different values, or one that is no mode, are refused on
   * every rank (none waits for the others), on one node and across nodes;
   * the same value everywhere is taken (across nodes it says whether the
   * leaders agree first). */
  rc = set_hint(comm, "osmp_check", rank == 0 ? "lazy" : "strict");
  if (interposer) CHECK(rc != MPI_SUCCESS, "osmp_check: a mismatch was accepted");
  collectives(comm, 8);
  rc = set_hint(comm, "osmp_check", "sometimes");
  if (interposer) CHECK(rc != MPI_SUCCESS, "osmp_check: 'sometimes' was accepted");
  collectives(comm, 9);
  CHECK(set_hint(comm, "osmp_check", "strict") == MPI_SUCCESS, "set osmp_check strict");
  collectives(comm, 10);
  CHECK(set_hint(comm, "osmp_check", "lazy") == MPI_SUCCESS, "set osmp_check lazy");
  collectives(comm, 11);
  CHECK(set_hint(comm, "osmp_vh", "none") == MPI_SUCCESS, "set osmp_vh none");
  CHECK(strcmp(info_value(comm, "osmp_vh"), "none") == 0, "osmp_vh reads '%s'", info_value(comm, "osmp_vh"));
  /* On a communicator split by hardware type, with the hint given there. */
  MPI_Info split_info;
  MPI_Info_create(&split_info);
  MPI_Info_set(split_info, "osmp_vh", "?3");
  MPI_Comm shared;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, split_info, &shared);
  MPI_Info_free(&split_info);
  MPI_Barrier(shared);
  int shared_size = 0;
  MPI_Comm_size(shared, &shared_size);
  if (shared_size > 1)
    CHECK(strcmp(info_value(shared, "osmp_vh"), "?3") == 0, "split_type: osmp_vh reads '%s'",
          info_value(shared, "osmp_vh"));
  MPI_Comm_free(&shared);
  collectives(comm, 5);

  /* Given at creation. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "osmp_vh", "?2");
  MPI_Comm dup;
  MPI_Comm_dup_with_info(comm, info, &dup);
  MPI_Info_free(&info);
  collectives(dup, 6);
  CHECK(strcmp(info_value(dup, "osmp_vh"), "?2") == 0, "dup_with_info: osmp_vh reads '%s'", info_value(dup, "osmp_vh"));
  MPI_Comm_free(&dup);
  /* Set before the communicator's first collective. */
  MPI_Comm fresh;
  MPI_Comm_dup(comm, &fresh);
  CHECK(set_hint(fresh, "osmp_vh", "?3") == MPI_SUCCESS, "set osmp_vh ?3 before any collective");
  collectives(fresh, 7);
  CHECK(strcmp(info_value(fresh, "osmp_vh"), "?3") == 0, "set before use: osmp_vh reads '%s'",
        info_value(fresh, "osmp_vh"));
  MPI_Comm_free(&fresh);
  MPI_Comm_free(&comm);

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("vh %d ranks: ok\n", size);
  MPI_Finalize();
  return all ? 1 : 0;
}
