// Weighted Cartesian communicators under mpirun (CTest label mpi), built
// against Open MPI and MPICH, on simulated nodes.
//
// usage: cart_test SCENARIO
//   symmetric   24 ranks: 4 nodes of Package:2 Core:3, mesh 1:2:4
//   uneven      8 ranks: 2 nodes with 3 + 1 ranks per package
//   unbound     12 ranks: 3 nodes, unbound ranks
//   local       1+ ranks: MPIX_Dims_create_weighted / _ml and their errors
#include <osmp_mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "mpi_glue/cart/coords.hpp"

namespace {

int g_world = 0, g_size = 0, g_failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAIL: %s\n", g_world, what.c_str());
    ++g_failures;
  }
}

std::string str(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

// Inter-node halo edges of a Cartesian communicator: every rank's node
// (world rank / ranks per node) at its grid position.
long long cut_edges(MPI_Comm cart, int rpn, std::vector<int>& dims, bool check_boxes) {
  int nd = 0;
  MPI_Cartdim_get(cart, &nd);
  dims.assign(static_cast<std::size_t>(nd), 0);
  std::vector<int> periods(static_cast<std::size_t>(nd)), coords(static_cast<std::size_t>(nd));
  MPI_Cart_get(cart, nd, dims.data(), periods.data(), coords.data());
  int rank = 0;
  MPI_Comm_rank(cart, &rank);
  std::vector<int> owner(static_cast<std::size_t>(g_size));
  int node = g_world / rpn;
  MPI_Allgather(&node, 1, MPI_INT, owner.data(), 1, MPI_INT, cart);  // owner[cart rank]
  // MPI_Cart_rank order is row-major, as count_cut_edges expects.
  auto cut = osmp::cart::count_cut_edges(dims, periods, owner);
  expect(cut.ok(), "count_cut_edges failed");
  if (check_boxes) {
    std::map<int, std::pair<std::vector<int>, std::vector<int>>> box;  // node -> min, max coords
    std::map<int, int> count;
    for (int r = 0; r < g_size; ++r) {
      auto c = *osmp::cart::rank_to_coords(dims, r);
      auto [it, fresh] = box.emplace(owner[static_cast<std::size_t>(r)], std::pair{c, c});
      for (int i = 0; i < nd; ++i) {
        it->second.first[static_cast<std::size_t>(i)] = std::min(it->second.first[static_cast<std::size_t>(i)], c[static_cast<std::size_t>(i)]);
        it->second.second[static_cast<std::size_t>(i)] = std::max(it->second.second[static_cast<std::size_t>(i)], c[static_cast<std::size_t>(i)]);
      }
      ++count[owner[static_cast<std::size_t>(r)]];
    }
    for (auto& [n, b] : box) {
      long long vol = 1;
      for (int i = 0; i < nd; ++i) vol *= b.second[static_cast<std::size_t>(i)] - b.first[static_cast<std::size_t>(i)] + 1;
      expect(vol == count[n], "node " + std::to_string(n) + " does not hold one box of the grid");
    }
  }
  return cut.ok() ? cut->total : -1;
}

// Our reordering against MPI_Cart_create's default (no reordering: nodes fill
// consecutive row-major ranks) on the same dims; MPI_Dims_create's dims for
// reference.
void compare_with_default(const double* weights, int rpn, bool boxes, const char* label) {
  const int nd = 3;
  std::vector<int> periods(nd, 0), d(nd, 0);  // open boundaries: no double-counted size-2 rings
  MPI_Comm ours, same, theirs;
  expect(MPIX_Cart_create_weighted(MPI_COMM_WORLD, nd, weights, periods.data(), MPI_INFO_NULL, &ours) == MPI_SUCCESS,
         std::string(label) + ": MPIX_Cart_create_weighted failed");
  std::vector<int> our_dims, same_dims, their_dims;
  long long a = cut_edges(ours, rpn, our_dims, boxes);
  MPI_Cart_create(MPI_COMM_WORLD, nd, our_dims.data(), periods.data(), 0, &same);
  long long b = cut_edges(same, rpn, same_dims, false);
  MPI_Dims_create(g_size, nd, d.data());
  MPI_Cart_create(MPI_COMM_WORLD, nd, d.data(), periods.data(), 0, &theirs);
  long long c = cut_edges(theirs, rpn, their_dims, false);
  if (g_world == 0)
    std::printf("%s: inter-node halo edges, %s grid: %lld reordered by osmp, %lld by MPI_Cart_create; "
                "MPI_Dims_create's %s grid: %lld\n", label, str(our_dims).c_str(), a, b, str(their_dims).c_str(), c);
  expect(a >= 0 && a <= b, std::string(label) + ": more inter-node edges than MPI_Cart_create on the same grid");
  MPI_Comm_free(&ours);
  MPI_Comm_free(&same);
  MPI_Comm_free(&theirs);
}

void symmetric() {
  setenv("OSMP_TOPOLOGY", "Package:2 Core:3 PU:1", 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "6", 1);
  long long mesh[3] = {100, 200, 400};
  double w[3];
  MPIX_Weights_from_mesh(3, mesh, w);
  // The dims must be the multi-level factorization of {4 nodes, 2 packages, 3 cores}.
  int levels[3] = {4, 2, 3}, want[3] = {0, 0, 0}, per[9];
  MPIX_Dims_create_ml(3, levels, 3, w, want, per);
  MPI_Comm cart;
  int periods[3] = {0, 0, 0};
  MPIX_Cart_create_weighted(MPI_COMM_WORLD, 3, w, periods, MPI_INFO_NULL, &cart);
  int dims[3], p[3], c[3];
  MPI_Cart_get(cart, 3, dims, p, c);
  expect(std::equal(dims, dims + 3, want), "dims " + str({dims, dims + 3}) + ", want " + str({want, want + 3}));
  MPI_Comm_free(&cart);
  compare_with_default(w, 6, true, "symmetric, mesh weights");
  compare_with_default(MPIX_WEIGHTS_EQUAL, 6, true, "symmetric, equal weights");
  // Levels named in info.
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "osmp_cart_levels", "Node");
  MPIX_Cart_create_weighted(MPI_COMM_WORLD, 3, MPIX_WEIGHTS_EQUAL, periods, info, &cart);
  MPI_Cart_get(cart, 3, dims, p, c);
  int two[2] = {4, 6}, want2[3] = {0, 0, 0};
  MPIX_Dims_create_ml(2, two, 3, MPIX_WEIGHTS_EQUAL, want2, nullptr);
  expect(std::equal(dims, dims + 3, want2), "osmp_cart_levels=Node: dims " + str({dims, dims + 3}));
  MPI_Comm_free(&cart);
  MPI_Info_free(&info);
}

