// The node leaders' MPI calls per osmp call across simulated nodes (CTest
// label mpi, the interposer and the Open MPI component:
// osmp_pmpi_leader_calls counts every MPI call among the leaders). With OSMP_CHECK=lazy (the default) the leaders run
// exactly the MPI's own collective: one call per osmp call on every leader,
// none elsewhere, for every operation at every size (gatherv, scatterv and
// alltoallv, whose leaders still agree on the nodes' sizes, are printed,
// not held to one). With OSMP_CHECK=strict the agreement comes first: one
// or two calls (the data rides in it where it fits). A user op, which
// every node hands to the MPI, makes none. The results are checked too
// (the v-variants' by the coll tests), so that a flow that skipped its
// leaders' call fails.
//
// usage: leaders_test   (prints "leaders N ranks: ok" and a line per case)
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mpi_check.hpp"

using namespace mpicheck;

namespace {

// The counter: the preloaded interposer's, or the coll/osmp component's
// (Open MPI opens its components with their symbols global).
long long leader_calls() {
  static auto fn = reinterpret_cast<long long (*)()>(dlsym(RTLD_DEFAULT, "osmp_pmpi_leader_calls"));
  if (!fn) fail("osmp_pmpi_leader_calls not found: neither the interposer nor the coll/osmp component is loaded");
  return fn ? fn() : -1;
}

bool strict() {
  const char* c = std::getenv("OSMP_CHECK");
  return c && std::strcmp(c, "strict") == 0;
}

int nodes() {
  const char* rpn = std::getenv("OSMP_SIM_RANKS_PER_NODE");
  const int per = rpn ? std::atoi(rpn) : 0;
  return per > 0 ? (g_size + per - 1) / per : 1;
}

// Runs `call` once on every rank; its leaders' MPI calls here, the most on
// any rank, and how many ranks made any.
void count(const std::string& what, bool one, const std::function<void()>& call) {
  MPI_Barrier(MPI_COMM_WORLD);
  const long long before = leader_calls();
  call();
  const long long mine = leader_calls() - before;
  long long most = 0, fewest = 0;
  int leads = mine > 0 ? 1 : 0, ranks = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  const long long as_leader = mine > 0 ? mine : most;  // the non-leaders' zero left out
  MPI_Allreduce(&as_leader, &fewest, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&leads, &ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("leaders' MPI calls: %-34s %lld (on %d ranks)\n", what.c_str(), most, ranks);
  if (ranks != nodes())
    fail(what + ": " + std::to_string(ranks) + " ranks made leaders' calls, want every node's leader");
  if (fewest != most) fail(what + ": the leaders made different numbers of calls");
  if (!one) return;
  const long long want_most = strict() ? 2 : 1;
  if (most < 1 || most > want_most) fail(what + ": " + std::to_string(most) + " leaders' MPI calls");
}

void run(int n) {
  const std::string at = " " + std::to_string(n * sizeof(int)) + " B";
  const int N = g_size;
  std::vector<int> a(static_cast<std::size_t>(n) * N), b(a.size()), want(a.size());
  auto fill = [&] {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = g_rank * 1000 + static_cast<int>(i % 997);
    std::fill(b.begin(), b.end(), -1);
  };
  auto of = [&](int r, std::size_t i) { return r * 1000 + static_cast<int>(i % 997); };
  if (n == 1) count("barrier", true, [&] { MPI_Barrier(MPI_COMM_WORLD); });
  fill();
  count("bcast" + at, true, [&] { MPI_Bcast(a.data(), n, MPI_INT, N - 1, MPI_COMM_WORLD); });
  for (int i = 0; i < n; ++i)
    expect(a[static_cast<std::size_t>(i)] == of(N - 1, static_cast<std::size_t>(i)), "bcast" + at);
  fill();
  count("allreduce" + at, true, [&] { MPI_Allreduce(a.data(), b.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD); });
  for (int i = 0; i < n; ++i) {
    long long s = 0;
    for (int r = 0; r < N; ++r) s += of(r, static_cast<std::size_t>(i));
    expect(b[static_cast<std::size_t>(i)] == static_cast<int>(s), "allreduce" + at);
  }
  fill();
  count("reduce" + at, true, [&] { MPI_Reduce(a.data(), b.data(), n, MPI_INT, MPI_MAX, 1, MPI_COMM_WORLD); });
  if (g_rank == 1)
    for (int i = 0; i < n; ++i)
      expect(b[static_cast<std::size_t>(i)] == of(N - 1, static_cast<std::size_t>(i)), "reduce" + at);
  fill();
  count("gather" + at, true, [&] { MPI_Gather(a.data(), n, MPI_INT, b.data(), n, MPI_INT, 0, MPI_COMM_WORLD); });
  if (g_rank == 0)
    for (int r = 0; r < N; ++r)
      for (int i = 0; i < n; ++i)
        expect(b[static_cast<std::size_t>(r * n + i)] == of(r, static_cast<std::size_t>(i)), "gather" + at);
  fill();
  count("scatter" + at, true, [&] { MPI_Scatter(a.data(), n, MPI_INT, b.data(), n, MPI_INT, N - 1, MPI_COMM_WORLD); });
  for (int i = 0; i < n; ++i)
    expect(b[static_cast<std::size_t>(i)] == of(N - 1, static_cast<std::size_t>(g_rank * n + i)), "scatter" + at);
  fill();
  count("allgather" + at, true, [&] { MPI_Allgather(a.data(), n, MPI_INT, b.data(), n, MPI_INT, MPI_COMM_WORLD); });
  for (int r = 0; r < N; ++r)
    for (int i = 0; i < n; ++i)
      expect(b[static_cast<std::size_t>(r * n + i)] == of(r, static_cast<std::size_t>(i)), "allgather" + at);
  fill();
  count("alltoall" + at, true, [&] { MPI_Alltoall(a.data(), n, MPI_INT, b.data(), n, MPI_INT, MPI_COMM_WORLD); });
  for (int r = 0; r < N; ++r)
    for (int i = 0; i < n; ++i)
      expect(b[static_cast<std::size_t>(r * n + i)] == of(r, static_cast<std::size_t>(g_rank * n + i)),
             "alltoall" + at);
  fill();
  count("scan" + at, true, [&] { MPI_Scan(a.data(), b.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD); });
  for (int i = 0; i < n; ++i) {
    long long s = 0;
    for (int r = 0; r <= g_rank; ++r) s += of(r, static_cast<std::size_t>(i));
    expect(b[static_cast<std::size_t>(i)] == static_cast<int>(s), "scan" + at);
  }
  fill();
  count("exscan" + at, true, [&] { MPI_Exscan(a.data(), b.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD); });
  for (int i = 0; i < n && g_rank > 0; ++i) {
    long long s = 0;
    for (int r = 0; r < g_rank; ++r) s += of(r, static_cast<std::size_t>(i));
    expect(b[static_cast<std::size_t>(i)] == static_cast<int>(s), "exscan" + at);
  }
  fill();
  count("reduce_scatter_block" + at, true,
        [&] { MPI_Reduce_scatter_block(a.data(), b.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD); });
  for (int i = 0; i < n; ++i) {
    long long s = 0;
    for (int r = 0; r < N; ++r) s += of(r, static_cast<std::size_t>(g_rank * n + i));
    expect(b[static_cast<std::size_t>(i)] == static_cast<int>(s), "reduce_scatter_block" + at);
  }
  std::vector<int> counts(static_cast<std::size_t>(N), n), displs(static_cast<std::size_t>(N));
  for (int r = 0; r < N; ++r) displs[static_cast<std::size_t>(r)] = r * n;
  fill();
  count("reduce_scatter" + at, true,
        [&] { MPI_Reduce_scatter(a.data(), b.data(), counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD); });
  for (int i = 0; i < n; ++i) {
    long long s = 0;
    for (int r = 0; r < N; ++r) s += of(r, static_cast<std::size_t>(g_rank * n + i));
    expect(b[static_cast<std::size_t>(i)] == static_cast<int>(s), "reduce_scatter" + at);
  }
  fill();
  count("allgatherv" + at, true,
        [&] { MPI_Allgatherv(a.data(), n, MPI_INT, b.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD); });
  for (int r = 0; r < N; ++r)
    for (int i = 0; i < n; ++i)
      expect(b[static_cast<std::size_t>(r * n + i)] == of(r, static_cast<std::size_t>(i)), "allgatherv" + at);
  // Their leaders agree on the nodes' sizes first: printed, not held to one.
  fill();
  count("gatherv" + at, false,
        [&] { MPI_Gatherv(a.data(), n, MPI_INT, b.data(), counts.data(), displs.data(), MPI_INT, 0, MPI_COMM_WORLD); });
  fill();
  count("scatterv" + at, false, [&] {
    MPI_Scatterv(a.data(), counts.data(), displs.data(), MPI_INT, b.data(), n, MPI_INT, 0, MPI_COMM_WORLD);
  });
  fill();
  count("alltoallv" + at, false, [&] {
    MPI_Alltoallv(a.data(), counts.data(), displs.data(), MPI_INT, b.data(), counts.data(), displs.data(), MPI_INT,
                  MPI_COMM_WORLD);
  });
}

void add_ints(void* in, void* io, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(io)[i] += static_cast<int*>(in)[i];
}

// A user op: every node hands the call to the MPI, no leaders' call at all
// (lazily not even the node's word from its leader).
void user_op() {
  MPI_Op user;
  MPI_Op_create(add_ints, 1, &user);
  int x = g_rank + 1, y = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const long long before = leader_calls();
  MPI_Allreduce(&x, &y, 1, MPI_INT, user, MPI_COMM_WORLD);
  const long long mine = leader_calls() - before;
  long long most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("leaders' MPI calls: %-34s %lld\n", "allreduce, user op", most);
  expect(y == g_size * (g_size + 1) / 2, "allreduce with a user op: wrong sum");
  if (most != (strict() ? 1 : 0)) fail("allreduce with a user op: " + std::to_string(most) + " leaders' MPI calls");
  MPI_Op_free(&user);
}

}  // namespace

int main(int argc, char** argv) {
  start(&argc, &argv);
  for (int n : {1, 256, 16384}) run(n);  // 4 B, 1 KiB, 64 KiB per rank
  user_op();
  return finish("leaders");
}
