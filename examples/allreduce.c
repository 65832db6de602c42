/* allreduce.c: the C interface in one page. Run: osmprun -n 4 ./allreduce_c */
#include <osmp.h>
#include <stdio.h>

int main(void) {
  osmp_team* team;
  if (osmp_init(&team) != OSMP_SUCCESS) return 1; /* osmp_init printed why */
  int rank = osmp_rank(team), size = osmp_size(team);
  double x = rank, sum = 0;
  int rc = osmp_allreduce(team, &x, &sum, 1, OSMP_FLOAT64, OSMP_SUM);
  if (rc != OSMP_SUCCESS) {
    fprintf(stderr, "rank %d: %s: %s\n", rank, osmp_strerror(rc), osmp_last_error(team));
    osmp_finalize(team);
    return 1;
  }
  int64_t v[4] = {rank, rank, rank, rank};
  rc = osmp_bcast(team, v, 4, OSMP_INT64, size - 1); /* the last rank's values */
  if (rc == OSMP_SUCCESS && rank == 0)
    printf("sum of ranks 0..%d = %g; bcast from rank %d gave %lld\n", size - 1, sum, size - 1, (long long)v[0]);
  osmp_finalize(team);
  return rc == OSMP_SUCCESS ? 0 : 1;
}
