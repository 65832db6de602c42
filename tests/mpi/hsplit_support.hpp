// Helpers shared by the hierarchical-communicator tests under mpirun
// (hsplit_test.cpp, hsplit_levels_test.cpp): expectations that name the rank,
// communicators as world ranks, the hardware queries.
#pragma once

#include <osmp_mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace hsplit_test {

inline int g_world = 0, g_size = 0, g_failures = 0;

inline void fail(const std::string& what) {
  std::fprintf(stderr, "rank %d: FAIL: %s\n", g_world, what.c_str());
  ++g_failures;
}
inline void expect(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

inline std::string list(const std::vector<int>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "}";
}

// World ranks of comm's members, in comm's rank order; {} for MPI_COMM_NULL.
inline std::vector<int> members(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return {};
  MPI_Group g, w;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &w);
  int n = 0;
  MPI_Group_size(g, &n);
  std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(g, n, in.data(), w, out.data());
  MPI_Group_free(&g);
  MPI_Group_free(&w);
  return out;
}

inline std::vector<int> range(int first, int count) {
  std::vector<int> v;
  for (int i = 0; i < count; ++i) v.push_back(first + i);
  return v;
}

inline void expect_comm(MPI_Comm comm, const std::vector<int>& want, const std::string& what) {
  std::vector<int> got = members(comm);
  if (got != want)
    fail(what + ": got " + (comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : list(got)) + ", want " +
         (want.empty() ? "MPI_COMM_NULL" : list(want)));
}

inline std::string domain_type(MPI_Comm comm, int* parts = nullptr, int* index = nullptr) {
  int n = 0, i = 0;
  char* type = nullptr;
  if (MPIX_Get_hw_domain_info(comm, &n, &i, &type, MPI_INFO_NULL) != MPI_SUCCESS) return "(error)";
  if (parts) *parts = n;
  if (index) *index = i;
  return type;
}

inline MPI_Info info_with(const char* key, const char* value) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, key, value);
  return info;
}

inline const char* const kPaperMachine = "Package:2 [NUMANode] L3Cache:1 L2Cache:2 Core:2 PU:1";

// World ranks within `hops` levels (MPIX_Get_hw_domain_neighbours).
inline std::vector<int> neighbours(MPI_Comm comm, int hops, int metric) {
  MPI_Group g, w;
  if (MPIX_Get_hw_domain_neighbours(comm, hops, metric, &g) != MPI_SUCCESS) return {-1};
  MPI_Comm_group(MPI_COMM_WORLD, &w);
  int n = 0;
  MPI_Group_size(g, &n);
  std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(g, n, in.data(), w, out.data());
  MPI_Group_free(&g);
  MPI_Group_free(&w);
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string info_get(MPI_Info info, const char* key) {
  char value[MPI_MAX_INFO_VAL];
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, value, &flag);
  return flag ? value : "(unset)";
}

inline std::string min_domain(std::vector<int> ranks) {
  char* type = nullptr;
  int rc = MPIX_Get_min_hw_domain(MPI_COMM_WORLD, static_cast<int>(ranks.size()), ranks.data(), &type);
  return rc == MPI_SUCCESS && type ? type : "(error)";
}

inline MPI_Comm directed_split(MPI_Comm comm, const char* level) {
  MPI_Info info = info_with(MPIX_HW_DOMAIN_TYPE_KEY, level);
  MPI_Comm c = MPI_COMM_NULL;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (MPIX_Comm_split_type(comm, MPIX_COMM_TYPE_HW_DOMAIN, rank, info, &c) != MPI_SUCCESS)
    fail(std::string("directed ") + level + ": error");
  MPI_Info_free(&info);
  return c;
}

inline void expect_error(int rc, int mpi_class, const char* text, const std::string& what) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (rc == MPI_SUCCESS) return fail(what + ": no error");
  MPI_Error_string(rc, s, &len);
  expect(MPIX_Osmp_error_class(rc) == mpi_class, what + ": class " + std::to_string(MPIX_Osmp_error_class(rc)));
  expect(std::strstr(s, text) != nullptr, what + ": message '" + s + "' lacks '" + text + "'");
}

// Scenarios of hsplit_levels_test.cpp: memory metric, network levels, info keys.
void memory(const std::string& kind, const std::string& data);
void network();
void network_file(const std::string& data);
void info(bool interposer);

}  // namespace hsplit_test