void uneven() {
  setenv("OSMP_TOPOLOGY", "Package:2 Core:6 PU:1", 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "6", 1);
  setenv("OSMP_SIM_PLACES", "Core:0;Core:1;Core:2;Core:3;Core:4;Core:6", 1);  // 5 + 1 per package
  long long mesh[3] = {100, 200, 400};
  double w[3];
  MPIX_Weights_from_mesh(3, mesh, w);
  compare_with_default(w, 6, true, "uneven packages, mesh weights");
  compare_with_default(MPIX_WEIGHTS_EQUAL, 6, true, "uneven packages, equal weights");
}

void unbound() {
  setenv("OSMP_TOPOLOGY", "Package:2 Core:3 PU:1", 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "4", 1);
  setenv("OSMP_SIM_BIND", "none", 1);
  compare_with_default(MPIX_WEIGHTS_EQUAL, 4, true, "unbound");
}

void expect_error(int rc, const char* text, const std::string& what) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (rc == MPI_SUCCESS) return expect(false, what + ": no error");
  MPI_Error_string(rc, s, &len);
  expect(std::strstr(s, text) != nullptr, what + ": message '" + s + "' lacks '" + text + "'");
  expect(MPIX_Osmp_error_class(rc) == MPI_ERR_ARG, what + ": not MPI_ERR_ARG");
}

