// The MPIX_ Cartesian functions of osmp_mpi.h: weighted factorization and a
// Cartesian communicator laid out over the hardware levels.
#include <algorithm>
#include <climits>
#include <exception>

#include "core/strings.hpp"
#include "mpi_glue/cart/coords.hpp"
#include "mpi_glue/cart/dims.hpp"
#include "mpi_glue/hierarchy/hierarchy.hpp"
#include "mpi_glue/mpi/blocks.hpp"
#include "mpi_glue/mpi/context.hpp"
#include "mpi_glue/mpi/osmp_mpi.h"

extern "C" const double osmp_mpix_weights_equal[1] = {0.0};

namespace osmp::mpi {
namespace {

// MPIX_WEIGHTS_EQUAL: empty; NULL: an error.
Result<std::span<const double>> weights_of(const double* weights, int ndims) {
  if (weights == osmp_mpix_weights_equal) return std::span<const double>();
  if (!weights) return Status(Errc::invalid_argument, "weights is NULL (pass MPIX_WEIGHTS_EQUAL for equal weights)");
  if (ndims < 0) return Status(Errc::invalid_argument, cat("ndims = ", ndims));
  return std::span<const double>(weights, static_cast<std::size_t>(ndims));
}

template <class F>
int guarded(MPI_Comm comm, const char* function, F&& f) {
  try {
    Status st = f();
    return st.ok() ? MPI_SUCCESS : raise(comm, st, function);
  } catch (const std::exception& e) {
    return raise(comm, Status(Errc::internal, e.what()), function);
  }
}

const std::vector<std::string> kDefaultLevels = {"Machine", "Package", "NUMANode", "L3Cache"};

Result<std::vector<std::string>> levels_requested(MPI_Info info) {
  if (info == MPI_INFO_NULL) return kDefaultLevels;
  int len = 0, flag = 0;
  MPI_Info_get_valuelen(info, "osmp_cart_levels", &len, &flag);
  if (!flag) return kDefaultLevels;
  std::string v(static_cast<std::size_t>(len) + 1, '\0');
  MPI_Info_get(info, "osmp_cart_levels", len + 1, v.data(), &flag);
  v.resize(static_cast<std::size_t>(len));
  std::vector<std::string> out;
  for (auto item : split(v, ','))
    if (!trim(item).empty()) {
      auto level = hier::level_for_request(item);
      if (!level.ok()) return Status(Errc::not_found, cat("info osmp_cart_levels: ", level.status().message()));
      out.push_back(*level);
    }
  return out;
}

// Each process's place in the hardware: per level, how many units its parent
// has (sizes) and which one it is in (index); the last entry is the processes
// below the last level. Levels some process cannot be split by are left out
// everywhere. Collective over comm.
struct Levels {
  std::vector<int> sizes, index;
  std::vector<std::string> names;
};

Result<Levels> hardware_levels(MPI_Comm comm, const std::vector<std::string>& names) {
  Levels out;
  MPI_Comm cur;
  MPI_Comm_dup(comm, &cur);
  for (const std::string& name : names) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, MPIX_HW_DOMAIN_TYPE_KEY, name.c_str());
    int rank = 0;
    MPI_Comm_rank(cur, &rank);
    MPI_Comm next = MPI_COMM_NULL;
    int rc = MPIX_Comm_split_type(cur, MPIX_COMM_TYPE_HW_DOMAIN, rank, info, &next);
    MPI_Info_free(&info);
    int missing = (rc != MPI_SUCCESS || next == MPI_COMM_NULL) ? 1 : 0, any = 0;
    MPI_Allreduce(&missing, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
      if (next != MPI_COMM_NULL) MPI_Comm_free(&next);
      continue;
    }
    int parts = 0, index = 0;
    char* type = nullptr;
    MPIX_Get_hw_domain_info(next, &parts, &index, &type, MPI_INFO_NULL);
    out.sizes.push_back(parts);
    out.index.push_back(index);
    out.names.push_back(name);
    MPI_Comm_free(&cur);
    cur = next;
  }
  int size = 0, rank = 0;
  MPI_Comm_size(cur, &size);
  MPI_Comm_rank(cur, &rank);
  out.sizes.push_back(size);
  out.index.push_back(rank);
  out.names.push_back("processes");
  MPI_Comm_free(&cur);
  return out;
}

