/* osmp_mpi.h: MPI communicators that follow the hardware (libosmp_mpi).
 *
 * Built against Open MPI (libosmp_mpi) and MPICH (libosmp_mpi_mpich) from the
 * same sources; C and C++. Papers: "Hierarchical communicators" (hsplit) and
 * "HSplit: functions". Every function is collective over its communicator
 * unless said otherwise. Errors go through the communicator's error handler;
 * with MPI_ERRORS_RETURN the code's MPI_Error_string names what was wrong and
 * MPIX_Osmp_error_class() gives the standard class (MPI_ERR_ARG, ...).
 */
#ifndef OSMP_MPI_H
#define OSMP_MPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* split_type for MPIX_Comm_split_type: a hardware domain. Without an info key
 * (undirected) the highest level strictly below comm's span, so repeated calls
 * walk down the hierarchy; with info key MPI_HW_DOMAIN_TYPE (directed) the
 * named level, or "MPI_HW_LEVELn" (level n as MPIX_Get_hw_topology_info lists
 * them on each process's node). Network levels above the nodes (switches,
 * islands) come from OSMP_SIM_NETWORK or OSMP_NETWORK_FILE (docs/mpi.md). */
#define MPIX_COMM_TYPE_HW_DOMAIN 0x6f6d
#define MPIX_HW_DOMAIN_TYPE_KEY "MPI_HW_DOMAIN_TYPE"

/* MPI-4 spellings, handled by osmp even where the MPI predates MPI-4. */
#ifndef MPI_COMM_TYPE_HW_GUIDED
#define MPI_COMM_TYPE_HW_GUIDED 0x6f6e
#endif
#ifndef MPI_COMM_TYPE_HW_UNGUIDED
#define MPI_COMM_TYPE_HW_UNGUIDED 0x6f6f
#endif
#define MPIX_HW_RESOURCE_TYPE_KEY "mpi_hw_resource_type"

/* Metrics for MPIX_Get_hw_domain_neighbours. */
#define MPIX_HW_METRIC_TREE 0   /* hops over every level an undirected walk makes */
#define MPIX_HW_METRIC_MEMORY 1 /* hops over memory levels (NUMANode, Package, as they nest), node, network, all */

/* MPI_Comm_split_type plus MPIX_COMM_TYPE_HW_DOMAIN, MPI_COMM_TYPE_HW_GUIDED
 * (info "mpi_hw_resource_type" = a level or "mpi_shared_memory") and
 * MPI_COMM_TYPE_HW_UNGUIDED (undirected; writes the chosen level back into
 * info). Other split types go to the MPI's own MPI_Comm_split_type.
 * MPI_Comm_get_info on a communicator made by a hardware split (this or
 * MPIX_Comm_hsplit_with_roots) reports its level: keys mpi_hw_resource_type,
 * MPI_HW_DOMAIN_TYPE / _NUM / _RANK and MPI_COMM_HLEVEL_TYPE / _NUM / _RANK
 * (libosmp_mpi wraps MPI_Comm_get_info through the profiling interface). */
int MPIX_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);

/* The hardware split of oldcomm (directed when info names a level) keeping
 * oldcomm's rank order, plus rootscomm: the rank-0 processes of every newcomm
 * made from oldcomm (MPI_COMM_NULL elsewhere). Paper Algorithm 2. */
int MPIX_Comm_hsplit_with_roots(MPI_Comm oldcomm, MPI_Info info, MPI_Comm* newcomm, MPI_Comm* rootscomm);

/* Local. The levels of this node's hardware, top-down, as info keys
 * MPI_HW_LEVEL0 .. MPI_HW_LEVEL<n-1> (info may be MPI_INFO_NULL); network
 * levels, when set, come first. Each name, and the key itself, is a valid
 * MPI_HW_DOMAIN_TYPE. */
int MPIX_Get_hw_topology_info(int* numlevels, MPI_Info info);

/* For a communicator made by a hardware split: how many were made from its
 * parent, its index among them, its level (a string owned by osmp). Local for
 * those; collective the first time on another communicator (its type is then
 * the lowest level all its members share, 1 part, index 0). Also sets info
 * keys MPI_HW_DOMAIN_TYPE, MPI_HW_DOMAIN_NUM, MPI_HW_DOMAIN_RANK when info is
 * not MPI_INFO_NULL. */
int MPIX_Get_hw_domain_info(MPI_Comm comm, int* num_subcomms, int* rank, char** type, MPI_Info info);

/* The lowest level shared by the listed ranks of comm: a level name; across
 * nodes the narrowest network level they share, else "Cluster"; "Unknown"
 * when the caller is not listed. Local on communicators made by osmp;
 * collective the first time on another one. */
int MPIX_Get_min_hw_domain(MPI_Comm comm, int size, int* ranks, char** type);

/* The group of comm's processes within `hops` levels up from the caller's
 * deepest domain (0: those sharing it; each hop one level up; beyond the top:
 * all of comm). Same collectiveness as MPIX_Get_min_hw_domain. */
