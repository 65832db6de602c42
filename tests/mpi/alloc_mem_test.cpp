// Collectives on buffers from MPI_Alloc_mem and from MPI shared windows
// through the interposer (label mpi), which serves the first from osmp's
// shared heap and registers the second as shared regions: every operation
// at a size past the areas, rooted ones at two roots, in place where MPI
// allows it, results checked element by element, and the calls osmp ran by
// single copy counted. Modes:
//   all       every rank's buffers from MPI_Alloc_mem (single copy: the run
//             fails when none was)
//   mixed     only the even ranks' (the others malloc)
//   window    every buffer in an MPI_Win_allocate_shared window on
//             MPI_COMM_WORLD, in the part of the next rank (so that the part
//             a buffer lies in is not its rank's; single copy required)
//   window-split  windows on two halves of MPI_COMM_WORLD: no rank's readers
//             all share its window, so the calls take the areas (and stay
//             right)
//
// usage: alloc_mem_test all|mixed|window|window-split
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int g_rank = 0, g_size = 0, g_fail = 0;
enum class Mode { all, mixed, window, window_split } g_mode = Mode::all;
const char* g_mode_name = "all";
MPI_Comm g_half = MPI_COMM_NULL;  // window-split: this rank's half

void fail(const std::string& what) {
  if (g_fail++ < 20) std::fprintf(stderr, "rank %d: FAIL: %s\n", g_rank, what.c_str());
}

// A buffer of n ints, from MPI_Alloc_mem, malloc or a shared window (made
// and freed collectively: every rank makes its buffers in the same order).
struct Buf {
  int* p = nullptr;
  bool mpi = false;
  MPI_Win win = MPI_WIN_NULL;
  explicit Buf(std::size_t n) {
    const auto bytes = static_cast<MPI_Aint>(n * sizeof(int) + 64);
    if (g_mode == Mode::window || g_mode == Mode::window_split) {
      MPI_Comm on = g_mode == Mode::window ? MPI_COMM_WORLD : g_half;
      void* mine = nullptr;
      if (MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, on, &mine, &win) != MPI_SUCCESS)
        fail("MPI_Win_allocate_shared");
      int size = 0, rank = 0, disp = 0;
      MPI_Comm_size(on, &size);
      MPI_Comm_rank(on, &rank);
      MPI_Aint got = 0;
      if (MPI_Win_shared_query(win, (rank + 1) % size, &got, &disp, &p) != MPI_SUCCESS || got != bytes)
        fail("MPI_Win_shared_query");
      return;
    }
    mpi = g_mode == Mode::all || g_rank % 2 == 0;
    if (mpi) {
      if (MPI_Alloc_mem(bytes, MPI_INFO_NULL, &p) != MPI_SUCCESS) fail("MPI_Alloc_mem");
    } else {
      p = static_cast<int*>(std::malloc(static_cast<std::size_t>(bytes)));
    }
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  ~Buf() {
    if (win != MPI_WIN_NULL) {
      if (MPI_Win_free(&win) != MPI_SUCCESS) fail("MPI_Win_free");
    } else if (mpi) {
      if (MPI_Free_mem(p) != MPI_SUCCESS) fail("MPI_Free_mem");
    } else {
      std::free(p);
    }
  }
};

int value(int rank, std::size_t i) { return static_cast<int>((static_cast<std::size_t>(rank) * 131 + i * 7) % 1009); }

void expect(const int* got, std::size_t n, int (*want)(std::size_t, int), int arg, const char* what) {
  for (std::size_t i = 0; i < n; ++i) {
    if (got[i] != want(i, arg)) {
      fail(std::string(what) + ": element " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " +
           std::to_string(want(i, arg)));
      return;
    }
  }
}

int sum_at(std::size_t i, int) {
  int s = 0;
  for (int r = 0; r < g_size; ++r) s += value(r, i);
  return s;
}
int of_rank(std::size_t i, int r) { return value(r, i); }