bool symmetric(MPI_Comm comm, const std::vector<int>& sizes) {
  std::vector<int> lo(sizes), hi(sizes);
  MPI_Allreduce(MPI_IN_PLACE, lo.data(), static_cast<int>(lo.size()), MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, hi.data(), static_cast<int>(hi.size()), MPI_INT, MPI_MAX, comm);
  return lo == hi;
}

// The grid rank of this process: multi-level when every level is symmetric,
// else compact blocks over the single-level weighted dims.
Result<int> grid_rank(MPI_Comm comm, const Levels& lv, int ndims, std::span<const double> w, std::vector<int>& dims) {
  int n = 0, me = 0;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  if (symmetric(comm, lv.sizes)) {
    OSMP_ASSIGN_OR_RETURN(cart::MultilevelDims ml, cart::dims_create_multilevel(lv.sizes, ndims, w));
    dims = ml.dims;
    OSMP_ASSIGN_OR_RETURN(cart::Place place, cart::place_of(ml.levels, lv.index));
    return place.rank;
  }
  dims.assign(static_cast<std::size_t>(ndims), 0);
  OSMP_RETURN_IF_ERROR(cart::dims_create_weighted(n, ndims, w, dims));
  const int len = static_cast<int>(lv.index.size());
  std::vector<int> all(static_cast<std::size_t>(n * len));
  MPI_Allgather(lv.index.data(), len, MPI_INT, all.data(), len, MPI_INT, comm);
  std::vector<std::vector<int>> keys;
  for (int p = 0; p < n; ++p) {
    keys.emplace_back(all.begin() + p * len, all.begin() + (p + 1) * len);
    keys.back().push_back(p);  // distinct even if two processes report the same place
  }
  OSMP_ASSIGN_OR_RETURN(std::vector<int> ranks, compact_assignment(dims, w, keys));
  return ranks[static_cast<std::size_t>(me)];
}

}  // namespace
}  // namespace osmp::mpi

using namespace osmp;
using namespace osmp::mpi;

extern "C" {

int MPIX_Dims_create_weighted(int nnodes, int ndims, const double weights[], int dims[]) {
  return guarded(MPI_COMM_WORLD, "MPIX_Dims_create_weighted", [&]() -> Status {
    OSMP_ASSIGN_OR_RETURN(auto w, weights_of(weights, ndims));
    if (ndims < 1) return Status(Errc::invalid_argument, cat("ndims = ", ndims, " (must be >= 1)"));
    if (!dims) return Status(Errc::invalid_argument, "dims is NULL");
    return cart::dims_create_weighted(nnodes, ndims, w, std::span<int>(dims, static_cast<std::size_t>(ndims)));
  });
}

int MPIX_Dims_create_ml(int nlevels, const int level_sizes[], int ndims, const double weights[], int dims[],
                        int level_dims[]) {
  return guarded(MPI_COMM_WORLD, "MPIX_Dims_create_ml", [&]() -> Status {
    OSMP_ASSIGN_OR_RETURN(auto w, weights_of(weights, ndims));
    if (nlevels < 1 || !level_sizes) return Status(Errc::invalid_argument, cat("nlevels = ", nlevels, " or level_sizes NULL"));
    if (ndims < 1 || !dims) return Status(Errc::invalid_argument, cat("ndims = ", ndims, " or dims NULL"));
    std::span<int> d(dims, static_cast<std::size_t>(ndims));
    OSMP_ASSIGN_OR_RETURN(cart::MultilevelDims ml,
                          cart::dims_create_multilevel(std::span<const int>(level_sizes, static_cast<std::size_t>(nlevels)),
                                                       ndims, w, d));
    std::copy(ml.dims.begin(), ml.dims.end(), d.begin());
    if (level_dims)
      for (int l = 0; l < nlevels; ++l)
        for (int i = 0; i < ndims; ++i)
          level_dims[l * ndims + i] = ml.levels[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)];
    return {};
  });
}

namespace {
Result<std::vector<std::vector<int>>> levels_of(int nlevels, int ndims, const int* level_dims) {
  if (nlevels < 1 || ndims < 1 || !level_dims)
    return Status(Errc::invalid_argument, cat("nlevels = ", nlevels, ", ndims = ", ndims, " or level_dims NULL"));
  std::vector<std::vector<int>> levels;
  for (int l = 0; l < nlevels; ++l) levels.emplace_back(level_dims + l * ndims, level_dims + (l + 1) * ndims);
  return levels;
}
}  // namespace

