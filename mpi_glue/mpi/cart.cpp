// The MPIX_ Cartesian functions of osmp_mpi.h: weighted factorization and a
// Cartesian communicator laid out over the hardware levels.
#include <algorithm>
#include <climits>
#include <exception>

#include "core/strings.hpp"
#include "mpi_glue/cart/coords.hpp"
#include "mpi_glue/cart/dims.hpp"
#include "mpi_glue/hierarchy/hierarchy.hpp"
#include "mpi_glue/hierarchy/network.hpp"
#include "mpi_glue/mpi/context.hpp"
#include "mpi_glue/mpi/grid.hpp"
#include "osmp_mpi.h"

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

// The levels a Cartesian grid is laid out over, top-down: info
// "osmp_cart_levels" (checked here, each name as MPIX_Comm_split_type takes
// it), else the network's levels, the node, Package, NUMANode, L3.
Result<std::vector<std::string>> levels_requested(MPI_Info info) {
  if (auto v = info_value(info, "osmp_cart_levels")) {
    std::vector<std::string> out;
    for (auto item : split(*v, ','))
      if (!trim(item).empty()) {
        auto level = level_named(item);
        if (!level.ok()) return Status(Errc::not_found, cat("info osmp_cart_levels: ", level.status().message()));
        out.push_back(hier::names_level_number(item) ? std::string(trim(item)) : *level);
      }
    return out;
  }
  OSMP_ASSIGN_OR_RETURN(Layout layout, layout_from_env());
  std::vector<std::string> out = layout.network.levels_top_down();
  for (const char* l : {"Machine", "Package", "NUMANode", "L3Cache"}) out.emplace_back(l);
  return out;
}

// Info keys of the Cartesian calls: osmp_cart_cost = paper (eq. 4, the
// default) or refined (section 6); osmp_cart_periods = "1,0,1" for the dims
// call (the others take periods as an argument); osmp_cart_level_sizes =
// "24,4,8", multi-level sizes for the dims call.
struct CartHints {
  cart::CostModel model;
  std::vector<int> level_sizes;
};

Result<std::vector<int>> int_list(const std::string& text, const char* key, long long lo, long long hi) {
  std::vector<int> out;
  for (auto item : split(text, ',')) {
    auto v = parse_int(item, lo, hi, cat("info ", key));
    if (!v.ok()) return Status(Errc::not_found, v.status().message());
    out.push_back(static_cast<int>(*v));
  }
  return out;
}

Result<CartHints> cart_hints(MPI_Info info, int ndims, const int* periods) {
  CartHints h;
  if (auto cost = info_value(info, "osmp_cart_cost")) {
    if (iequals(trim(*cost), "refined"))
      h.model.refined = true;
    else if (!iequals(trim(*cost), "paper"))
      return Status(Errc::not_found, cat("info osmp_cart_cost = '", *cost, "' (expected paper or refined)"));
  }
  std::vector<int> per;
  if (periods)
    per.assign(periods, periods + ndims);
  else if (auto p = info_value(info, "osmp_cart_periods")) {
    OSMP_ASSIGN_OR_RETURN(per, int_list(*p, "osmp_cart_periods", 0, 1));
  }
  if (!per.empty() && per.size() != static_cast<std::size_t>(ndims))
    return Status(Errc::not_found, cat("info osmp_cart_periods has ", per.size(), " entries but ndims = ", ndims));
  for (int x : per) h.model.periodic.push_back(x != 0);
  if (auto sizes = info_value(info, "osmp_cart_level_sizes")) {
    OSMP_ASSIGN_OR_RETURN(h.level_sizes, int_list(*sizes, "osmp_cart_level_sizes", 1, INT_MAX));
  }
  return h;
}

