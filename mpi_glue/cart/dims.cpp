#include "mpi_glue/cart/dims.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "mpi_glue/cart/search.hpp"

namespace osmp::cart {

namespace {

using detail::times;

Status check_positive_finite(std::span<const double> values, const char* name) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]))
      return Status(Errc::invalid_argument, cat(name, "[", i, "] = ", values[i], " is not finite"));
    if (values[i] <= 0) return Status(Errc::invalid_argument, cat(name, "[", i, "] = ", values[i], " is not positive"));
  }
  return {};
}

}  // namespace

Status check_weights(std::span<const double> weights, int ndims) {
  if (!weights.empty() && weights.size() != static_cast<std::size_t>(ndims)) {
    return Status(Errc::invalid_argument, cat("weights has ", weights.size(), " entries but ndims = ", ndims,
                                              " (pass none for equal weights)"));
  }
  return check_positive_finite(weights, "weights");
}

Status check_preset(std::int64_t nnodes, std::span<const int> dims) {
  if (nnodes < 1 || nnodes > INT_MAX) {
    return Status(Errc::invalid_argument, cat("nnodes = ", nnodes, " is outside [1, ", INT_MAX, "]"));
  }
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return Status(Errc::invalid_argument, cat("dims[", i, "] = ", dims[i], " is negative (0 = free, > 0 = fixed)"));
    }
    if (dims[i] > 0 && nnodes % dims[i] != 0)
      return Status(Errc::invalid_argument, cat("dims[", i, "] = ", dims[i], " does not divide ", nnodes));
  }
  std::vector<int> fixed;
  std::int64_t product = 1;
  for (int d : dims) {
    if (d == 0) continue;
    fixed.push_back(d);
    product *= d;  // product <= nnodes and d <= nnodes, both < 2^31: no overflow
    if (product > nnodes || nnodes % product != 0) {
      return Status(Errc::invalid_argument, cat("the preset dims ", times(fixed), " multiply to ", product,
                                                ", which does not divide ", nnodes));
    }
  }
  if (!dims.empty() && fixed.size() == dims.size() && product != nnodes) {
    return Status(Errc::invalid_argument,
                  cat("every dim is preset and ", times(fixed), " multiply to ", product, ", not ", nnodes));
  }
  return {};
}

Status dims_create_weighted(int nnodes, int ndims, std::span<const double> weights, std::span<int> dims,
                            const CostModel& model) {
  if (nnodes < 1) return Status(Errc::invalid_argument, cat("nnodes = ", nnodes, " is less than 1"));
  if (ndims < 1) return Status(Errc::invalid_argument, cat("ndims = ", ndims, " is less than 1"));
  if (dims.size() != static_cast<std::size_t>(ndims)) {
    return Status(Errc::invalid_argument, cat("dims has ", dims.size(), " entries but ndims = ", ndims));
  }
  const int levels[] = {nnodes};
  OSMP_ASSIGN_OR_RETURN(MultilevelDims ml, dims_create_multilevel(levels, ndims, weights, dims, model));
  std::copy(ml.dims.begin(), ml.dims.end(), dims.begin());
  return {};
}

Result<std::vector<double>> weights_from_mesh(std::span<const std::int64_t> mesh, std::span<const double> halo,
                                              std::span<const double> cost) {
  if (mesh.empty()) return Status(Errc::invalid_argument, "mesh has no extents");
  for (std::size_t i = 0; i < mesh.size(); ++i) {
    if (mesh[i] < 1) return Status(Errc::invalid_argument, cat("mesh[", i, "] = ", mesh[i], " is less than 1"));
  }
  for (auto [values, name] : {std::pair{halo, "halo"}, std::pair{cost, "cost"}}) {
    if (!values.empty() && values.size() != mesh.size()) {
      return Status(Errc::invalid_argument,
                    cat(name, " has ", values.size(), " entries but the mesh has ", mesh.size()));
    }
    OSMP_RETURN_IF_ERROR(check_positive_finite(values, name));
  }
  std::vector<double> w(mesh.size());
  for (std::size_t i = 0; i < mesh.size(); ++i) {
    long double v = (halo.empty() ? 1.0L : halo[i]) * (cost.empty() ? 1.0L : cost[i]);
    for (std::size_t j = 0; j < mesh.size(); ++j)
      if (j != i) v *= static_cast<long double>(mesh[j]);
    w[i] = static_cast<double>(v);
    if (!std::isfinite(w[i]) || w[i] <= 0) {
      return Status(Errc::invalid_argument, cat("the weight of dim ", i, " (c*h*G/g) is out of double range"));
    }
  }
  return w;
}

double weighted_cost(std::span<const double> weights, std::span<const int> dims) {
  long double sum = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) sum += (i < weights.size() ? weights[i] : 1.0L) * dims[i];
  return static_cast<double>(sum);
}

}  // namespace osmp::cart