int MPIX_Cart_ml_coords(int nlevels, int ndims, const int level_dims[], const int level_index[], int coords[],
                        int* rank) {
  return guarded(MPI_COMM_WORLD, "MPIX_Cart_ml_coords", [&]() -> Status {
    OSMP_ASSIGN_OR_RETURN(auto levels, levels_of(nlevels, ndims, level_dims));
    if (!level_index || !coords || !rank) return Status(Errc::invalid_argument, "level_index, coords or rank is NULL");
    OSMP_ASSIGN_OR_RETURN(cart::Place p, cart::place_of(levels, std::span<const int>(level_index, static_cast<std::size_t>(nlevels))));
    std::copy(p.coords.begin(), p.coords.end(), coords);
    *rank = p.rank;
    return {};
  });
}

int MPIX_Cart_ml_index(int nlevels, int ndims, const int level_dims[], int rank, int level_index[]) {
  return guarded(MPI_COMM_WORLD, "MPIX_Cart_ml_index", [&]() -> Status {
    OSMP_ASSIGN_OR_RETURN(auto levels, levels_of(nlevels, ndims, level_dims));
    if (!level_index) return Status(Errc::invalid_argument, "level_index is NULL");
    OSMP_ASSIGN_OR_RETURN(std::vector<int> idx, cart::level_index_of(levels, rank));
    std::copy(idx.begin(), idx.end(), level_index);
    return {};
  });
}

int MPIX_Weights_from_mesh(int ndims, const long long mesh[], double weights[]) {
  return guarded(MPI_COMM_WORLD, "MPIX_Weights_from_mesh", [&]() -> Status {
    if (ndims < 1 || !mesh || !weights) return Status(Errc::invalid_argument, cat("ndims = ", ndims, " or NULL arrays"));
    std::vector<std::int64_t> m(mesh, mesh + ndims);
    OSMP_ASSIGN_OR_RETURN(std::vector<double> w, cart::weights_from_mesh(m));
    std::copy(w.begin(), w.end(), weights);
    return {};
  });
}

int MPIX_Cart_create_weighted(MPI_Comm comm_old, int ndims, const double weights[], const int periods[],
                              MPI_Info info, MPI_Comm* comm_cart) {
  return guarded(comm_old, "MPIX_Cart_create_weighted", [&]() -> Status {
    if (comm_old == MPI_COMM_NULL) return Status(Errc::invalid_argument, "comm_old is MPI_COMM_NULL");
    // Argument checks are agreed before anything collective, so that a rank
    // with a bad argument never leaves the others waiting.
    Status local;
    auto w = weights_of(weights, ndims);
    if (!w.ok()) local = w.status();
    else if (ndims < 1) local = Status(Errc::invalid_argument, cat("ndims = ", ndims, " (must be >= 1)"));
    else if (!comm_cart) local = Status(Errc::invalid_argument, "comm_cart is NULL");
    else if (!w->empty()) local = cart::check_weights(*w, ndims);
    auto names = levels_requested(info);
    if (local.ok() && !names.ok()) local = names.status();
    int bad = local.ok() ? 0 : 1, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm_old);
    if (any) return local.ok() ? Status(Errc::invalid_argument, "another rank passed a bad argument") : local;
    *comm_cart = MPI_COMM_NULL;
    OSMP_ASSIGN_OR_RETURN(Levels lv, hardware_levels(comm_old, *names));
    std::vector<int> dims;
    Result<int> rank = grid_rank(comm_old, lv, ndims, *w, dims);
    int failed = rank.ok() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm_old);
    if (failed) return rank.ok() ? Status(Errc::internal, "another rank could not place itself in the grid") : rank.status();
    MPI_Comm ordered;
    MPI_Comm_split(comm_old, 0, *rank, &ordered);
    std::vector<int> per(static_cast<std::size_t>(ndims), 0);
    if (periods) std::copy(periods, periods + ndims, per.begin());
    MPI_Cart_create(ordered, ndims, dims.data(), per.data(), 0, comm_cart);
    MPI_Comm_free(&ordered);
    return {};
  });
}

}  // extern "C"
