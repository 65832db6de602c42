// The MPIX_ functions of osmp_mpi.h: hierarchical communicators.
#include <cstring>
#include <exception>

#include "core/strings.hpp"
#include "mpi_glue/hierarchy/network.hpp"
#include "mpi_glue/mpi/context.hpp"
#include "osmp_mpi.h"

namespace osmp::mpi {
namespace {

struct Request {
  bool directed = false;
  std::string asked;        // as every rank must name it: canonical, or MPI_HW_LEVELn
  std::string level;        // this rank's level (MPI_HW_LEVELn resolved on its node)
  bool write_back = false;  // HW_UNGUIDED: the chosen level goes back into info
  std::string text() const { return directed ? "directed " + asked : "undirected"; }
};

Result<Request> request_of(int split_type, MPI_Info info) {
  Request r;
  std::optional<std::string> named;
  if (split_type == MPIX_COMM_TYPE_HW_DOMAIN) {
    named = info_value(info, MPIX_HW_DOMAIN_TYPE_KEY);
  } else if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
    named = info_value(info, MPIX_HW_RESOURCE_TYPE_KEY);
    if (!named) {
      return Status(Errc::not_found,
                    cat("MPI_COMM_TYPE_HW_GUIDED needs info key '", MPIX_HW_RESOURCE_TYPE_KEY, "' naming a level"));
    }
  } else {  // MPI_COMM_TYPE_HW_UNGUIDED
    r.write_back = true;
  }
  if (named) {
    auto level = level_named(*named);
    if (!level.ok()) return Status(Errc::not_found, level.status().message());
    r.directed = true;
    r.level = *level;
    r.asked = hier::names_level_number(*named) ? std::string(trim(*named)) : *level;
  }
  return r;
}

struct Made {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<hier::Member> members;
  hier::Split split;
  int me = 0;
};

// The split itself: gather places, decide, MPI_Comm_split, remember.
Result<Made> hw_split(MPI_Comm comm, const Result<Request>& req, int key) {
  Made m;
  std::string text = req.ok() ? req->text() : "";
  OSMP_ASSIGN_OR_RETURN(Gathered g, gather(comm, text, req.ok() ? Status() : req.status(), req.ok() ? req->level : ""));
  m.split = req->directed ? hier::split_directed(g.members, g.details) : hier::split_undirected(g.members);
  if (req->directed) m.split.level = req->level;  // each rank's own (MPI_HW_LEVELn may differ by node)
  m.me = g.me;
  const int color = m.split.color[static_cast<std::size_t>(g.me)];
  MPI_Comm_split(comm, color < 0 ? MPI_UNDEFINED : color, key, &m.comm);
  OSMP_RETURN_IF_ERROR(remember_split(comm, g.members, m.comm, m.split.level, m.split.parts,
                                      m.split.index[static_cast<std::size_t>(g.me)]));
  m.members = std::move(g.members);
  return m;
}

bool is_hw_type(int t) {
  return t == MPIX_COMM_TYPE_HW_DOMAIN || t == MPI_COMM_TYPE_HW_GUIDED || t == MPI_COMM_TYPE_HW_UNGUIDED;
}

// Members of a communicator: remembered, or gathered (collective).
Result<Gathered> members_of(MPI_Comm comm) {
  if (const CommRecord* rec = record_of(comm)) {
    Gathered g;
    g.members = rec->members;
    MPI_Comm_rank(comm, &g.me);
    return g;
  }
  OSMP_ASSIGN_OR_RETURN(Gathered g, gather(comm, "members", Status()));
  attach_record(comm, CommRecord{g.members, "", 1, 0});
  return g;
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

}  // namespace
}  // namespace osmp::mpi

using namespace osmp;
using namespace osmp::mpi;

extern "C" {

int MPIX_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  if (!is_hw_type(split_type)) return MPI_Comm_split_type(comm, split_type, key, info, newcomm);
  return guarded(comm, "MPIX_Comm_split_type", [&]() -> Status {
    if (comm == MPI_COMM_NULL) return Status(Errc::invalid_argument, "comm is MPI_COMM_NULL");
    if (newcomm) *newcomm = MPI_COMM_NULL;
    // A bad argument on one rank travels with the exchange: every rank fails alike.
    Result<Request> req =
        newcomm ? request_of(split_type, info) : Result<Request>(Status(Errc::invalid_argument, "newcomm is NULL"));
    OSMP_ASSIGN_OR_RETURN(Made m, hw_split(comm, req, key));
    *newcomm = m.comm;
    if (req->write_back && info != MPI_INFO_NULL && m.comm != MPI_COMM_NULL)
      MPI_Info_set(info, MPIX_HW_RESOURCE_TYPE_KEY, m.split.level.c_str());
    return {};
  });
}

