// MPI shared windows (MPI_Win_allocate_shared) as shared regions
// (shm/regions.hpp), for the interposer: every process of the window's
// communicator has mapped every part, so a collective whose buffers lie in a
// window that every rank of its communicator shares takes single copy
// (collectives/ops/direct.cpp), as it does on MPI_Alloc_mem's buffers.
//
// Registering is collective over the window's communicator, like the
// window: the members bring the region numbers they use and whether they
// take part (OSMP_PMPI), take the lowest number free in all, find every
// part with MPI_Win_shared_query, and keep the registration only if every
// member's succeeded (two threads of one process registering two windows at
// once may both pick a number; then one of the windows is not registered on
// any of its members). A window that is not registered is only not
// recognised: its collectives take the areas. The agreement's own MPI calls
// are assumed not to fail on some members only (the MPI's default error
// handler aborts the job when they do; under MPI_ERRORS_RETURN a member
// whose last call failed forgets the window while the others keep it).
#include <unistd.h>

#include <map>
#include <mutex>
#include <vector>

#include "core/log.hpp"
#include "mpi_glue/pmpi/logic.h"
#include "mpi_glue/pmpi/state.hpp"
#include "shm/regions.hpp"

namespace osmp::pmpi {
namespace {

// The region number of each registered window of this process.
struct Windows {
  std::mutex mu;
  std::map<MPI_Win, int> numbers;
};
Windows& windows() {
  static Windows* w = new Windows();  // never destroyed: windows may be freed during static destruction
  return *w;
}

// Registers `win` (just made on comm) on every member or on none.
void register_window(MPI_Comm comm, MPI_Win win) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  SharedRegions& regions = SharedRegions::of_process();
  // The numbers in use, and a last word that is not 0 when some member
  // does not take part or the window has more parts than a word can name.
  constexpr int kWords = static_cast<int>(SharedRegions::Used{}.size());
  std::uint64_t mine[kWords + 1] = {}, all[kWords + 1] = {};
  const SharedRegions::Used used = regions.used();
  std::copy(used.begin(), used.end(), mine);
  mine[kWords] = settings().enabled && static_cast<std::size_t>(size) <= SharedRegions::kMaxParts ? 0 : 1;
  if (PMPI_Allreduce(mine, all, kWords + 1, MPI_UINT64_T, MPI_BOR, comm) != MPI_SUCCESS || all[kWords] != 0) return;
  SharedRegions::Used union_of{};
  std::copy(all, all + kWords, union_of.begin());
  const int number = SharedRegions::lowest_free(union_of);

  std::vector<RegionPart> parts(static_cast<std::size_t>(size));
  bool found = number != 0;
  for (int r = 0; r < size && found; ++r) {
    MPI_Aint bytes = 0;
    int disp = 0;
    void* base = nullptr;
    found = PMPI_Win_shared_query(win, r, &bytes, &disp, &base) == MPI_SUCCESS && bytes >= 0;
    parts[static_cast<std::size_t>(r)] = {static_cast<std::byte*>(base), base ? static_cast<std::size_t>(bytes) : 0};
  }
  const long long pid = ::getpid();
  std::vector<long long> pids(static_cast<std::size_t>(size));
  if (PMPI_Allgather(&pid, 1, MPI_LONG_LONG, pids.data(), 1, MPI_LONG_LONG, comm) != MPI_SUCCESS) return;
  Status st = found ? regions.add(number, std::move(parts), std::vector<pid_t>(pids.begin(), pids.end()))
                    : Status(Errc::invalid_argument, "no free region number, or MPI_Win_shared_query failed");
  int ok = st.ok() ? 1 : 0, all_ok = 0;
  if (PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm) != MPI_SUCCESS) all_ok = 0;
  if (!all_ok) {
    if (ok) regions.remove(number);
    log(LogLevel::debug, "MPI_Win_allocate_shared: the window is not recognised for single copy",
        st.ok() ? std::string(" (another member could not register it)") : cat(" (", st.message(), ")"));
    return;
  }
  std::lock_guard lock(windows().mu);
  windows().numbers[win] = number;
}

}  // namespace
}  // namespace osmp::pmpi

extern "C" int osmp_pmpi_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                             MPI_Win* win) {
  const int rc = PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
  if (rc == MPI_SUCCESS) osmp::pmpi::register_window(comm, *win);
  return rc;
}

extern "C" int osmp_pmpi_win_free(MPI_Win* win) {
  using namespace osmp::pmpi;
  if (win) {
    int number = 0;
    {
      std::lock_guard lock(windows().mu);
      auto it = windows().numbers.find(*win);
      if (it != windows().numbers.end()) {
        number = it->second;
        windows().numbers.erase(it);
      }
    }
    // Before the MPI unmaps it: no collective may offer it from now on.
    osmp::SharedRegions::of_process().remove(number);
  }
  return PMPI_Win_free(win);
}
