// Derived and non-contiguous datatypes through MPI collectives (CTest label
// mpi): type maps that differ between ranks with equal signatures (a vector
// at the root, doubles elsewhere), resized, indexed and struct types, and
// reductions on one builtin repeated, all on osmp; MINLOC/MAXLOC pairs and
// user ops by the MPI. Every element is checked against a local expectation,
// and every position a type skips must keep its sentinel.
//
// usage: dtype_test   (OSMP_TEST_ROUTE=interposer also checks where calls ran)
#include <cstdint>
#include <string>
#include <vector>

#include "mpi_check.hpp"

using namespace mpicheck;

namespace {

constexpr double kSentinel = -7;

double value(int rank, int j) { return rank * 1000.0 + j + 1; }

MPI_Datatype committed(MPI_Datatype t) {
  MPI_Type_commit(&t);
  return t;
}

// The case: the root scatters one vector (k doubles, stride 10) per
// rank, every rank receives k MPI_DOUBLE.
void scatter_vector_at_root(const Comm& c, int k, int root) {
  MPI_Datatype vec = committed([&] {
    MPI_Datatype t;
    MPI_Type_vector(k, 1, 10, MPI_DOUBLE, &t);
    return t;
  }());
  const int stride = (k - 1) * 10 + 1;
  std::vector<double> src(c.me == root ? static_cast<std::size_t>(c.n * stride) : 0, kSentinel);
  for (int r = 0; c.me == root && r < c.n; ++r)
    for (int j = 0; j < k; ++j) src[static_cast<std::size_t>(r * stride + 10 * j)] = value(r, j);
  std::vector<double> got(static_cast<std::size_t>(k), 0), want(got.size());
  for (int j = 0; j < k; ++j) want[static_cast<std::size_t>(j)] = value(c.me, j);
  on_route(true, "scatter of a vector " + c.name,
           [&] { MPI_Scatter(src.data(), 1, vec, got.data(), k, MPI_DOUBLE, root, c.comm); });
  check_equal(got, want, "scatter, root's vector, k=" + std::to_string(k) + " " + c.name);
  // And the other way round: the root's k doubles, each rank's vector.
  std::vector<double> all(static_cast<std::size_t>(c.me == root ? c.n * k : 0)),
      mine(static_cast<std::size_t>(stride), kSentinel);
  for (int r = 0; c.me == root && r < c.n; ++r)
    for (int j = 0; j < k; ++j) all[static_cast<std::size_t>(r * k + j)] = value(r, j);
  std::vector<double> want_mine(mine.size(), kSentinel);
  for (int j = 0; j < k; ++j) want_mine[static_cast<std::size_t>(10 * j)] = value(c.me, j);
  on_route(true, "scatter into a vector " + c.name,
           [&] { MPI_Scatter(all.data(), k, MPI_DOUBLE, mine.data(), 1, vec, root, c.comm); });
  check_equal(mine, want_mine, "scatter into a vector, k=" + std::to_string(k) + " " + c.name);
  MPI_Type_free(&vec);
}

// Gather: doubles in, one vector per rank out at the root; then vectors in,
// doubles out.
void gather_vector(const Comm& c, int k, int root) {
  MPI_Datatype vec = committed([&] {
    MPI_Datatype t;
    MPI_Type_vector(k, 1, 10, MPI_DOUBLE, &t);
    return t;
  }());
  const int stride = (k - 1) * 10 + 1;
  std::vector<double> mine(static_cast<std::size_t>(k)), spread(static_cast<std::size_t>(stride), kSentinel);
  for (int j = 0; j < k; ++j)
    spread[static_cast<std::size_t>(10 * j)] = mine[static_cast<std::size_t>(j)] = value(c.me, j);
  std::vector<double> dst(c.me == root ? static_cast<std::size_t>(c.n * stride) : 0, kSentinel),
      want(dst.size(), kSentinel);
  for (int r = 0; c.me == root && r < c.n; ++r)
    for (int j = 0; j < k; ++j) want[static_cast<std::size_t>(r * stride + 10 * j)] = value(r, j);
  on_route(true, "gather into vectors " + c.name,
           [&] { MPI_Gather(mine.data(), k, MPI_DOUBLE, dst.data(), 1, vec, root, c.comm); });
  if (c.me == root) check_equal(dst, want, "gather into vectors, k=" + std::to_string(k) + " " + c.name);
  std::vector<double> flat(c.me == root ? static_cast<std::size_t>(c.n * k) : 0), want_flat(flat.size());
  for (int r = 0; c.me == root && r < c.n; ++r)
    for (int j = 0; j < k; ++j) want_flat[static_cast<std::size_t>(r * k + j)] = value(r, j);
  on_route(true, "gather of vectors " + c.name,
           [&] { MPI_Gather(spread.data(), 1, vec, flat.data(), k, MPI_DOUBLE, root, c.comm); });
  if (c.me == root) check_equal(flat, want_flat, "gather of vectors, k=" + std::to_string(k) + " " + c.name);
  MPI_Type_free(&vec);
}

// Allgather into a resized double (every second slot); bcast from an indexed
// type whose blocks are out of memory order into a vector.
void allgather_bcast(const Comm& c, int k, int root) {
  MPI_Datatype wide = committed([] {
    MPI_Datatype t;
    MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &t);
    return t;
  }());
  std::vector<double> mine(static_cast<std::size_t>(k)), got(static_cast<std::size_t>(2 * c.n * k), kSentinel),
      want(got.size(), kSentinel);
  for (int j = 0; j < k; ++j) mine[static_cast<std::size_t>(j)] = value(c.me, j);
  for (int r = 0; r < c.n; ++r)
    for (int j = 0; j < k; ++j) want[static_cast<std::size_t>(2 * (r * k + j))] = value(r, j);
  on_route(true, "allgather resized " + c.name,
           [&] { MPI_Allgather(mine.data(), k, MPI_DOUBLE, got.data(), k, wide, c.comm); });
  check_equal(got, want, "allgather into a resized type, k=" + std::to_string(k) + " " + c.name);
  MPI_Type_free(&wide);
  // The root's type map: [k/2 .. k) first, then [0 .. k/2); signature k doubles.
  int lens[2] = {k - k / 2, k / 2}, displs[2] = {k / 2, 0};
  MPI_Datatype swapped = committed([&] {
    MPI_Datatype t;
    MPI_Type_indexed(2, lens, displs, MPI_DOUBLE, &t);
    return t;
  }());
  MPI_Datatype every2 = committed([&] {
    MPI_Datatype t;
    MPI_Type_vector(k, 1, 2, MPI_DOUBLE, &t);
    return t;
  }());
  std::vector<double> buf(static_cast<std::size_t>(2 * k), kSentinel), want_b(buf.size(), kSentinel);
  for (int j = 0; j < k; ++j) {
    if (c.me == root) buf[static_cast<std::size_t>(j)] = value(root, j);
    const int from = j < k - k / 2 ? k / 2 + j : j - (k - k / 2);  // the stream's j-th double
    if (c.me != root)
      want_b[static_cast<std::size_t>(2 * j)] = value(root, from);
    else
      want_b[static_cast<std::size_t>(j)] = value(root, j);
  }
  on_route(true, "bcast indexed/vector " + c.name, [&] {
    if (c.me == root)
      MPI_Bcast(buf.data(), 1, swapped, root, c.comm);
    else
      MPI_Bcast(buf.data(), 1, every2, root, c.comm);
  });
  check_equal(buf, want_b, "bcast, indexed at the root, vector elsewhere, k=" + std::to_string(k) + " " + c.name);
  MPI_Type_free(&swapped);
  MPI_Type_free(&every2);
}