int MPIX_Comm_hsplit_with_roots(MPI_Comm oldcomm, MPI_Info info, MPI_Comm* newcomm, MPI_Comm* rootscomm) {
  return guarded(oldcomm, "MPIX_Comm_hsplit_with_roots", [&]() -> Status {
    if (oldcomm == MPI_COMM_NULL) return Status(Errc::invalid_argument, "oldcomm is MPI_COMM_NULL");
    if (newcomm) *newcomm = MPI_COMM_NULL;
    if (rootscomm) *rootscomm = MPI_COMM_NULL;
    int rank = 0;
    MPI_Comm_rank(oldcomm, &rank);
    Result<Request> req = newcomm && rootscomm
                              ? request_of(MPIX_COMM_TYPE_HW_DOMAIN, info)
                              : Result<Request>(Status(Errc::invalid_argument, "newcomm or rootscomm is NULL"));
    OSMP_ASSIGN_OR_RETURN(Made m, hw_split(oldcomm, req, rank));
    *newcomm = m.comm;
    // Algorithm 2: the rank-0 process of every part joins the roots communicator.
    int newrank = -1;
    if (m.comm != MPI_COMM_NULL) MPI_Comm_rank(m.comm, &newrank);
    MPI_Comm_split(oldcomm, newrank == 0 ? 0 : MPI_UNDEFINED, rank, rootscomm);
    return remember_split(oldcomm, m.members, *rootscomm, m.split.level + " roots", 1, 0);
  });
}

int MPIX_Get_hw_topology_info(int* numlevels, MPI_Info info) {
  return guarded(MPI_COMM_SELF, "MPIX_Get_hw_topology_info", [&]() -> Status {
    if (!numlevels) return Status(Errc::invalid_argument, "numlevels is NULL");
    OSMP_ASSIGN_OR_RETURN(std::vector<std::string> names, levels_here());
    *numlevels = static_cast<int>(names.size());
    if (info != MPI_INFO_NULL)
      for (std::size_t i = 0; i < names.size(); ++i)
        MPI_Info_set(info, cat("MPI_HW_LEVEL", i).c_str(), names[i].c_str());
    return {};
  });
}

int MPIX_Get_hw_domain_info(MPI_Comm comm, int* num_subcomms, int* rank, char** type, MPI_Info info) {
  return guarded(comm, "MPIX_Get_hw_domain_info", [&]() -> Status {
    if (comm == MPI_COMM_NULL) return Status(Errc::invalid_argument, "comm is MPI_COMM_NULL");
    std::string level;
    int parts = 1, index = 0;
    const CommRecord* rec = record_of(comm);
    if (rec && !rec->type.empty()) {
      level = rec->type;
      parts = rec->parts;
      index = rec->index;
    } else {
      OSMP_ASSIGN_OR_RETURN(Gathered g, members_of(comm));
      std::vector<int> all(g.members.size());
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
      OSMP_ASSIGN_OR_RETURN(level, hier::min_domain(g.members, all, g.me));
    }
    if (!num_subcomms || !rank || !type) return Status(Errc::invalid_argument, "an output argument is NULL");
    *num_subcomms = parts;
    *rank = index;
    *type = intern(level);
    if (info != MPI_INFO_NULL)
      for (const auto& [k, v] : hw_info_keys(CommRecord{{}, level, parts, index}))
        MPI_Info_set(info, k.c_str(), v.c_str());
    return {};
  });
}

int MPIX_Get_min_hw_domain(MPI_Comm comm, int size, int* ranks, char** type) {
  return guarded(comm, "MPIX_Get_min_hw_domain", [&]() -> Status {
    // The collective part first, so that a rank with bad arguments never
    // leaves the others waiting.
    OSMP_ASSIGN_OR_RETURN(Gathered g, members_of(comm));
    if (!type) return Status(Errc::invalid_argument, "type is NULL");
    if (size < 0 || (size > 0 && !ranks))
      return Status(Errc::invalid_argument, cat("size = ", size, (size > 0 ? " with ranks NULL" : "")));
    OSMP_ASSIGN_OR_RETURN(
        std::string level,
        hier::min_domain(g.members, std::span<const int>(ranks, static_cast<std::size_t>(size)), g.me));
    *type = intern(level);
    return {};
  });
}

int MPIX_Get_hw_domain_neighbours(MPI_Comm comm, int hops, int metric, MPI_Group* newgroup) {
  return guarded(comm, "MPIX_Get_hw_domain_neighbours", [&]() -> Status {
    OSMP_ASSIGN_OR_RETURN(Gathered g, members_of(comm));  // collective part first, as above
    if (!newgroup) return Status(Errc::invalid_argument, "newgroup is NULL");
    if (hops < 0) return Status(Errc::invalid_argument, cat("hops = ", hops, " (must be >= 0)"));
    if (metric != MPIX_HW_METRIC_TREE && metric != MPIX_HW_METRIC_MEMORY)
      return Status(Errc::invalid_argument,
                    cat("metric = ", metric, " (MPIX_HW_METRIC_TREE or MPIX_HW_METRIC_MEMORY)"));
    std::vector<int> near = hier::neighbours(
        g.members, g.me, hops, metric == MPIX_HW_METRIC_MEMORY ? hier::Metric::memory : hier::Metric::tree);
    MPI_Group group;
    MPI_Comm_group(comm, &group);
    MPI_Group_incl(group, static_cast<int>(near.size()), near.data(), newgroup);
    MPI_Group_free(&group);
    return {};
  });
}

int MPIX_Osmp_error_class(int errorcode) { return standard_class(errorcode); }

}  // extern "C"