void local() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int d2[2] = {0, 0};
  MPIX_Dims_create_weighted(72, 2, MPIX_WEIGHTS_EQUAL, d2);
  expect(d2[0] == 9 && d2[1] == 8, "72 in 2-D: " + str({d2, d2 + 2}));
  double mesh_w[2];
  long long mesh[2] = {580, 1800};
  MPIX_Weights_from_mesh(2, mesh, mesh_w);
  int m2[2] = {0, 0};
  MPIX_Dims_create_weighted(12, 2, mesh_w, m2);
  expect(m2[0] == 2 && m2[1] == 6, "580x1800 mesh on 12: " + str({m2, m2 + 2}));
  // Paper Table 1: 8 nodes x 2 CPUs x 12 cores, equal and 1:2:4 mesh weights.
  int levels[3] = {8, 2, 12}, d[3] = {0, 0, 0}, per[9];
  MPIX_Dims_create_ml(3, levels, 3, MPIX_WEIGHTS_EQUAL, d, per);
  expect(str({d, d + 3}) == "8x6x4" && str({per, per + 9}) == "2x2x2x2x1x1x2x3x2", "Table 1 equal: " + str({d, d + 3}) + " " + str({per, per + 9}));
  long long g[3] = {1, 2, 4};
  double w[3];
  MPIX_Weights_from_mesh(3, g, w);
  std::fill(d, d + 3, 0);
  MPIX_Dims_create_ml(3, levels, 3, w, d, per);
  expect(str({d, d + 3}) == "4x6x8" && str({per, per + 9}) == "1x2x4x2x1x1x2x3x2", "Table 1 mesh: " + str({d, d + 3}) + " " + str({per, per + 9}));
  // Coordinates: node 5 of 8 (level 0), CPU 1, core 7 in the 4x6x8 grid, and back.
  int idx[3] = {5, 1, 7}, coords[3], r = -1, back[3];
  MPIX_Cart_ml_coords(3, 3, per, idx, coords, &r);
  MPIX_Cart_ml_index(3, 3, per, r, back);
  expect(std::equal(back, back + 3, idx), "ml coords round trip " + str({coords, coords + 3}));
  int c8[3] = {0, 0, 0};
  for (int node = 0; node < 8; ++node) {  // every node holds one 4x3x2 / ... box: distinct ranks overall
    int i3[3] = {node, 0, 0};
    MPIX_Cart_ml_coords(3, 3, per, i3, c8, &r);
    expect(r >= 0 && r < 192, "ml rank in range");
  }
  expect_error(MPIX_Cart_ml_index(3, 3, per, 192, back), "", "rank out of range");
  int preset[2] = {5, 0};
  expect_error(MPIX_Dims_create_weighted(72, 2, MPIX_WEIGHTS_EQUAL, preset), "does not divide", "preset 5 of 72");
  expect_error(MPIX_Dims_create_weighted(72, 0, MPIX_WEIGHTS_EQUAL, preset), "ndims", "ndims 0");
  double neg[2] = {1.0, -1.0};
  int z[2] = {0, 0};
  expect_error(MPIX_Dims_create_weighted(72, 2, neg, z), "weights", "negative weight");
  expect_error(MPIX_Dims_create_weighted(72, 2, nullptr, z), "MPIX_WEIGHTS_EQUAL", "NULL weights");
  MPI_Comm cart;
  int periods[2] = {0, 0};
  expect_error(MPIX_Cart_create_weighted(MPI_COMM_WORLD, 2, g_world == 0 ? neg : MPIX_WEIGHTS_EQUAL, periods,
                                         MPI_INFO_NULL, &cart),
               g_world == 0 ? "weights" : "another rank", "a bad weight on rank 0 only");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "symmetric") symmetric();
  else if (scenario == "uneven") uneven();
  else if (scenario == "unbound") unbound();
  else if (scenario == "local") local();
  else {
    if (g_world == 0) std::fprintf(stderr, "usage: cart_test symmetric|uneven|unbound|local\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int total = 0;
  MPI_Allreduce(&g_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_world == 0) std::printf("cart %s, %d ranks: %s\n", scenario.c_str(), g_size, total ? "FAILED" : "ok");
  MPI_Finalize();
  return total ? 1 : 0;
}