int MPIX_Get_hw_domain_neighbours(MPI_Comm comm, int hops, int metric, MPI_Group* newgroup);

/* ---- weighted, hardware-aware Cartesian topologies (cartesian-weighted paper) ---- */

/* Pass as `weights` for equal weights. */
extern const double osmp_mpix_weights_equal[1];
#define MPIX_WEIGHTS_EQUAL ((const double*)osmp_mpix_weights_equal)

/* Local. Fills the zero entries of dims[ndims] (non-zero entries are kept, as
 * in MPI_Dims_create) with the factorization of nnodes minimising
 * sum(w_i * d_i), ties broken by the smallest max-min difference, then the
 * smallest largest factor. Equal weights: balanced (72 in 2-D gives 9 x 8). */
int MPIX_Dims_create_weighted(int nnodes, int ndims, const double weights[], int dims[]);

/* Local. The paper's prototype (section 4.1: weights and an info argument);
 * MPIX_Dims_create_weighted is this with MPI_INFO_NULL. Info keys:
 *   osmp_cart_level_sizes = "24,4,8"  multi-level factorization over those
 *       levels (their product must be nnodes), as MPIX_Dims_create_ml;
 *   osmp_cart_cost = "paper" (default: the weighted sum, eq. 4) or "refined"
 *       (section 6: a level's term is dropped where its factor is 1, counted
 *       once where it is 2 on a non-periodic dim);
 *   osmp_cart_periods = "1,0,1"  which dims are periodic (for "refined";
 *       default all). A bad value is MPI_ERR_INFO_VALUE. */
int MPIX_Dims_create_weighted_info(int nnodes, int ndims, const double weights[], MPI_Info info, int dims[]);

/* Local. Multi-level factorization for a machine the caller describes:
 * level_sizes[nlevels] (e.g. {24 nodes, 4 packages, 8 cores}), factorized level
 * by level from the top. dims[ndims] gets the final d_i (non-zero entries are
 * presets of the final dims); level_dims, when not NULL, gets nlevels x ndims
 * per-level factors, row by row. */
int MPIX_Dims_create_ml(int nlevels, const int level_sizes[], int ndims, const double weights[], int dims[],
                        int level_dims[]);

/* Local. Coordinates in a multi-level grid (level_dims as MPIX_Dims_create_ml
 * writes it, nlevels x ndims): a process that is unit level_index[l] of level
 * l (its node, its package in the node, ...) sits at coords[ndims], final
 * c_i = sum_l c_i(l) * prod_{k>l} n_i(k), which is row-major rank *rank of
 * the final grid. MPIX_Cart_ml_index is the inverse. */
int MPIX_Cart_ml_coords(int nlevels, int ndims, const int level_dims[], const int level_index[], int coords[],
                        int* rank);
int MPIX_Cart_ml_index(int nlevels, int ndims, const int level_dims[], int rank, int level_index[]);

/* Weights from a data mesh: w_i = prod_{j != i} mesh[j] (halo width 1). */
int MPIX_Weights_from_mesh(int ndims, const long long mesh[], double weights[]);

/* Collective. A Cartesian communicator over comm_old's processes whose grid is
 * factorized level by level over the hardware (the network levels, node,
 * then package, NUMA node, L3, then the processes below; info key
 * "osmp_cart_levels" = "Machine,Package" names the levels instead) and whose
 * ranks are reordered so that each node (and each package in it) holds one
 * box of the grid. Levels where the hardware is not symmetric: docs/mpi.md,
 * "Weighted, hardware-aware Cartesian grids" (compact blocks by recursive
 * bisection instead of plain MPI_Cart_create).
 * Info osmp_cart_cost = "refined" as for MPIX_Dims_create_weighted_info (with
 * these periods). The dims chosen are read back with MPI_Cart_get. */
int MPIX_Cart_create_weighted(MPI_Comm comm_old, int ndims, const double weights[], const int periods[], MPI_Info info,
                              MPI_Comm* comm_cart);

/* Collective over level_comms[0]. The same, with the levels given as a
 * hierarchy of communicators (the paper's Figure 5): level_comms[0] holds
 * every process (it plays comm_old), level_comms[l + 1] is the part of
 * level_comms[l] the calling process is in (e.g. from MPIX_Comm_split_type);
 * each process passes its own. A part that is MPI_COMM_NULL, not inside its
 * parent, or parts that do not cover their parent are an error on every
 * process. */
int MPIX_Cart_create_weighted_comms(int nlevels, const MPI_Comm level_comms[], int ndims, const double weights[],
                                    const int periods[], MPI_Info info, MPI_Comm* comm_cart);

/* The standard class (MPI_ERR_ARG, MPI_ERR_INFO_VALUE, MPI_ERR_INTERN, ...) of
 * an error code returned by osmp, else MPI_Error_class's answer. */
int MPIX_Osmp_error_class(int errorcode);

#ifdef __cplusplus
}
#endif

#endif /* OSMP_MPI_H */