// The arguments every Cartesian constructor checks, agreed over comm before
// anything collective, so that a rank with a bad argument never leaves the
// others waiting.
struct CartArgs {
  std::span<const double> weights;
  CartHints hints;
};
Result<CartArgs> agreed_args(MPI_Comm comm, int ndims, const double* weights, const int* periods, MPI_Info info,
                             MPI_Comm* comm_cart, Status local) {
  CartArgs a;
  auto w = weights_of(weights, ndims);
  if (local.ok() && !w.ok())
    local = w.status();
  else if (local.ok() && ndims < 1)
    local = Status(Errc::invalid_argument, cat("ndims = ", ndims, " (must be >= 1)"));
  else if (local.ok() && !comm_cart)
    local = Status(Errc::invalid_argument, "comm_cart is NULL");
  else if (local.ok() && !w->empty())
    local = cart::check_weights(*w, ndims);
  if (local.ok()) {
    auto hints = cart_hints(info, ndims, periods);
    if (hints.ok())
      a.hints = std::move(hints).value();
    else
      local = hints.status();
  }
  int bad = local.ok() ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) return local.ok() ? Status(Errc::invalid_argument, "another rank passed a bad argument") : local;
  a.weights = *w;
  return a;
}

// The grid over `lv`, the ranks reordered, and the Cartesian communicator.
Status make_cart(MPI_Comm comm, const Levels& lv, int ndims, const CartArgs& a, const int* periods,
                 MPI_Comm* comm_cart) {
  std::vector<int> dims;
  Result<int> rank = grid_rank(comm, lv, ndims, a.weights, a.hints.model, dims);
  int failed = rank.ok() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
  if (failed)
    return rank.ok() ? Status(Errc::internal, "another rank could not place itself in the grid") : rank.status();
  MPI_Comm ordered;
  MPI_Comm_split(comm, 0, *rank, &ordered);
  std::vector<int> per(static_cast<std::size_t>(ndims), 0);
  if (periods) std::copy(periods, periods + ndims, per.begin());
  MPI_Cart_create(ordered, ndims, dims.data(), per.data(), 0, comm_cart);
  MPI_Comm_free(&ordered);
  return {};
}

}  // namespace
}  // namespace osmp::mpi

using namespace osmp;
using namespace osmp::mpi;

namespace {
Result<std::vector<std::vector<int>>> levels_of(int nlevels, int ndims, const int* level_dims) {
  if (nlevels < 1 || ndims < 1 || !level_dims)
    return Status(Errc::invalid_argument, cat("nlevels = ", nlevels, ", ndims = ", ndims, " or level_dims NULL"));
  std::vector<std::vector<int>> levels;
  for (int l = 0; l < nlevels; ++l) levels.emplace_back(level_dims + l * ndims, level_dims + (l + 1) * ndims);
  return levels;
}
}  // namespace

