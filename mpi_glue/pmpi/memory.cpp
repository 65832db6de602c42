// MPI_Alloc_mem and MPI_Free_mem from osmp's shared heap (shm/heap.hpp), for
// the interposer: an application that allocates its buffers with
// MPI_Alloc_mem gets single-copy collectives (collectives/ops/direct.cpp)
// on every communicator whose node team maps this process's heap, with no
// change to its code. The heap is this process's (every team of the process
// shares it): made on the first allocation, or by the first team, and kept
// until the process exits, since memory from MPI_Alloc_mem may be used up
// to MPI_Finalize. When the heap is off (OSMP_HEAP_SIZE=0, OSMP_PMPI=0) or
// full, the MPI's own allocator serves the call.
#include <cstdlib>
#include <memory>
#include <mutex>

#include "core/env.hpp"
#include "core/log.hpp"
#include "mpi_glue/pmpi/errors.hpp"
#include "mpi_glue/pmpi/logic.h"
#include "mpi_glue/pmpi/state.hpp"
#include "team/heaps.hpp"

namespace osmp::pmpi {
namespace {

constexpr std::size_t kSmallest = 64 * 1024;

// Ranks on this node as the launchers say (Hydra, Open MPI), for the
// default heap size before any team exists; 1 when neither says.
int local_ranks() {
  for (const char* v : {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE"}) {
    auto n = env_int(v, 0, 0, 1 << 24);
    if (n.ok() && *n > 0) return static_cast<int>(*n);
  }
  return 1;
}

// This process's heap (null: off or not possible), made on first use
// (`make`) and kept to the end.
Heap* process_heap(bool make) {
  static std::mutex mu;
  static std::shared_ptr<Heap>* kept = nullptr;  // never freed: memory stays valid to the process's end
  std::lock_guard lock(mu);
  if (kept || !make) return kept ? kept->get() : nullptr;
  auto options = TeamOptions::from_env();
  std::size_t bytes = 0;
  if (options.ok()) {
    bytes = options->heap_bytes ? *options->heap_bytes : default_heap_bytes(shm_dir(), local_ranks());
  } else {
    log(LogLevel::warn, "MPI_Alloc_mem: ", options.status().message(), "; the MPI allocates instead");
  }
  auto h = Heap::of_process(bytes);
  if (!h.ok()) log(LogLevel::warn, "MPI_Alloc_mem: no shared heap (", h.status().message(), ")");
  kept = new std::shared_ptr<Heap>(h.ok() ? *h : nullptr);
  return kept->get();
}

}  // namespace
}  // namespace osmp::pmpi

extern "C" int osmp_pmpi_alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  using namespace osmp::pmpi;
  // Small blocks stay the MPI's: single copy starts past the areas (64 KiB),
  // and a heap block takes a page at least.
  if (settings().enabled && size >= static_cast<MPI_Aint>(kSmallest)) {
    if (osmp::Heap* h = process_heap(true)) {
      auto p = h->allocate(static_cast<std::size_t>(size));
      if (p.ok()) {
        *static_cast<void**>(baseptr) = *p;
        return MPI_SUCCESS;
      }
      osmp::log(osmp::LogLevel::debug, "MPI_Alloc_mem: ", p.status().message(), "; the MPI allocates instead");
    }
  }
  return PMPI_Alloc_mem(size, info, baseptr);
}

extern "C" int osmp_pmpi_free_mem(void* base) {
  using namespace osmp::pmpi;
  osmp::Heap* h = process_heap(false);
  if (!h || !h->contains(base)) return PMPI_Free_mem(base);
  osmp::Status st = h->free(base);
  if (st.ok()) return MPI_SUCCESS;
  return deliver(MPI_COMM_WORLD, "MPI_Free_mem", class_of(st.code()), st.message());
}
