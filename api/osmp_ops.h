/* osmp: the collective operations, one row each.
 *
 * This table is the one list of osmp's operations: the C enum osmp_coll and
 * the C++ osmp::OpKind, the names ("reduce_scatter_block"), the per-operation
 * variables (OSMP_VH_<NAME>, OSMP_BASE_CASE_<NAME>, ...), the MPI info keys
 * (osmp_vh_<key>), the PMPI interposer's and the Open MPI component's tables
 * and the cost model's list all come from it. Adding an operation starts
 * here (CONTRIBUTING.md).
 *
 * X(name, Name, NAME, key, rooted, reduces, form):
 *   name     as every interface spells it: osmp_<name>, Team::<name>, MPI_I<name>
 *   Name     MPI's blocking call: MPI_<Name>
 *   NAME     in capitals: OSMP_COLL_<NAME>, OSMP_VH_<NAME>
 *   key      the MPI info key is osmp_vh_<key> (Open MPI passes components
 *            keys under 28 characters)
 *   rooted   1 when the call takes a root
 *   reduces  1 when it takes a reduction op
 *   form     its arguments, from which every entry point is generated
 *            (osmp_<name>, osmp_i<name>, Team::<name>, Team::i<name>,
 *            MPI_<Name>, MPI_I<name>, coll/osmp's functions); each
 *            interface spells each form once, beside its entries (api/capi.cpp,
 *            api/team.cpp, mpi_glue/pmpi/entries.h). Then the op where
 *            `reduces`, the root where `rooted`:
 *     none       no buffer (barrier)
 *     buffer     one buffer, the root's input and the others' output:
 *                buf, count, type
 *     uniform    a send and a receive buffer of `count` elements per block:
 *                send, recv, count, type (MPI: a count and a type on each
 *                side, or one of each where it reduces)
 *     gathered   each rank's own block into the blocks at displs:
 *                send, count, recv, counts, displs, type
 *     scattered  the blocks at displs out to each rank's own block:
 *                send, counts, displs, recv, count, type
 *     shares     each rank's share counts[r] of the input: send, recv, counts, type
 *     pairs      both sides' blocks on every rank: send, send_counts,
 *                send_displs, recv, recv_counts, recv_displs, type
 *
 * Self-contained C (and C++); include it anywhere.
 */
#ifndef OSMP_OPS_H
#define OSMP_OPS_H

#define OSMP_COLLECTIVES(X)                                                                          \
  X(barrier, Barrier, BARRIER, barrier, 0, 0, none)                                                  \
  X(bcast, Bcast, BCAST, bcast, 1, 0, buffer)                                                        \
  X(reduce, Reduce, REDUCE, reduce, 1, 1, uniform)                                                   \
  X(allreduce, Allreduce, ALLREDUCE, allreduce, 0, 1, uniform)                                       \
  X(gather, Gather, GATHER, gather, 1, 0, uniform)                                                   \
  X(allgather, Allgather, ALLGATHER, allgather, 0, 0, uniform)                                       \
  X(scatter, Scatter, SCATTER, scatter, 1, 0, uniform)                                               \
  X(reduce_scatter_block, Reduce_scatter_block, REDUCE_SCATTER_BLOCK, reduce_scatter, 0, 1, uniform) \
  X(alltoall, Alltoall, ALLTOALL, alltoall, 0, 0, uniform)                                           \
  X(scan, Scan, SCAN, scan, 0, 1, uniform)                                                           \
  X(exscan, Exscan, EXSCAN, exscan, 0, 1, uniform)                                                   \
  X(gatherv, Gatherv, GATHERV, gatherv, 1, 0, gathered)                                              \
  X(allgatherv, Allgatherv, ALLGATHERV, allgatherv, 0, 0, gathered)                                  \
  X(scatterv, Scatterv, SCATTERV, scatterv, 1, 0, scattered)                                         \
  X(alltoallv, Alltoallv, ALLTOALLV, alltoallv, 0, 0, pairs)                                         \
  X(reduce_scatter, Reduce_scatter, REDUCE_SCATTER, reduce_scatter_v, 0, 1, shares)

/* Runtime tuning names one operation, or OSMP_COLL_ALL for every one
 * (osmp_set_vh, osmp_set): OSMP_COLL_BARRIER = 1, OSMP_COLL_BCAST, ... in
 * the table's order; OSMP_COLL_COUNT operations. */
#define OSMP_COLL_ENUMERATOR_(name, Name, NAME, key, rooted, reduces, form) , OSMP_COLL_##NAME
typedef enum { OSMP_COLL_ALL = 0 OSMP_COLLECTIVES(OSMP_COLL_ENUMERATOR_) } osmp_coll;
#undef OSMP_COLL_ENUMERATOR_
/* NOLINTNEXTLINE(bugprone-macro-parentheses): a term of OSMP_COLL_COUNT's sum */
#define OSMP_COLL_ONE_(name, Name, NAME, key, rooted, reduces, form) +1
#define OSMP_COLL_COUNT (0 OSMP_COLLECTIVES(OSMP_COLL_ONE_))

/* OSMP_IF_<flag>(...): its arguments where a row's flag (rooted, reduces)
 * is 1, nothing where it is 0; OSMP_IF_ELSE_<flag>(yes, no) picks one. */
#define OSMP_IF_0(...)
#define OSMP_IF_1(...) __VA_ARGS__
#define OSMP_IF_ELSE_0(yes, no) no
#define OSMP_IF_ELSE_1(yes, no) yes

#endif /* OSMP_OPS_H */
