// Helpers of the MPI test programs (plain MPI programs: they run with the
// interposer preloaded, with the Open MPI component, or with neither).
#pragma once

#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace mpicheck {

inline int g_rank = 0, g_size = 0, g_fail = 0;

// A communicator under test, with this rank's place in it and its name for messages.
struct Comm {
  MPI_Comm comm;
  int me, n;
  std::string name;
};

inline void fail(const std::string& what) {
  if (g_fail++ < 20) std::fprintf(stderr, "rank %d: FAIL: %s\n", g_rank, what.c_str());
}

inline void expect(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

// Every element equal, or the first that differs reported.
template <class T>
void check_equal(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  if (got.size() != want.size()) return fail(what + ": sizes differ");
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(got[i] == want[i]))
      return fail(what + ": element " + std::to_string(i) + " is " + std::to_string(got[i]) + ", want " +
                  std::to_string(want[i]));
}

// k ints at stride 2, consecutive elements 2k ints apart, committed: a type
// that is packed and unpacked (not a contiguous run of a builtin).
inline MPI_Datatype every_other(int k) {
  MPI_Datatype v, t;
  MPI_Type_vector(k, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, static_cast<MPI_Aint>(2 * k * sizeof(int)), &t);
  MPI_Type_free(&v);
  MPI_Type_commit(&t);
  return t;
}

// v as every_other() lays it out, `gap` between.
inline std::vector<int> spread(const std::vector<int>& v, int gap) {
  std::vector<int> s(2 * v.size(), gap);
  for (std::size_t i = 0; i < v.size(); ++i) s[2 * i] = v[i];
  return s;
}

// The interposer's counters (collectives on osmp / by the MPI), when it is
// preloaded; -1 otherwise (the component keeps them inside Open MPI).
inline long long osmp_calls(int on_osmp) {
  static auto fn = reinterpret_cast<long long (*)(int)>(dlsym(RTLD_DEFAULT, "osmp_pmpi_calls"));
  return fn ? fn(on_osmp) : -1;
}

// OSMP_TEST_ROUTE: "interposer" (counters must move as expected),
// "component" or "none" (they cannot be read).
inline bool counting() {
  const char* r = std::getenv("OSMP_TEST_ROUTE");
  return r && std::string(r) == "interposer";
}

// Whether reductions with predefined ops on derived datatypes (one builtin
// repeated) can be asked here: osmp's interposer runs them; Open MPI 4.1
// refuses them in its argument checks, before its components see the call.
inline bool derived_reductions() {
  if (counting()) return true;
  static int accepted = -1;
  if (accepted < 0) {
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    int in[2] = {1, 2}, io[2] = {3, 4};
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    accepted = MPI_Reduce_local(in, io, 1, two, MPI_SUM) == MPI_SUCCESS && io[0] == 4 && io[1] == 6;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&two);
    if (!accepted && g_rank == 0)
      std::printf("note: this MPI refuses predefined ops on derived datatypes; not asked\n");
  }
  return accepted == 1;
}

// Runs `fn` and checks that it ran on osmp (or by the MPI), where the counters can be read.
template <class F>
void on_route(bool want_osmp, const std::string& what, F&& fn) {
  const long long before = osmp_calls(want_osmp ? 1 : 0);
  fn();
  if (!counting()) return;
  if (osmp_calls(want_osmp ? 1 : 0) <= before)
    fail(what + (want_osmp ? ": did not run on osmp" : ": did not go to the MPI"));
}

inline void start(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (counting() && osmp_calls(1) < 0) fail("OSMP_TEST_ROUTE=interposer but the interposer is not loaded");
}

// Prints "<name> <size> ranks: ok" (or FAILED) on rank 0; returns the exit status.
inline int finish(const char* name) {
  int total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0)
    std::printf("%s %d ranks: %s (rank 0: %lld calls on osmp, %lld by the MPI)\n", name, g_size,
                total ? "FAILED" : "ok", osmp_calls(1), osmp_calls(0));
  std::fflush(stdout);
  MPI_Finalize();
  return total ? 1 : 0;
}

}  // namespace mpicheck
