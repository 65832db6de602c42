// Communicators as applications make them (CTest label mpi): loops that
// dup, split and free (osmp gives a freed communicator's team to the next
// one over the same processes, mpi_glue/pmpi/reuse.hpp), splits with every
// rank its own color, two colors, a reversed order, communicators alive at
// once and used interleaved, freed in another order than made; every
// collective checked element by element on every communicator.
//
// usage: comms_test [ALIVE]   (ALIVE communicators alive at once, default 200)
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "mpi_check.hpp"

using namespace mpicheck;

namespace {

std::string cat_name(const char* what, const char* shape) { return std::string(what) + " (" + shape + ")"; }

Comm comm_of(MPI_Comm c, const std::string& name) {
  Comm x{c, 0, 0, name};
  MPI_Comm_rank(c, &x.me);
  MPI_Comm_size(c, &x.n);
  return x;
}

// Who comm's ranks are, as world ranks in comm's order (what the
// collectives below must find).
std::vector<int> world_of(const Comm& c) {
  int me = g_rank;
  std::vector<int> all(static_cast<std::size_t>(c.n));
  MPI_Allgather(&me, 1, MPI_INT, all.data(), 1, MPI_INT, c.comm);
  return all;
}

// A few collectives whose results depend on who each rank is: sums,
// a broadcast from the last rank, the order of everyone's world ranks.
void use(const Comm& c, int salt, const std::vector<int>& world) {
  const std::string what = c.name + " #" + std::to_string(salt);
  const int k = 1 + salt % 5;
  std::vector<long long> in(static_cast<std::size_t>(k)), out(in.size(), -1), want(in.size(), 0);
  for (int j = 0; j < k; ++j) {
    in[static_cast<std::size_t>(j)] = (g_rank + 1) * 1000 + j + salt;
    for (int w : world) want[static_cast<std::size_t>(j)] += (w + 1) * 1000 + j + salt;
  }
  MPI_Allreduce(in.data(), out.data(), k, MPI_LONG_LONG, MPI_SUM, c.comm);
  check_equal(out, want, what + ": allreduce");
  int b = c.me == c.n - 1 ? salt * 7 + g_rank : -1;
  MPI_Bcast(&b, 1, MPI_INT, c.n - 1, c.comm);
  expect(b == salt * 7 + world.back(), what + ": bcast from the last rank gave " + std::to_string(b));
  std::vector<int> order(static_cast<std::size_t>(c.n), -1);
  int me = g_rank + salt;
  MPI_Allgather(&me, 1, MPI_INT, order.data(), 1, MPI_INT, c.comm);
  std::vector<int> want_order = world;
  for (int& w : want_order) w += salt;
  check_equal(order, want_order, what + ": allgather");
  long long r = -1, mine = c.me + salt;
  MPI_Reduce(&mine, &r, 1, MPI_LONG_LONG, MPI_MAX, 0, c.comm);
  if (c.me == 0) expect(r == c.n - 1 + salt, what + ": reduce max gave " + std::to_string(r));
  MPI_Barrier(c.comm);
}

void use(const Comm& c, int salt) { use(c, salt, world_of(c)); }

// The shapes a loop makes: the world's dup, two colors, every rank alone,
// the world in reverse.
MPI_Comm make(int shape) {
  MPI_Comm c = MPI_COMM_NULL;
  switch (shape) {
    case 0: MPI_Comm_dup(MPI_COMM_WORLD, &c); break;
    case 1: MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &c); break;
    case 2: MPI_Comm_split(MPI_COMM_WORLD, g_rank, 0, &c); break;
    default: MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &c); break;
  }
  return c;
}
const char* const kShapes[] = {"dup", "two colors", "own color", "reversed"};

// Create, use, free, over and over, each shape and all of them in turn.
void loops() {
  for (int shape = 0; shape < 4; ++shape)
    for (int i = 0; i < 25; ++i) {
      MPI_Comm c = make(shape);
      use(comm_of(c, cat_name("loop", kShapes[shape])), i);
      MPI_Comm_free(&c);
    }
  for (int i = 0; i < 40; ++i) {
    MPI_Comm c = make(i % 4);
    use(comm_of(c, cat_name("mixed loop", kShapes[i % 4])), i);
    MPI_Comm_free(&c);
  }
}

// Several alive, used interleaved, freed out of order, new ones made
// between the frees (they may take the freed ones' teams).
void interleaved() {
  std::vector<MPI_Comm> c(6, MPI_COMM_NULL);
  for (int round = 0; round < 10; ++round) {
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c[i] == MPI_COMM_NULL) c[i] = make(static_cast<int>(i % 4));
    for (int pass = 0; pass < 3; ++pass)
      for (std::size_t j = 0; j < c.size(); ++j) {
        const std::size_t i = (j * 5 + static_cast<std::size_t>(pass)) % c.size();
        use(comm_of(c[i], cat_name("interleaved", kShapes[i % 4])), round * 10 + pass);
      }
    MPI_Comm_free(&c[static_cast<std::size_t>(round) % c.size()]);
    MPI_Comm_free(&c[(static_cast<std::size_t>(round) + 3) % c.size()]);
  }
  for (MPI_Comm& x : c)
    if (x != MPI_COMM_NULL) MPI_Comm_free(&x);
}

// `n` alive at once, of every shape: each used when made and again once
// all are there, newest first; then all freed.
void alive(int n) {
  std::vector<MPI_Comm> c(static_cast<std::size_t>(n));
  std::vector<std::vector<int>> world(c.size());
  for (int i = 0; i < n; ++i) {
    c[static_cast<std::size_t>(i)] = make(i % 4);
    Comm x = comm_of(c[static_cast<std::size_t>(i)], cat_name("alive", kShapes[i % 4]));
    world[static_cast<std::size_t>(i)] = world_of(x);
    use(x, i, world[static_cast<std::size_t>(i)]);
  }
  for (int j = n - 1; j >= 0; --j)
    use(comm_of(c[static_cast<std::size_t>(j)], cat_name("alive again", kShapes[j % 4])), j + 1,
        world[static_cast<std::size_t>(j)]);
  for (MPI_Comm& x : c) MPI_Comm_free(&x);
}

}  // namespace

int main(int argc, char** argv) {
  start(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  loops();
  interleaved();
  alive(n);
  loops();  // after many teams came and went
  return finish("comms");
}