// Reductions on types whose signature is one builtin repeated.
void reductions(const Comm& c, int k, int root) {
  MPI_Datatype every2 = committed([&] {
    MPI_Datatype t;
    MPI_Type_vector(k, 1, 2, MPI_DOUBLE, &t);
    return t;
  }());
  std::vector<double> in(static_cast<std::size_t>(2 * k), kSentinel), out(in.size(), kSentinel),
      want(in.size(), kSentinel);
  for (int j = 0; j < k; ++j) {
    in[static_cast<std::size_t>(2 * j)] = value(c.me, j);
    double s = 0;
    for (int r = 0; r < c.n; ++r) s += value(r, j);
    want[static_cast<std::size_t>(2 * j)] = s;
  }
  on_route(true, "allreduce vector " + c.name,
           [&] { MPI_Allreduce(in.data(), out.data(), 1, every2, MPI_SUM, c.comm); });
  check_equal(out, want, "allreduce on a vector of doubles, k=" + std::to_string(k) + " " + c.name);
  on_route(true, "allreduce vector in place " + c.name,
           [&] { MPI_Allreduce(MPI_IN_PLACE, in.data(), 1, every2, MPI_SUM, c.comm); });
  check_equal(in, want, "allreduce in place on a vector, k=" + std::to_string(k) + " " + c.name);
  MPI_Type_free(&every2);
  // Indexed MPI_INT64_T, max, to a root; a struct of two doubles, min.
  int lens[2] = {1, 2}, displs[2] = {3, 0};
  MPI_Datatype idx = committed([&] {
    MPI_Datatype t;
    MPI_Type_indexed(2, lens, displs, MPI_INT64_T, &t);
    return t;
  }());
  const int m = k;  // elements of idx (3 integers each, extent 4)
  std::vector<std::int64_t> li(static_cast<std::size_t>(4 * m), -1), lo(li.size(), -1), lw(li.size(), -1);
  for (int e = 0; e < m; ++e)
    for (int d : {0, 1, 3}) {
      const std::size_t at = static_cast<std::size_t>(4 * e + d);
      li[at] = (c.me * 7 + e * 3 + d) % 101;
      std::int64_t best = -1;
      for (int r = 0; r < c.n; ++r) best = std::max<std::int64_t>(best, (r * 7 + e * 3 + d) % 101);
      lw[at] = best;
    }
  on_route(true, "reduce indexed " + c.name, [&] { MPI_Reduce(li.data(), lo.data(), m, idx, MPI_MAX, root, c.comm); });
  if (c.me == root) check_equal(lo, lw, "reduce max on an indexed int64 type, m=" + std::to_string(m) + " " + c.name);
  MPI_Type_free(&idx);
  int bl[2] = {1, 1};
  MPI_Aint bd[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE};
  MPI_Datatype pair = committed([&] {
    MPI_Datatype t;
    MPI_Type_create_struct(2, bl, bd, types, &t);
    return t;
  }());
  std::vector<double> pi(static_cast<std::size_t>(2 * k)), po(pi.size()), pw(pi.size());
  for (std::size_t j = 0; j < pi.size(); ++j) {
    pi[j] = value(c.me, static_cast<int>(j)) * ((c.me + static_cast<int>(j)) % 2 ? -1 : 1);
    pw[j] = pi[j];
  }
  for (int r = 0; r < c.n; ++r)
    for (std::size_t j = 0; j < pi.size(); ++j)
      pw[j] = std::min(pw[j], value(r, static_cast<int>(j)) * ((r + static_cast<int>(j)) % 2 ? -1 : 1));
  on_route(true, "allreduce struct " + c.name, [&] { MPI_Allreduce(pi.data(), po.data(), k, pair, MPI_MIN, c.comm); });
  check_equal(po, pw, "allreduce min on a struct of two doubles, k=" + std::to_string(k) + " " + c.name);
  MPI_Type_free(&pair);
}

