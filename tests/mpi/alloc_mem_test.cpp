// Collectives on buffers from MPI_Alloc_mem through the interposer (label
// mpi), which serves them from osmp's shared heap: every operation at a size
// past the areas, rooted ones at two roots, in place where MPI allows it,
// with every rank's buffers from MPI_Alloc_mem ("all") or only the even
// ranks' ("mixed", the others malloc): results checked element by element,
// and the calls osmp ran by single copy counted (all: every one; the run
// fails when none was).
//
// usage: alloc_mem_test all|mixed
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int g_rank = 0, g_size = 0, g_fail = 0;
bool g_mixed = false;

void fail(const std::string& what) {
  if (g_fail++ < 20) std::fprintf(stderr, "rank %d: FAIL: %s\n", g_rank, what.c_str());
}

// A buffer of n ints, from MPI_Alloc_mem unless this rank mixes in malloc.
struct Buf {
  int* p = nullptr;
  bool mpi = false;
  explicit Buf(std::size_t n) {
    mpi = !g_mixed || g_rank % 2 == 0;
    if (mpi) {
      if (MPI_Alloc_mem(static_cast<MPI_Aint>(n * sizeof(int) + 64), MPI_INFO_NULL, &p) != MPI_SUCCESS) fail("MPI_Alloc_mem");
    } else {
      p = static_cast<int*>(std::malloc(n * sizeof(int) + 64));
    }
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  ~Buf() {
    if (mpi && MPI_Free_mem(p) != MPI_SUCCESS) fail("MPI_Free_mem");
    if (!mpi) std::free(p);
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
      for (std::size_t i = 0; i < n; ++i) s.p[static_cast<std::size_t>(q) * n + i] = value(g_rank, static_cast<std::size_t>(q) * n + i);
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
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_mixed = argc > 1 && std::strcmp(argv[1], "mixed") == 0;
  run((1u << 18) + 5);  // 1 MiB + 20 bytes of ints per rank
  run(40000);           // 160 KB: past the areas, under the CMA threshold
  auto copies = reinterpret_cast<long long (*)(void)>(dlsym(RTLD_DEFAULT, "osmp_pmpi_single_copies"));
  long long mine = copies ? copies() : -1, least = 0;
  MPI_Allreduce(&mine, &least, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  if (!g_mixed && least <= 0) fail("no call ran by single copy through the heap (is the interposer loaded?)");
  int total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0)
    std::printf("alloc_mem %s %d ranks: %s (%lld single copies on rank 0)\n", g_mixed ? "mixed" : "all", g_size,
                total ? "FAILED" : "ok", mine);
  MPI_Finalize();
  return total ? 1 : 0;
}
