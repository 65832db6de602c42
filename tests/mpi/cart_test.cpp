// Weighted Cartesian communicators under mpirun (CTest label mpi), built
// against Open MPI and MPICH, on simulated nodes.
//
// usage: cart_test SCENARIO
//   symmetric   24 ranks: 4 nodes of Package:2 Core:3, mesh 1:2:4
//   uneven      8 ranks: 2 nodes with 3 + 1 ranks per package
//   unbound     12 ranks: 3 nodes, unbound ranks
//   local       1+ ranks: MPIX_Dims_create_weighted / _info / _ml and their errors
//   comms       24 ranks: MPIX_Cart_create_weighted_comms, hardware and user levels
//   network     24 ranks: 4 nodes under OSMP_SIM_NETWORK=Switch:2
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
        it->second.first[static_cast<std::size_t>(i)] =
            std::min(it->second.first[static_cast<std::size_t>(i)], c[static_cast<std::size_t>(i)]);
        it->second.second[static_cast<std::size_t>(i)] =
            std::max(it->second.second[static_cast<std::size_t>(i)], c[static_cast<std::size_t>(i)]);
      }
      ++count[owner[static_cast<std::size_t>(r)]];
    }
    for (auto& [n, b] : box) {
      long long vol = 1;
      for (int i = 0; i < nd; ++i)
        vol *= b.second[static_cast<std::size_t>(i)] - b.first[static_cast<std::size_t>(i)] + 1;
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
    std::printf(
        "%s: inter-node halo edges, %s grid: %lld reordered by osmp, %lld by MPI_Cart_create; "
        "MPI_Dims_create's %s grid: %lld\n",
        label, str(our_dims).c_str(), a, b, str(their_dims).c_str(), c);
  expect(a >= 0 && a <= b, std::string(label) + ": more inter-node edges than MPI_Cart_create on the same grid");
  MPI_Comm_free(&ours);
  MPI_Comm_free(&same);
  MPI_Comm_free(&theirs);
}

void expect_error(int rc, const char* text, const std::string& what, int mpi_class = MPI_ERR_ARG) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (rc == MPI_SUCCESS) return expect(false, what + ": no error");
  MPI_Error_string(rc, s, &len);
  expect(std::strstr(s, text) != nullptr, what + ": message '" + s + "' lacks '" + text + "'");
  expect(MPIX_Osmp_error_class(rc) == mpi_class, what + ": class " + std::to_string(MPIX_Osmp_error_class(rc)));
}

MPI_Info info_of(std::vector<std::pair<const char*, const char*>> kv) {
  MPI_Info info;
  MPI_Info_create(&info);
  for (auto [k, v] : kv) MPI_Info_set(info, k, v);
  return info;
}

// MPIX_Dims_create_weighted_info with these keys, from all-free dims.
std::string dims_info(int n, int nd, const double* w, std::vector<std::pair<const char*, const char*>> kv) {
  MPI_Info info = info_of(kv);
  std::vector<int> d(static_cast<std::size_t>(nd), 0);
  int rc = MPIX_Dims_create_weighted_info(n, nd, w, info, d.data());
  MPI_Info_free(&info);
  return rc == MPI_SUCCESS ? str(d) : "(error)";
}

std::vector<int> dims_of(MPI_Comm cart) {
  int nd = 0;
  MPI_Cartdim_get(cart, &nd);
  std::vector<int> dims(static_cast<std::size_t>(nd)), p(dims.size()), c(dims.size());
  MPI_Cart_get(cart, nd, dims.data(), p.data(), c.data());
  return dims;
}