// reduce_scatter_block on a contiguous type of 3 floats.
void reduce_scatter(const Comm& c, int k) {
  MPI_Datatype three = committed([] {
    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_FLOAT, &t);
    return t;
  }());
  std::vector<float> in(static_cast<std::size_t>(3 * k * c.n)), out(static_cast<std::size_t>(3 * k)), want(out.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((c.me + static_cast<int>(i)) % 17);
  for (std::size_t i = 0; i < out.size(); ++i) {
    float s = 0;
    for (int r = 0; r < c.n; ++r) s += static_cast<float>((r + static_cast<int>(i + out.size() * c.me)) % 17);
    want[i] = s;
  }
  MPI_Reduce_scatter_block(in.data(), out.data(), k, three, MPI_SUM, c.comm);
  check_equal(out, want, "reduce_scatter_block on contiguous floats, k=" + std::to_string(k) + " " + c.name);
  MPI_Type_free(&three);
}

void add_ints(void* in, void* io, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(io)[i] += static_cast<int*>(in)[i];
}

// Pairs and user ops go to the MPI, on every rank.
void to_the_mpi(const Comm& c, int k, int root) {
  struct DI {
    double v;
    int at;
  };
  std::vector<DI> in(static_cast<std::size_t>(k)), out(in.size());
  for (int j = 0; j < k; ++j) in[static_cast<std::size_t>(j)] = {static_cast<double>((c.me * 5 + j) % 7), c.me};
  on_route(false, "minloc " + c.name,
           [&] { MPI_Allreduce(in.data(), out.data(), k, MPI_DOUBLE_INT, MPI_MINLOC, c.comm); });
  for (int j = 0; j < k; ++j) {
    DI best{1e30, -1};
    for (int r = 0; r < c.n; ++r) {
      double v = (r * 5 + j) % 7;
      if (v < best.v) best = {v, r};
    }
    const DI& g = out[static_cast<std::size_t>(j)];
    if (g.v != best.v || g.at != best.at) return fail("minloc element " + std::to_string(j) + " " + c.name);
  }
  std::vector<int> pin(static_cast<std::size_t>(2 * k)), pout(pin.size(), -1);
  for (int j = 0; j < k; ++j)
    pin[static_cast<std::size_t>(2 * j)] = (c.me * 3 + j) % 5, pin[static_cast<std::size_t>(2 * j + 1)] = c.me;
  on_route(false, "maxloc " + c.name,
           [&] { MPI_Reduce(pin.data(), pout.data(), k, MPI_2INT, MPI_MAXLOC, root, c.comm); });
  for (int j = 0; c.me == root && j < k; ++j) {
    int best = -1, at = -1;
    for (int r = 0; r < c.n; ++r)
      if ((r * 3 + j) % 5 > best) best = (r * 3 + j) % 5, at = r;
    if (pout[static_cast<std::size_t>(2 * j)] != best || pout[static_cast<std::size_t>(2 * j + 1)] != at)
      return fail("maxloc element " + std::to_string(j) + " " + c.name);
  }
  MPI_Op op;
  MPI_Op_create(add_ints, 1, &op);
  std::vector<int> uin(static_cast<std::size_t>(k), c.me + 1), uout(uin.size()), uwant(uin.size(), c.n * (c.n + 1) / 2);
  on_route(false, "user op " + c.name, [&] { MPI_Allreduce(uin.data(), uout.data(), k, MPI_INT, op, c.comm); });
  check_equal(uout, uwant, "allreduce with a user op " + c.name);
  MPI_Op_free(&op);
}

void run(const Comm& c) {
  for (int k : {12, 1000, 20000}) {
    for (int root : {0, c.n - 1, c.n / 2}) {
      scatter_vector_at_root(c, k, root);
      gather_vector(c, k, root);
      allgather_bcast(c, k, root);
      if (derived_reductions()) reductions(c, k, root);
    }
    if (derived_reductions()) reduce_scatter(c, k);
    to_the_mpi(c, k, c.n - 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  start(&argc, &argv);
  run({MPI_COMM_WORLD, g_rank, g_size, "(world)"});
  MPI_Comm reversed;  // ranks in the opposite order: nodes' blocks interleave differently
  MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &reversed);
  int me = 0;
  MPI_Comm_rank(reversed, &me);
  run({reversed, me, g_size, "(reversed)"});
  MPI_Comm_free(&reversed);
  return finish("dtype");
}
