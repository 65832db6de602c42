/* hsplit_walk.c: walk down the hardware hierarchy with MPIX_Comm_split_type
 * and print every rank's path. Run:
 *   mpirun -np 8 --bind-to core ./hsplit_walk
 * or, on simulated nodes (see docs/mpi.md):
 *   OSMP_SIM_RANKS_PER_NODE=8 OSMP_TOPOLOGY=rome mpirun -np 16 ./hsplit_walk */
#include <osmp_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 512

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char line[LINE];
  int used = snprintf(line, LINE, "rank %3d: world(%d)", world, size);
  MPI_Comm comm = MPI_COMM_WORLD;
  for (;;) {
    int rank;
    MPI_Comm below;
    MPI_Comm_rank(comm, &rank);
    MPIX_Comm_split_type(comm, MPIX_COMM_TYPE_HW_DOMAIN, rank, MPI_INFO_NULL, &below);
    if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
    if (below == MPI_COMM_NULL) break;
    int parts, index, n;
    char* type;
    MPIX_Get_hw_domain_info(below, &parts, &index, &type, MPI_INFO_NULL);
    MPI_Comm_size(below, &n);
    if (used < LINE) used += snprintf(line + used, LINE - used, " > %s %d/%d (%d)", type, index, parts, n);
    comm = below;
  }
  char* all = world == 0 ? malloc((size_t)size * LINE) : NULL;
  MPI_Gather(line, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (world == 0) {
    int levels;
    MPI_Info info;
    MPI_Info_create(&info);
    MPIX_Get_hw_topology_info(&levels, info);
    printf("levels of this node:");
    for (int l = 0; l < levels; ++l) {
      char key[32], value[MPI_MAX_INFO_VAL];
      int flag;
      snprintf(key, sizeof key, "MPI_HW_LEVEL%d", l);
      MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, value, &flag);
      printf(" %s", value);
    }
    printf("\n");
    for (int r = 0; r < size; ++r) printf("%s\n", all + (size_t)r * LINE);
    MPI_Info_free(&info);
    free(all);
  }
  MPI_Finalize();
  return 0;
}
