/* osmp: the collective operations, one row each.
 *
 * This table is the one list of osmp's operations: the C enum osmp_coll and
 * the C++ osmp::OpKind, the names ("reduce_scatter_block"), the per-operation
 * variables (OSMP_VH_<NAME>, OSMP_BASE_CASE_<NAME>, ...), the MPI info keys
 * (osmp_vh_<key>), the PMPI interposer's and the Open MPI component's tables
 * and the cost model's list all come from it. Adding an operation starts
 * here (CONTRIBUTING.md).
 *
 * X(name, NAME, key, rooted, reduces):
 *   name     as every interface spells it: osmp_<name>, Team::<name>, MPI_<Name>
 *   NAME     the same in capitals: OSMP_COLL_<NAME>, OSMP_VH_<NAME>
 *   key      the MPI info key is osmp_vh_<key> (Open MPI passes components
 *            keys under 28 characters)
 *   rooted   1 when the call takes a root
 *   reduces  1 when it takes a reduction op
 *
 * Self-contained C (and C++); include it anywhere.
 */
#ifndef OSMP_OPS_H
#define OSMP_OPS_H

#define OSMP_COLLECTIVES(X)                                           \
  X(barrier, BARRIER, barrier, 0, 0)                                  \
  X(bcast, BCAST, bcast, 1, 0)                                        \
  X(reduce, REDUCE, reduce, 1, 1)                                     \
  X(allreduce, ALLREDUCE, allreduce, 0, 1)                            \
  X(gather, GATHER, gather, 1, 0)                                     \
  X(allgather, ALLGATHER, allgather, 0, 0)                            \
  X(scatter, SCATTER, scatter, 1, 0)                                  \
  X(reduce_scatter_block, REDUCE_SCATTER_BLOCK, reduce_scatter, 0, 1) \
  X(alltoall, ALLTOALL, alltoall, 0, 0)                               \
  X(scan, SCAN, scan, 0, 1)                                           \
  X(exscan, EXSCAN, exscan, 0, 1)                                     \
  X(gatherv, GATHERV, gatherv, 1, 0)                                  \
  X(allgatherv, ALLGATHERV, allgatherv, 0, 0)                         \
  X(scatterv, SCATTERV, scatterv, 1, 0)                               \
  X(alltoallv, ALLTOALLV, alltoallv, 0, 0)                            \
  X(reduce_scatter, REDUCE_SCATTER, reduce_scatter_v, 0, 1)

/* Runtime tuning names one operation, or OSMP_COLL_ALL for every one
 * (osmp_set_vh, osmp_set): OSMP_COLL_BARRIER = 1, OSMP_COLL_BCAST, ... in
 * the table's order; OSMP_COLL_COUNT operations. */
#define OSMP_COLL_ENUMERATOR_(name, NAME, key, rooted, reduces) , OSMP_COLL_##NAME
typedef enum { OSMP_COLL_ALL = 0 OSMP_COLLECTIVES(OSMP_COLL_ENUMERATOR_) } osmp_coll;
#undef OSMP_COLL_ENUMERATOR_
/* NOLINTNEXTLINE(bugprone-macro-parentheses): a term of OSMP_COLL_COUNT's sum */
#define OSMP_COLL_ONE_(name, NAME, key, rooted, reduces) +1
#define OSMP_COLL_COUNT (0 OSMP_COLLECTIVES(OSMP_COLL_ONE_))

#endif /* OSMP_OPS_H */
