#include "mpi_glue/mpi/grid.hpp"

#include "core/strings.hpp"
#include "mpi_glue/cart/coords.hpp"
#include "mpi_glue/mpi/blocks.hpp"
#include "osmp_mpi.h"

namespace osmp::mpi {
namespace {

// comms[l + 1] on this process: there, inside comms[l], an intracommunicator.
Status check_level(std::span<const MPI_Comm> comms, std::size_t l, const char* name) {
  MPI_Comm parent = comms[l], child = comms[l + 1];
  if (child == MPI_COMM_NULL) return Status(Errc::invalid_argument, cat(name, "[", l + 1, "] is MPI_COMM_NULL"));
  int inter = 0;
  MPI_Comm_test_inter(child, &inter);
  if (inter) return Status(Errc::invalid_argument, cat(name, "[", l + 1, "] is an intercommunicator"));
  MPI_Group pg, cg;
  MPI_Comm_group(parent, &pg);
  MPI_Comm_group(child, &cg);
  int n = 0;
  MPI_Group_size(cg, &n);
  std::vector<int> ranks(static_cast<std::size_t>(n)), in_parent(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(cg, n, ranks.data(), pg, in_parent.data());
  MPI_Group_free(&pg);
  MPI_Group_free(&cg);
  for (int r : in_parent)
    if (r == MPI_UNDEFINED)
      return Status(Errc::invalid_argument,
                    cat(name, "[", l + 1, "] holds a process that ", name, "[", l, "] does not"));
  return {};
}

// How many parts comms[l + 1] cuts comms[l] into, which one is this
// process's, and whether the parts cover comms[l] (their sizes add up).
Status count_parts(MPI_Comm parent, MPI_Comm child, int& parts, int& index) {
  int prank = 0, psize = 0, crank = 0, csize = 0;
  MPI_Comm_rank(parent, &prank);
  MPI_Comm_size(parent, &psize);
  MPI_Comm_rank(child, &crank);
  MPI_Comm_size(child, &csize);
  const int root = crank == 0 ? 1 : 0;
  int mine[2] = {root, root ? csize : 0}, sums[2] = {0, 0}, before = 0;
  MPI_Allreduce(mine, sums, 2, MPI_INT, MPI_SUM, parent);
  MPI_Exscan(&root, &before, 1, MPI_INT, MPI_SUM, parent);
  index = prank == 0 ? 0 : before;  // the part's number: how many part roots come before its root
  MPI_Bcast(&index, 1, MPI_INT, 0, child);
  parts = sums[0];
  if (sums[1] != psize) return Status(Errc::invalid_argument, "the parts do not partition their parent");
  return {};
}

bool symmetric(MPI_Comm comm, const std::vector<int>& sizes) {
  std::vector<int> lo(sizes), hi(sizes);
  MPI_Allreduce(MPI_IN_PLACE, lo.data(), static_cast<int>(lo.size()), MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, hi.data(), static_cast<int>(hi.size()), MPI_INT, MPI_MAX, comm);
  return lo == hi;
}

}  // namespace

Result<Levels> levels_from_comms(std::span<const MPI_Comm> comms, const char* name) {
  if (comms.empty() || comms[0] == MPI_COMM_NULL)
    return Status(Errc::invalid_argument, cat(name, "[0] is MPI_COMM_NULL or missing"));
  Status local;
  for (std::size_t l = 0; l + 1 < comms.size() && local.ok(); ++l) local = check_level(comms, l, name);
  int bad = local.ok() ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comms[0]);
  if (any) return local.ok() ? Status(Errc::invalid_argument, cat("another process passed a bad ", name)) : local;
  Levels out;
  int failed = 0;
  for (std::size_t l = 0; l + 1 < comms.size(); ++l) {
    int parts = 0, index = 0;
    Status st = count_parts(comms[l], comms[l + 1], parts, index);
    if (!st.ok() && local.ok()) local = st.prefix(cat(name, "[", l + 1, "]"));
    out.sizes.push_back(parts);
    out.index.push_back(index);
  }
  int size = 0, rank = 0;
  MPI_Comm_size(comms.back(), &size);
  MPI_Comm_rank(comms.back(), &rank);
  out.sizes.push_back(size);
  out.index.push_back(rank);
  failed = local.ok() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comms[0]);
  if (failed) return local.ok() ? Status(Errc::invalid_argument, cat("another process passed a bad ", name)) : local;
  return out;
}

Result<Levels> hardware_levels(MPI_Comm comm, const std::vector<std::string>& names) {
  std::vector<MPI_Comm> comms{comm};
  for (const std::string& level : names) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, MPIX_HW_DOMAIN_TYPE_KEY, level.c_str());
    int rank = 0;
    MPI_Comm_rank(comms.back(), &rank);
    MPI_Comm next = MPI_COMM_NULL;
    int rc = MPIX_Comm_split_type(comms.back(), MPIX_COMM_TYPE_HW_DOMAIN, rank, info, &next);
    MPI_Info_free(&info);
    int missing = (rc != MPI_SUCCESS || next == MPI_COMM_NULL) ? 1 : 0, any = 0;
    MPI_Allreduce(&missing, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
      if (next != MPI_COMM_NULL) MPI_Comm_free(&next);
      continue;
    }
    comms.push_back(next);
  }
  Result<Levels> lv = levels_from_comms(comms, "hardware levels");
  for (std::size_t l = 1; l < comms.size(); ++l) MPI_Comm_free(&comms[l]);
  return lv;
}

Result<int> grid_rank(MPI_Comm comm, const Levels& lv, int ndims, std::span<const double> w,
                      const cart::CostModel& model, std::vector<int>& dims) {
  int n = 0, me = 0;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  if (symmetric(comm, lv.sizes)) {
    OSMP_ASSIGN_OR_RETURN(cart::MultilevelDims ml, cart::dims_create_multilevel(lv.sizes, ndims, w, {}, model));
    dims = ml.dims;
    OSMP_ASSIGN_OR_RETURN(cart::Place place, cart::place_of(ml.levels, lv.index));
    return place.rank;
  }
  dims.assign(static_cast<std::size_t>(ndims), 0);
  OSMP_RETURN_IF_ERROR(cart::dims_create_weighted(n, ndims, w, dims, model));
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

}  // namespace osmp::mpi