MPI_Comm split_at(MPI_Comm comm, const char* level) {
  MPI_Info info = info_of({{MPIX_HW_DOMAIN_TYPE_KEY, level}});
  MPI_Comm c;
  MPIX_Comm_split_type(comm, MPIX_COMM_TYPE_HW_DOMAIN, 0, info, &c);
  MPI_Info_free(&info);
  return c;
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
  // The refinements through info, with the call's periods; the dims call agrees.
  info = info_of({{"osmp_cart_cost", "refined"}});
  MPIX_Cart_create_weighted(MPI_COMM_WORLD, 3, w, periods, info, &cart);
  MPI_Info_free(&info);
  std::string refined = dims_info(
      24, 3, w, {{"osmp_cart_level_sizes", "4,2,3"}, {"osmp_cart_cost", "refined"}, {"osmp_cart_periods", "0,0,0"}});
  expect(str(dims_of(cart)) == refined, "refined: dims " + str(dims_of(cart)) + ", the dims call says " + refined);
  MPI_Comm_free(&cart);
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

// Level communicators (the paper's Figure 5), from hsplit and made by hand.
void comms() {
  setenv("OSMP_TOPOLOGY", "Package:2 Core:3 PU:1", 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "6", 1);
  long long mesh[3] = {100, 200, 400};
  double w[3];
  MPIX_Weights_from_mesh(3, mesh, w);
  int periods[3] = {0, 0, 0};
  MPI_Comm node = split_at(MPI_COMM_WORLD, "Machine");
  MPI_Comm pkg = split_at(node, "Package");
  MPI_Comm levels[3] = {MPI_COMM_WORLD, node, pkg};
  MPI_Comm cart, ref;
  expect(MPIX_Cart_create_weighted_comms(3, levels, 3, w, periods, MPI_INFO_NULL, &cart) == MPI_SUCCESS,
         "comms: MPIX_Cart_create_weighted_comms failed");
  int sizes[3] = {4, 2, 3}, want[3] = {0, 0, 0};
  MPIX_Dims_create_ml(3, sizes, 3, w, want, nullptr);
  expect(dims_of(cart) == std::vector<int>(want, want + 3), "comms: dims " + str(dims_of(cart)));
  MPIX_Cart_create_weighted(MPI_COMM_WORLD, 3, w, periods, MPI_INFO_NULL, &ref);
  int r1 = 0, r2 = 0;
  MPI_Comm_rank(cart, &r1);
  MPI_Comm_rank(ref, &r2);
  expect(r1 == r2, "comms: another grid rank than MPIX_Cart_create_weighted's over the same levels");
  std::vector<int> d;
  cut_edges(cart, 6, d, true);  // every node one box
  MPI_Comm_free(&cart);
  MPI_Comm_free(&ref);
  // Levels made by hand: halves of the job, then quarters (not the nodes).
  MPI_Comm half, quarter;
  MPI_Comm_split(MPI_COMM_WORLD, g_world / 12, g_world, &half);
  MPI_Comm_split(half, g_world / 3, g_world, &quarter);
  MPI_Comm mine[3] = {MPI_COMM_WORLD, half, quarter};
  MPIX_Cart_create_weighted_comms(3, mine, 3, MPIX_WEIGHTS_EQUAL, periods, MPI_INFO_NULL, &cart);
  int hand[3] = {2, 4, 3}, want2[3] = {0, 0, 0};
  MPIX_Dims_create_ml(3, hand, 3, MPIX_WEIGHTS_EQUAL, want2, nullptr);
  expect(dims_of(cart) == std::vector<int>(want2, want2 + 3), "comms by hand: dims " + str(dims_of(cart)));
  cut_edges(cart, 3, d, true);  // every quarter one box
  MPI_Comm_free(&cart);
  // One level: the plain weighted dims over everyone.
  MPIX_Cart_create_weighted_comms(1, levels, 3, w, periods, MPI_INFO_NULL, &cart);
  int one[3] = {0, 0, 0};
  MPIX_Dims_create_weighted(24, 3, w, one);
  expect(dims_of(cart) == std::vector<int>(one, one + 3), "comms, one level: dims " + str(dims_of(cart)));
  MPI_Comm_free(&cart);
  // Errors reach every process: a part that is MPI_COMM_NULL on one, a part
  // outside its parent on another.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm bad[3] = {MPI_COMM_WORLD, g_world == 5 ? MPI_COMM_NULL : node, pkg};
  expect_error(MPIX_Cart_create_weighted_comms(3, bad, 3, w, periods, MPI_INFO_NULL, &cart),
               g_world == 5 ? "level_comms[1] is MPI_COMM_NULL" : "another process passed a bad level_comms",
               "NULL part");
  MPI_Comm outside[3] = {MPI_COMM_WORLD, g_world == 7 ? pkg : node, g_world == 7 ? node : pkg};
  expect_error(MPIX_Cart_create_weighted_comms(3, outside, 3, w, periods, MPI_INFO_NULL, &cart),
               g_world == 7 ? "level_comms[2] holds a process that level_comms[1] does not" : "another process passed",
               "part outside its parent");
  MPI_Comm overlap[2] = {MPI_COMM_WORLD, g_world < 6 ? half : node};  // halves and nodes mixed: no partition
  expect_error(MPIX_Cart_create_weighted_comms(2, overlap, 3, w, periods, MPI_INFO_NULL, &cart), "do not partition",
               "parts that do not partition");
  for (MPI_Comm* c : {&node, &pkg, &half, &quarter}) MPI_Comm_free(c);
}

// Network levels are the grid's top levels: 4 nodes in 2 switches.
void network() {
  setenv("OSMP_TOPOLOGY", "Package:2 Core:3 PU:1", 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "6", 1);
  setenv("OSMP_SIM_NETWORK", "Switch:2", 1);
  long long mesh[3] = {100, 200, 400};
  double w[3];
  MPIX_Weights_from_mesh(3, mesh, w);
  int sizes[4] = {2, 2, 2, 3}, want[3] = {0, 0, 0};
  MPIX_Dims_create_ml(4, sizes, 3, w, want, nullptr);
  MPI_Comm cart;
  int periods[3] = {0, 0, 0};
  MPIX_Cart_create_weighted(MPI_COMM_WORLD, 3, w, periods, MPI_INFO_NULL, &cart);
  expect(dims_of(cart) == std::vector<int>(want, want + 3),
         "network: dims " + str(dims_of(cart)) + ", want " + str({want, want + 3}));
  std::vector<int> d;
  cut_edges(cart, 12, d, true);  // every switch one box
  cut_edges(cart, 6, d, true);   // every node one box
  MPI_Comm_free(&cart);
  compare_with_default(w, 12, true, "network, inter-switch");
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
  expect(str({d, d + 3}) == "8x6x4" && str({per, per + 9}) == "2x2x2x2x1x1x2x3x2",
         "Table 1 equal: " + str({d, d + 3}) + " " + str({per, per + 9}));
  long long g[3] = {1, 2, 4};
  double w[3];
  MPIX_Weights_from_mesh(3, g, w);
  std::fill(d, d + 3, 0);
  MPIX_Dims_create_ml(3, levels, 3, w, d, per);
  expect(str({d, d + 3}) == "4x6x8" && str({per, per + 9}) == "1x2x4x2x1x1x2x3x2",
         "Table 1 mesh: " + str({d, d + 3}) + " " + str({per, per + 9}));
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
  // The paper's prototype with info: multi-level sizes, the section 6 refinements.
  expect(dims_info(192, 3, w, {{"osmp_cart_level_sizes", "8,2,12"}}) == "4x6x8", "info level sizes: Table 1");
  expect(dims_info(72, 2, MPIX_WEIGHTS_EQUAL, {}) == "9x8", "info, no keys");
  const double w12[2] = {1, 2}, w115[2] = {1, 1.5};
  expect(dims_info(6, 2, w12, {}) == "3x2", "6 on (1, 2), eq. 4");
  expect(dims_info(6, 2, w12, {{"osmp_cart_cost", "refined"}}) == "6x1", "6 on (1, 2), refined");
  expect(dims_info(4, 2, w115, {{"osmp_cart_cost", "refined"}}) == "4x1", "4 on (1, 1.5), refined");
  expect(dims_info(4, 2, w115, {{"osmp_cart_cost", "refined"}, {"osmp_cart_periods", "1,0"}}) == "2x2",
         "4 on (1, 1.5), refined, dim 1 open");
  expect(dims_info(768, 3, std::vector<double>{1.0 / 12, 1.0 / 16, 1.0 / 8}.data(),
                   {{"osmp_cart_level_sizes", "24,4,8"}, {"osmp_cart_cost", "refined"}}) == "16x12x4",
         "section 6, refined");
  MPI_Info bad = info_of({{"osmp_cart_cost", "cheap"}});
  int z2[2] = {0, 0};
  expect_error(MPIX_Dims_create_weighted_info(6, 2, w12, bad, z2), "osmp_cart_cost = 'cheap'", "bad cost",
               MPI_ERR_INFO_VALUE);
  MPI_Info_free(&bad);
  bad = info_of({{"osmp_cart_level_sizes", "4,4"}});
  expect_error(MPIX_Dims_create_weighted_info(12, 2, w12, bad, z2), "multiply to 16, not nnodes = 12",
               "level sizes that do not multiply to nnodes", MPI_ERR_INFO_VALUE);
  MPI_Info_free(&bad);
  bad = info_of({{"osmp_cart_periods", "1,0,1"}, {"osmp_cart_cost", "refined"}});
  expect_error(MPIX_Dims_create_weighted_info(12, 2, w12, bad, z2), "has 3 entries but ndims = 2", "periods count",
               MPI_ERR_INFO_VALUE);
  MPI_Info_free(&bad);
  bad = info_of({{"osmp_cart_cost", "nonsense"}});
  expect_error(MPIX_Cart_create_weighted(MPI_COMM_WORLD, 2, MPIX_WEIGHTS_EQUAL, periods,
                                         g_world == 0 ? bad : MPI_INFO_NULL, &cart),
               g_world == 0 ? "osmp_cart_cost" : "another rank", "a bad info value on rank 0 only",
               g_world == 0 ? MPI_ERR_INFO_VALUE : MPI_ERR_ARG);
  MPI_Info_free(&bad);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "symmetric")
    symmetric();
  else if (scenario == "uneven")
    uneven();
  else if (scenario == "unbound")
    unbound();
  else if (scenario == "local")
    local();
  else if (scenario == "comms")
    comms();
  else if (scenario == "network")
    network();
  else {
    if (g_world == 0) std::fprintf(stderr, "usage: cart_test symmetric|uneven|unbound|local|comms|network\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int total = 0;
  MPI_Allreduce(&g_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_world == 0) std::printf("cart %s, %d ranks: %s\n", scenario.c_str(), g_size, total ? "FAILED" : "ok");
  MPI_Finalize();
  return total ? 1 : 0;
}