extern "C" {

int MPIX_Dims_create_weighted(int nnodes, int ndims, const double weights[], int dims[]) {
  return MPIX_Dims_create_weighted_info(nnodes, ndims, weights, MPI_INFO_NULL, dims);
}

int MPIX_Dims_create_weighted_info(int nnodes, int ndims, const double weights[], MPI_Info info, int dims[]) {
  return guarded(MPI_COMM_WORLD, "MPIX_Dims_create_weighted", [&]() -> Status {
    OSMP_ASSIGN_OR_RETURN(auto w, weights_of(weights, ndims));
    if (ndims < 1) return Status(Errc::invalid_argument, cat("ndims = ", ndims, " (must be >= 1)"));
    if (!dims) return Status(Errc::invalid_argument, "dims is NULL");
    OSMP_ASSIGN_OR_RETURN(CartHints h, cart_hints(info, ndims, nullptr));
    std::span<int> d(dims, static_cast<std::size_t>(ndims));
    if (h.level_sizes.empty()) return cart::dims_create_weighted(nnodes, ndims, w, d, h.model);
    long long product = 1;
    for (int s : h.level_sizes) product = std::min<long long>(product * s, 1LL + INT_MAX);
    if (product != nnodes) {
      return Status(Errc::not_found,
                    cat("info osmp_cart_level_sizes multiply to ", product, ", not nnodes = ", nnodes));
    }
    OSMP_ASSIGN_OR_RETURN(cart::MultilevelDims ml, cart::dims_create_multilevel(h.level_sizes, ndims, w, d, h.model));
    std::copy(ml.dims.begin(), ml.dims.end(), d.begin());
    return {};
  });
}

int MPIX_Dims_create_ml(int nlevels, const int level_sizes[], int ndims, const double weights[], int dims[],
                        int level_dims[]) {
  return guarded(MPI_COMM_WORLD, "MPIX_Dims_create_ml", [&]() -> Status {
    OSMP_ASSIGN_OR_RETURN(auto w, weights_of(weights, ndims));
    if (nlevels < 1 || !level_sizes)
      return Status(Errc::invalid_argument, cat("nlevels = ", nlevels, " or level_sizes NULL"));
    if (ndims < 1 || !dims) return Status(Errc::invalid_argument, cat("ndims = ", ndims, " or dims NULL"));
    std::span<int> d(dims, static_cast<std::size_t>(ndims));
    OSMP_ASSIGN_OR_RETURN(cart::MultilevelDims ml,
                          cart::dims_create_multilevel(
                              std::span<const int>(level_sizes, static_cast<std::size_t>(nlevels)), ndims, w, d));
    std::copy(ml.dims.begin(), ml.dims.end(), d.begin());
    if (level_dims)
      for (int l = 0; l < nlevels; ++l)
        for (int i = 0; i < ndims; ++i)
          level_dims[l * ndims + i] = ml.levels[static_cast<std::size_t>(l)][static_cast<std::size_t>(i)];
    return {};
  });
}

int MPIX_Cart_ml_coords(int nlevels, int ndims, const int level_dims[], const int level_index[], int coords[],
                        int* rank) {
  return guarded(MPI_COMM_WORLD, "MPIX_Cart_ml_coords", [&]() -> Status {
    OSMP_ASSIGN_OR_RETURN(auto levels, levels_of(nlevels, ndims, level_dims));
    if (!level_index || !coords || !rank) return Status(Errc::invalid_argument, "level_index, coords or rank is NULL");
    OSMP_ASSIGN_OR_RETURN(cart::Place p,
                          cart::place_of(levels, std::span<const int>(level_index, static_cast<std::size_t>(nlevels))));
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
    if (ndims < 1 || !mesh || !weights)
      return Status(Errc::invalid_argument, cat("ndims = ", ndims, " or NULL arrays"));
    std::vector<std::int64_t> m(mesh, mesh + ndims);
    OSMP_ASSIGN_OR_RETURN(std::vector<double> w, cart::weights_from_mesh(m));
    std::copy(w.begin(), w.end(), weights);
    return {};
  });
}

int MPIX_Cart_create_weighted(MPI_Comm comm_old, int ndims, const double weights[], const int periods[], MPI_Info info,
                              MPI_Comm* comm_cart) {
  return guarded(comm_old, "MPIX_Cart_create_weighted", [&]() -> Status {
    if (comm_old == MPI_COMM_NULL) return Status(Errc::invalid_argument, "comm_old is MPI_COMM_NULL");
    auto names = levels_requested(info);
    OSMP_ASSIGN_OR_RETURN(CartArgs args, agreed_args(comm_old, ndims, weights, periods, info, comm_cart,
                                                     names.ok() ? Status() : names.status()));
    *comm_cart = MPI_COMM_NULL;
    OSMP_ASSIGN_OR_RETURN(Levels lv, hardware_levels(comm_old, *names));
    return make_cart(comm_old, lv, ndims, args, periods, comm_cart);
  });
}

int MPIX_Cart_create_weighted_comms(int nlevels, const MPI_Comm level_comms[], int ndims, const double weights[],
                                    const int periods[], MPI_Info info, MPI_Comm* comm_cart) {
  MPI_Comm comm = nlevels >= 1 && level_comms ? level_comms[0] : MPI_COMM_NULL;
  return guarded(comm, "MPIX_Cart_create_weighted_comms", [&]() -> Status {
    if (comm == MPI_COMM_NULL)
      return Status(Errc::invalid_argument,
                    cat("nlevels = ", nlevels, ", level_comms NULL or level_comms[0] MPI_COMM_NULL"));
    OSMP_ASSIGN_OR_RETURN(CartArgs args, agreed_args(comm, ndims, weights, periods, info, comm_cart, Status()));
    *comm_cart = MPI_COMM_NULL;
    OSMP_ASSIGN_OR_RETURN(
        Levels lv,
        levels_from_comms(std::span<const MPI_Comm>(level_comms, static_cast<std::size_t>(nlevels)), "level_comms"));
    return make_cart(comm, lv, ndims, args, periods, comm_cart);
  });
}

}  // extern "C"
