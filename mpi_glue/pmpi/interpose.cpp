// libosmp_pmpi: the MPI_ entry points, for LD_PRELOAD (or linking before the
// MPI library); each hands its call to logic.cpp, which uses PMPI_ itself.
#include <dlfcn.h>
#include <mpi.h>
#include <sched.h>

#include <type_traits>

#include "mpi_glue/pmpi/errors.hpp"
#include "mpi_glue/pmpi/logic.h"

namespace {
// Being the MPI_ functions, the interposer hands its errors to the
// communicator's handler itself (errors.hpp).
[[maybe_unused]] const bool kRaises = (osmp::pmpi::set_raise(true), true);

// While osmp waits (every few tens of microseconds of waiting): the calls
// pending on osmp, and the MPI's own progress, which a probe drives in both
// MPIs, so that a peer waiting for this rank's point-to-point traffic (a
// large MPI_Isend) before it reaches the collective gets it.
void mpi_progress() {
  int up = 0, down = 0;
  PMPI_Initialized(&up);
  PMPI_Finalized(&down);
  if (!up || down) return;
  osmp_pmpi_progress();
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}
[[maybe_unused]] const bool kProgresses = (osmp_pmpi_set_progress_hook(mpi_progress), true);

// A wait while non-blocking calls on osmp are pending (nonblocking.cpp):
// they move on only in osmp_pmpi_progress(), so the wait polls it and the
// MPI's own test in turn, never blocking in either, until `test` says done.
template <class Test>
int wait_until(Test&& test) {
  for (unsigned idle = 0;;) {
    const int moved = osmp_pmpi_progress();
    int flag = 0;
    const int rc = test(&flag);
    if (rc != MPI_SUCCESS || flag) return rc;
    if (moved) {
      idle = 0;
    } else if (++idle % 64 == 0) {
      sched_yield();
    }
  }
}
}  // namespace

extern "C" {

// The collectives, MPI_<Name> and MPI_I<name>, one pair per row of
// osmp_ops.h (entries.h); each hands its call to logic.cpp. mpi.h declares
// both, so a signature that differs from MPI's does not compile, and a
// name MPI lacks (a typo in the row) fails the assertion: a definition
// without a declaration would intercept nothing.
#define OSMP_INTERPOSE_(name, Name, NAME, key, rooted, reduces, form)             \
  static_assert(std::is_same_v<decltype(&MPI_##Name), decltype(&PMPI_##Name)> &&  \
                std::is_same_v<decltype(&MPI_I##name), decltype(&PMPI_I##name)>); \
  int MPI_##Name(OSMP_MPI_PARAMS(form, rooted, reduces)) {                        \
    return osmp_pmpi_##name(OSMP_MPI_ARGS(form, rooted, reduces));                \
  }                                                                               \
  int MPI_I##name(OSMP_MPI_PARAMS(form, rooted, reduces), MPI_Request* req) {     \
    return osmp_pmpi_i##name(OSMP_MPI_ARGS(form, rooted, reduces), req);          \
  }
OSMP_COLLECTIVES(OSMP_INTERPOSE_)
#undef OSMP_INTERPOSE_

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) { return osmp_pmpi_alloc_mem(size, info, baseptr); }
int MPI_Free_mem(void* base) { return osmp_pmpi_free_mem(base); }
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return osmp_pmpi_win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
}
int MPI_Win_free(MPI_Win* win) { return osmp_pmpi_win_free(win); }

// Completion: with nothing pending on osmp, straight to the MPI.
int MPI_Wait(MPI_Request* r, MPI_Status* s) {
  if (osmp_pmpi_pending() == 0) return PMPI_Wait(r, s);
  return wait_until([&](int* flag) { return PMPI_Test(r, flag, s); });
}
int MPI_Waitall(int n, MPI_Request* rs, MPI_Status* ss) {
  if (osmp_pmpi_pending() == 0) return PMPI_Waitall(n, rs, ss);
  return wait_until([&](int* flag) { return PMPI_Testall(n, rs, flag, ss); });
}
int MPI_Waitany(int n, MPI_Request* rs, int* index, MPI_Status* s) {
  if (osmp_pmpi_pending() == 0) return PMPI_Waitany(n, rs, index, s);
  return wait_until([&](int* flag) { return PMPI_Testany(n, rs, index, flag, s); });
}
int MPI_Waitsome(int n, MPI_Request* rs, int* outcount, int* indices, MPI_Status* ss) {
  if (osmp_pmpi_pending() == 0) return PMPI_Waitsome(n, rs, outcount, indices, ss);
  return wait_until([&](int* flag) {
    const int rc = PMPI_Testsome(n, rs, outcount, indices, ss);
    *flag = *outcount != 0;  // some completed, or none was active (MPI_UNDEFINED)
    return rc;
  });
}
int MPI_Test(MPI_Request* r, int* flag, MPI_Status* s) {
  osmp_pmpi_progress();
  return PMPI_Test(r, flag, s);
}
int MPI_Testall(int n, MPI_Request* rs, int* flag, MPI_Status* ss) {
  osmp_pmpi_progress();
  return PMPI_Testall(n, rs, flag, ss);
}
int MPI_Testany(int n, MPI_Request* rs, int* index, int* flag, MPI_Status* s) {
  osmp_pmpi_progress();
  return PMPI_Testany(n, rs, index, flag, s);
}
int MPI_Testsome(int n, MPI_Request* rs, int* outcount, int* indices, MPI_Status* ss) {
  osmp_pmpi_progress();
  return PMPI_Testsome(n, rs, outcount, indices, ss);
}
int MPI_Request_free(MPI_Request* r) { return osmp_pmpi_request_free(r); }
int MPI_Request_get_status(MPI_Request r, int* flag, MPI_Status* s) {
  osmp_pmpi_progress();
  return PMPI_Request_get_status(r, flag, s);
}
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  int rc = PMPI_Comm_set_info(comm, info);
  return rc == MPI_SUCCESS ? osmp_pmpi_set_info(comm, info) : rc;
}
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
  if (rc == MPI_SUCCESS) osmp_pmpi_created_with(*newcomm, info);
  return rc;
}
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* newcomm) {
  int rc = PMPI_Comm_split_type(comm, type, key, info, newcomm);
  if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) osmp_pmpi_created_with(*newcomm, info);
  return rc;
}
// The next MPI_Comm_get_info, not PMPI's: libosmp_mpi wraps it too (the
// hardware level of its communicators), and both must run.
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info) {
  using GetInfo = int (*)(MPI_Comm, MPI_Info*);
  static const GetInfo next = [] {
    void* f = dlsym(RTLD_NEXT, "MPI_Comm_get_info");
    return f ? reinterpret_cast<GetInfo>(f) : &PMPI_Comm_get_info;
  }();
  int rc = next(comm, info);
  if (rc == MPI_SUCCESS) osmp_pmpi_get_info(comm, *info);
  return rc;
}
int MPI_Finalize(void) {
  osmp_pmpi_finalize();
  return PMPI_Finalize();
}

}  // extern "C"