void run(std::size_t n) {
  const std::size_t all = n * static_cast<std::size_t>(g_size);
  for (int root : {0, g_size - 1}) {
    {  // bcast
      Buf b(n);
      for (std::size_t i = 0; i < n; ++i) b.p[i] = g_rank == root ? value(root, i) : -1;
      MPI_Bcast(b.p, static_cast<int>(n), MPI_INT, root, MPI_COMM_WORLD);
      expect(b.p, n, of_rank, root, "bcast");
    }
    for (bool in_place : {false, true}) {  // reduce
      Buf s(n), r(n);
      for (std::size_t i = 0; i < n; ++i) (in_place && g_rank == root ? r.p : s.p)[i] = value(g_rank, i);
      MPI_Reduce(in_place && g_rank == root ? MPI_IN_PLACE : s.p, r.p, static_cast<int>(n), MPI_INT, MPI_SUM, root,
                 MPI_COMM_WORLD);
      if (g_rank == root) expect(r.p, n, sum_at, 0, in_place ? "reduce in place" : "reduce");
    }
    {  // gather
      Buf s(n), r(all);
      for (std::size_t i = 0; i < n; ++i) s.p[i] = value(g_rank, i);
      MPI_Gather(s.p, static_cast<int>(n), MPI_INT, r.p, static_cast<int>(n), MPI_INT, root, MPI_COMM_WORLD);
      if (g_rank == root)
        for (int q = 0; q < g_size; ++q) expect(r.p + static_cast<std::size_t>(q) * n, n, of_rank, q, "gather");
    }
    {  // scatter
      Buf s(all), r(n);
      for (int q = 0; q < g_size; ++q)
        for (std::size_t i = 0; i < n; ++i) s.p[static_cast<std::size_t>(q) * n + i] = value(q, i);
      MPI_Scatter(s.p, static_cast<int>(n), MPI_INT, r.p, static_cast<int>(n), MPI_INT, root, MPI_COMM_WORLD);
      expect(r.p, n, of_rank, g_rank, "scatter");
    }
  }
  for (bool in_place : {false, true}) {
    {  // allreduce
      Buf s(n), r(n);
      for (std::size_t i = 0; i < n; ++i) (in_place ? r.p : s.p)[i] = value(g_rank, i);
      MPI_Allreduce(in_place ? MPI_IN_PLACE : s.p, r.p, static_cast<int>(n), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      expect(r.p, n, sum_at, 0, in_place ? "allreduce in place" : "allreduce");
    }
    {  // allgather
      Buf s(n), r(all);
      int* mine = in_place ? r.p + static_cast<std::size_t>(g_rank) * n : s.p;
      for (std::size_t i = 0; i < n; ++i) mine[i] = value(g_rank, i);
      MPI_Allgather(in_place ? MPI_IN_PLACE : s.p, static_cast<int>(n), MPI_INT, r.p, static_cast<int>(n), MPI_INT,
                    MPI_COMM_WORLD);
      for (int q = 0; q < g_size; ++q) expect(r.p + static_cast<std::size_t>(q) * n, n, of_rank, q, "allgather");
    }
  }
  {  // reduce_scatter_block
    Buf s(all), r(n);
    for (int q = 0; q < g_size; ++q)
      for (std::size_t i = 0; i < n; ++i)
        s.p[static_cast<std::size_t>(q) * n + i] = value(g_rank, static_cast<std::size_t>(q) * n + i);
    MPI_Reduce_scatter_block(s.p, r.p, static_cast<int>(n), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (std::size_t i = 0; i < n; ++i) {
      const int want = sum_at(static_cast<std::size_t>(g_rank) * n + i, 0);
      if (r.p[i] != want) {
        fail("reduce_scatter_block: element " + std::to_string(i) + " is " + std::to_string(r.p[i]));
        break;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The window modes run without osmp's heap (and so without staging plain
  // buffers through it): single copy there comes from the windows alone.
  if (argc > 1 && std::strncmp(argv[1], "window", 6) == 0) setenv("OSMP_HEAP_SIZE", "0", 1);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const char* names[] = {"all", "mixed", "window", "window-split"};
  for (int m = 0; m < 4; ++m) {
    if (argc > 1 && std::strcmp(argv[1], names[m]) == 0) {
      g_mode = static_cast<Mode>(m);
      g_mode_name = names[m];
    }
  }
  MPI_Comm_split(MPI_COMM_WORLD, g_rank < g_size / 2, g_rank, &g_half);
  run((1u << 18) + 5);  // 1 MiB + 20 bytes of ints per rank
  run(40000);           // 160 KB: past the areas, under the CMA threshold
  auto copies = reinterpret_cast<long long (*)(void)>(dlsym(RTLD_DEFAULT, "osmp_pmpi_single_copies"));
  long long mine = copies ? copies() : -1, least = 0, most = 0;
  MPI_Allreduce(&mine, &least, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if ((g_mode == Mode::all || g_mode == Mode::window) && least <= 0)
    fail("no call ran by single copy (is the interposer loaded?)");
  if (g_mode == Mode::window_split && most != 0) fail("single copy on windows that not every rank of the call shares");
  MPI_Comm_free(&g_half);
  int total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0)
    std::printf("alloc_mem %s %d ranks: %s (%lld single copies on rank 0)\n", g_mode_name, g_size,
                total ? "FAILED" : "ok", mine);
  MPI_Finalize();
  return total ? 1 : 0;
}
