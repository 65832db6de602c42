/* The MPI collectives' signatures, one per form of osmp_ops.h: every MPI
 * collective entry point osmp has is generated from the table's row with
 * these (logic.h's osmp_pmpi_<name>, osmp_pmpi_i<name> and the MPI's own
 * calls, interpose.cpp's MPI_<Name> and MPI_I<name>, coll/osmp's functions).
 *
 * OSMP_MPI_PARAMS(form, rooted, reduces): the parameters, in the order and
 * of the types of MPI's standard (and mpi.h), from the buffers to the
 * communicator; the non-blocking forms add `MPI_Request* req`.
 * OSMP_MPI_ARGS(...): the same names, to pass them on. Each form's buffers
 * and counts (OSMP_MPI_HEAD_<form>, OSMP_MPI_PASS_<form>, each ending in a
 * comma, or empty), then the op where it reduces, the root where it is
 * rooted, the communicator. Open MPI's coll module types are MPI's
 * (MPI_Comm is struct ompi_communicator_t*, ...), so coll/osmp uses these
 * too. */
#ifndef OSMP_PMPI_ENTRIES_H
#define OSMP_PMPI_ENTRIES_H

#include <mpi.h>

#include "osmp_ops.h"

#define OSMP_MPI_HEAD_none(reduces)
#define OSMP_MPI_PASS_none(reduces)
#define OSMP_MPI_HEAD_buffer(reduces) void *buf, int count, MPI_Datatype t,
#define OSMP_MPI_PASS_buffer(reduces) buf, count, t,
/* Reductions take one count and type; the others one on each side. */
#define OSMP_MPI_HEAD_uniform(reduces) OSMP_MPI_UNIFORM_HEAD_##reduces
#define OSMP_MPI_PASS_uniform(reduces) OSMP_MPI_UNIFORM_PASS_##reduces
#define OSMP_MPI_UNIFORM_HEAD_1 const void *s, void *r, int count, MPI_Datatype t,
#define OSMP_MPI_UNIFORM_PASS_1 s, r, count, t,
#define OSMP_MPI_UNIFORM_HEAD_0 const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
#define OSMP_MPI_UNIFORM_PASS_0 s, sc, st, r, rc, rt,
#define OSMP_MPI_HEAD_gathered(reduces) \
  const void *s, int sc, MPI_Datatype st, void *r, const int *rc, const int *d, MPI_Datatype rt,
#define OSMP_MPI_PASS_gathered(reduces) s, sc, st, r, rc, d, rt,
#define OSMP_MPI_HEAD_scattered(reduces) \
  const void *s, const int *sc, const int *d, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
#define OSMP_MPI_PASS_scattered(reduces) s, sc, d, st, r, rc, rt,
#define OSMP_MPI_HEAD_shares(reduces) const void *s, void *r, const int *rc, MPI_Datatype t,
#define OSMP_MPI_PASS_shares(reduces) s, r, rc, t,
#define OSMP_MPI_HEAD_pairs(reduces) \
  const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r, const int *rc, const int *rd, MPI_Datatype rt,
#define OSMP_MPI_PASS_pairs(reduces) s, sc, sd, st, r, rc, rd, rt,

#define OSMP_MPI_PARAMS(form, rooted, reduces) \
  OSMP_MPI_HEAD_##form(reduces) OSMP_IF_##reduces(MPI_Op op, ) OSMP_IF_##rooted(int root, ) MPI_Comm comm
#define OSMP_MPI_ARGS(form, rooted, reduces) \
  OSMP_MPI_PASS_##form(reduces) OSMP_IF_##reduces(op, ) OSMP_IF_##rooted(root, ) comm

#endif /* OSMP_PMPI_ENTRIES_H */
