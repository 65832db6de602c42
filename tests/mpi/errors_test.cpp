// Mismatched arguments under MPI (CTest label mpi): counts, datatypes, ops,
// roots that differ on one rank, and one rank whose op sends the call to the
// MPI while the others' would run on osmp. With MPI_ERRORS_RETURN nobody
// hangs. OSMP_CHECK=strict (as the tests across nodes set it: lazily
// there, errors_test lazy_nodes below):
// the odd rank always gets an error; every rank gets one on a single node
// and for the unrooted operations; for reduce and gather the root too (data
// flows to it). One node with OSMP_CHECK=lazy (the default: one-pass
// calls): every rank gets it in the faulty call or in its next call on the
// communicator (which then names the failed call), or at MPI_Comm_free.
// The communicator stays usable: a correct call after each case (after
// the one that reports it, lazily) must give the right answer.
//
// The odd count is never 0: Open MPI returns from a reduce, allreduce or
// bcast of count 0 before its components see the call.
//
// usage: errors_test [fatal|finalize]   (fatal: a count mismatch under
// MPI_ERRORS_ARE_FATAL, which must end the job with osmp's message;
// finalize: lazily, a last call whose mismatch nobody saw, two ranks that
// both think they are a bcast's root, which MPI_Finalize must report so)
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mpi_check.hpp"

using namespace mpicheck;

namespace {

bool one_node() {
  const char* rpn = std::getenv("OSMP_SIM_RANKS_PER_NODE");
  const int r = rpn ? std::atoi(rpn) : 0;
  return r <= 0 || r >= g_size;
}

// The check mode this test sets through MPI_COMM_WORLD's info (the
// osmp_check hint), which wins over the environment; null: none.
const char* check_by_info() { return std::getenv("OSMP_TEST_CHECK_INFO"); }

// One-pass calls: one node, OSMP_CHECK not strict (OSMP_TEST_CHECK: the
// mode set otherwise, e.g. by coll_osmp_check; the info hint first), no
// group wider than OSMP_ONE_PASS_MAX's default (64 units: every tree here).
bool lazy() {
  const char* check = check_by_info()                  ? check_by_info()
                      : std::getenv("OSMP_TEST_CHECK") ? std::getenv("OSMP_TEST_CHECK")
                                                       : std::getenv("OSMP_CHECK");
  return one_node() && !(check && std::strcmp(check, "strict") == 0) && g_size <= 64;
}

// Sets the osmp_check hint on MPI_COMM_WORLD where the test asks for it.
void set_check_info() {
  if (!check_by_info()) return;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "osmp_check", check_by_info());
  if (MPI_Comm_set_info(MPI_COMM_WORLD, info) != MPI_SUCCESS) fail("MPI_Comm_set_info osmp_check failed");
  MPI_Info_free(&info);
}

// An error that reports an earlier call's, as osmp words it (where the MPI
// keeps osmp's strings on codes: Open MPI).
void names_the_failed_call(const std::string& what, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  const std::string t(text, static_cast<std::size_t>(len));
  if (t.rfind("osmp:", 0) == 0 && t.find("call ") == std::string::npos && t.find("finalize") == std::string::npos)
    fail(what + ": the later error does not name the failed call: " + t);
}

int sum_of_ones() {
  int one = 1, n = 0;
  return MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS ? n : -1;
}

// Every rank runs `call`; rank `odd` passes the odd arguments. `all` says
// whether every rank must fail, `also` another rank that must (-1: none).
// `odd_fails`: whether the odd rank itself must fail (a gatherv sender
// across nodes may not learn that the root's count for it differs, as with
// the MPI).
void expect_errors(const std::string& what, int odd, bool all, int also, const std::function<int(bool)>& call,
                   bool odd_fails = true) {
  const int rc = call(g_rank == odd);
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  const bool must = (g_rank == odd && odd_fails) || all || g_rank == also;
  if (must && rc == MPI_SUCCESS && !lazy()) fail(what + ": returned MPI_SUCCESS");
  if (rc != MPI_SUCCESS && (cls == MPI_SUCCESS || cls > MPI_ERR_LASTCODE)) fail(what + ": not an MPI error class");
  if (rc != MPI_SUCCESS && g_rank == odd) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    if (len == 0) fail(what + ": no error string");
  }
  if (lazy()) {
    // Every rank learns it by its next call, which fails on every rank
    // (the calls line up again); the one after works.
    int one = 1, n = 0;
    const int next = MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && next == MPI_SUCCESS) fail(what + ": not reported in the call nor in the next one");
    if (next != MPI_SUCCESS) names_the_failed_call(what, next);
  }
  // Still usable.
  if (sum_of_ones() != g_size) fail(what + ": the communicator is not usable afterwards");
}

// Lazily, a communicator freed right after a mismatch that only the odd
// receiver of a bcast saw (the root and the other receivers returned from
// it): MPI_Comm_free waits for nobody (it reports the error only where it
// was raised already), never hangs, and the world goes on.
void freed_after_a_mismatch(int odd) {
  if (!lazy() || g_size < 2) return;
  const int root = odd == 0 ? g_size - 1 : 0;
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  std::vector<int> x(64, 1);
  if (MPI_Bcast(x.data(), 64, MPI_INT, root, c) != MPI_SUCCESS) fail("bcast before the free: failed");
  const int rc = MPI_Bcast(x.data(), g_rank == odd ? 65 : 64, MPI_INT, root, c);
  const int freed = MPI_Comm_free(&c);
  if (g_rank == odd && rc == MPI_SUCCESS) fail("bcast count at free: the odd rank returned MPI_SUCCESS");
  if (freed != MPI_SUCCESS) fail("bcast count at free: MPI_Comm_free failed");
  if (c != MPI_COMM_NULL) fail("bcast count at free: the communicator was not freed");
  if (sum_of_ones() != g_size) fail("bcast count at free: MPI_COMM_WORLD is not usable afterwards");
}

void add_ints(void* in, void* io, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(io)[i] += static_cast<int*>(in)[i];
}

void run(int odd) {
  const bool single = one_node();
  const int last = g_size - 1, root = odd == 0 ? last : 0;
  for (int n : {1, 100, 30000}) {
    const std::string at = " n=" + std::to_string(n) + " odd rank " + std::to_string(odd);
    std::vector<double> a(static_cast<std::size_t>(n + 8) * g_size, 1.0), b(a.size(), 0.0);
    expect_errors("allreduce count" + at, odd, true, -1, [&](bool me) {
      return MPI_Allreduce(a.data(), b.data(), me ? n + 1 : n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    });
    expect_errors("allreduce datatype" + at, odd, true, -1, [&](bool me) {
      return MPI_Allreduce(a.data(), b.data(), n, me ? MPI_INT64_T : MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    });
    expect_errors("allreduce op" + at, odd, true, -1, [&](bool me) {
      return MPI_Allreduce(a.data(), b.data(), n, MPI_DOUBLE, me ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
    });
    expect_errors("allgather count" + at, odd, true, -1, [&](bool me) {
      return MPI_Allgather(a.data(), me ? n + 2 : n, MPI_DOUBLE, b.data(), n, MPI_DOUBLE, MPI_COMM_WORLD);
    });
    expect_errors("alltoall count" + at, odd, true, -1, [&](bool me) {
      return MPI_Alltoall(a.data(), me ? n + 1 : n, MPI_DOUBLE, b.data(), me ? n + 1 : n, MPI_DOUBLE, MPI_COMM_WORLD);
    });
    expect_errors("bcast count" + at, odd, single, -1,
                  [&](bool me) { return MPI_Bcast(b.data(), me ? n + 3 : n, MPI_DOUBLE, root, MPI_COMM_WORLD); });
    expect_errors("reduce count" + at, odd, single, root, [&](bool me) {
      return MPI_Reduce(a.data(), b.data(), me ? n + 2 : n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    });
    expect_errors("gather count" + at, odd, single, root, [&](bool me) {
      return MPI_Gather(a.data(), me ? n + 1 : n, MPI_DOUBLE, b.data(), n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    });
    expect_errors("scatter count" + at, odd, single, -1, [&](bool me) {
      return MPI_Scatter(a.data(), n, MPI_DOUBLE, b.data(), me ? n + 1 : n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    });
    // scan and exscan run on osmp across nodes too: the odd rank's node
    // fails, and so does every node that waits for what the nodes before it
    // bring (the first node's other ranks may return first).
    expect_errors("scan count" + at, odd, single, -1, [&](bool me) {
      return MPI_Scan(a.data(), b.data(), me ? n + 1 : n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    });
    expect_errors("exscan op" + at, odd, single, -1, [&](bool me) {
      return MPI_Exscan(a.data(), b.data(), n, MPI_DOUBLE, me ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
    });
    // gatherv and scatterv run on osmp on one node and across nodes: a rank
    // whose own count differs from the root's entry for it is an error on
    // every rank of one node; across nodes gatherv's root finds it (the
    // sender's node, if not the root's, returns first, as with the MPI) and
    // scatterv's rank and its node do (the root's node returns first).
    {
      const char* rpn = std::getenv("OSMP_SIM_RANKS_PER_NODE");
      const int per_node = single || !rpn ? g_size : std::atoi(rpn);
      const bool odd_at_root = odd / per_node == root / per_node;
      std::vector<int> counts(static_cast<std::size_t>(g_size), n), displs(counts.size());
      for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<int>(r) * (n + 8);
      expect_errors(
          "gatherv count" + at, odd, single, root,
          [&](bool me) {
            return MPI_Gatherv(a.data(), me ? n + 1 : n, MPI_DOUBLE, b.data(), counts.data(), displs.data(), MPI_DOUBLE,
                               root, MPI_COMM_WORLD);
          },
          single || odd_at_root);
      expect_errors("scatterv count" + at, odd, single, single || odd_at_root ? root : -1, [&](bool me) {
        return MPI_Scatterv(a.data(), counts.data(), displs.data(), MPI_DOUBLE, b.data(), me ? n + 1 : n, MPI_DOUBLE,
                            root, MPI_COMM_WORLD);
      });
    }
    // alltoallv: the odd rank expects one element more from the next rank,
    // an error on every rank of one node; across nodes on the odd rank's
    // node (which checks what its ranks receive; the others may return
    // first).
    {
      std::vector<int> counts(static_cast<std::size_t>(g_size), n), displs(counts.size());
      for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<int>(r) * (n + 8);
      const int next = (odd + 1) % g_size;
      expect_errors("alltoallv counts" + at, odd, single, -1, [&](bool me) {
        std::vector<int> rcounts(counts);
        if (me) rcounts[static_cast<std::size_t>(next)] = n + 1;
        return MPI_Alltoallv(a.data(), counts.data(), displs.data(), MPI_DOUBLE, b.data(), rcounts.data(),
                             displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
      });
    }
    // reduce_scatter runs on osmp across nodes too: counts that differ on
    // one rank (with the same total too: each node's leader compares every
    // rank's digest of them), or on every rank of the odd rank's node (the
    // leaders compare theirs), are an error on every rank.
    for (bool same_total : {false, true}) {
      std::vector<int> counts(static_cast<std::size_t>(g_size), n), other(counts);
      other[0] = n + 1;
      if (same_total) other[1] = n - 1;
      const char* rpn = std::getenv("OSMP_SIM_RANKS_PER_NODE");
      const int per_node = single || !rpn ? g_size : std::atoi(rpn);
      for (bool whole_node : {false, true}) {
        if (whole_node && single) continue;
        const bool differs = whole_node ? g_rank / per_node == odd / per_node : g_rank == odd;
        expect_errors(std::string("reduce_scatter counts") + (whole_node ? " on a node" : "") +
                          (same_total ? ", same total" : "") + at,
                      odd, true, -1, [&](bool) {
                        return MPI_Reduce_scatter(a.data(), b.data(), (differs ? other : counts).data(), MPI_DOUBLE,
                                                  MPI_SUM, MPI_COMM_WORLD);
                      });
      }
    }
    // allgatherv runs on osmp across nodes too (osmp in each node, the MPI
    // among leaders): counts that differ on one rank, or on every rank of
    // the odd rank's node, are an error on every rank.
    {
      std::vector<int> counts(static_cast<std::size_t>(g_size), n), displs(counts.size()), other(counts);
      for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<int>(r) * (n + 8);
      other[0] = n + 1;
      const char* rpn = std::getenv("OSMP_SIM_RANKS_PER_NODE");
      const int per_node = single || !rpn ? g_size : std::atoi(rpn);
      for (bool whole_node : {false, true}) {
        if (whole_node && single) continue;
        const bool differs = whole_node ? g_rank / per_node == odd / per_node : g_rank == odd;
        expect_errors(std::string("allgatherv counts") + (whole_node ? " on a node" : "") + at, odd, true, -1,
                      [&](bool) {
                        const std::vector<int>& mine = differs ? other : counts;
                        return MPI_Allgatherv(a.data(), mine[static_cast<std::size_t>(g_rank)], MPI_DOUBLE, b.data(),
                                              mine.data(), displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
                      });
      }
    }
  }
  std::vector<int> x(64, 1), y(64, 0);
  // A root that differs on one rank: that rank believes it is the root.
  const std::string o = " odd rank " + std::to_string(odd);
  expect_errors("bcast root," + o, odd, single, -1,
                [&](bool me) { return MPI_Bcast(x.data(), 64, MPI_INT, me ? odd : root, MPI_COMM_WORLD); });
  expect_errors("reduce root," + o, odd, single, root, [&](bool me) {
    return MPI_Reduce(x.data(), y.data(), 64, MPI_INT, MPI_SUM, me ? odd : root, MPI_COMM_WORLD);
  });
  // One rank's op is the MPI's to run, the others' osmp's: an error on
  // every rank, or the MPI for all (its answer is then the MPI's business);
  // never a hang.
  MPI_Op user;
  MPI_Op_create(add_ints, 1, &user);
  int rc = MPI_Allreduce(x.data(), y.data(), 64, MPI_INT, g_rank == odd ? user : MPI_SUM, MPI_COMM_WORLD);
  int bad = rc != MPI_SUCCESS, any = 0;
  if (lazy() && bad && sum_of_ones() == g_size) fail("user op on one rank: the next call did not report it");
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (any != 0 && any != g_size) fail("user op on one rank: some ranks failed, others not");
  // The same in a one-way call on one node (across nodes the sending
  // nodes return first), which makes one pass lazily: the rank that
  // declines it takes a plan apart, whose difference is found (it never
  // runs the MPI's reduce alone, which would hang or leave a message).
  if (one_node()) {
    rc = MPI_Reduce(x.data(), y.data(), 64, MPI_INT, g_rank == odd ? user : MPI_SUM, root, MPI_COMM_WORLD);
    bad = rc != MPI_SUCCESS;
    if (lazy() && sum_of_ones() != g_size) bad = 1;  // told in the next call
    any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (any != 0 && any != g_size) fail("user op on one rank of a reduce: some ranks failed, others not");
  }
  MPI_Op_free(&user);
  // Invalid arguments on one rank. Open MPI checks these before its
  // components see the call (that rank returns, the others wait: the MPI's
  // own behaviour), so only the interposer is asked.
  const char* route = std::getenv("OSMP_TEST_ROUTE");
  if (route && std::strcmp(route, "component") == 0) return;
  expect_errors("negative count," + o, odd, single, -1,
                [&](bool me) { return MPI_Bcast(x.data(), me ? -1 : 64, MPI_INT, root, MPI_COMM_WORLD); });
  expect_errors("root out of range," + o, odd, single, root, [&](bool me) {
    return MPI_Reduce(x.data(), y.data(), 64, MPI_INT, MPI_SUM, me ? g_size : root, MPI_COMM_WORLD);
  });
  // Open MPI checks alltoall's send against its receive signature itself.
  expect_errors("alltoall send and receive counts," + o, odd, true, -1, [&](bool me) {
    return MPI_Alltoall(x.data(), me ? 3 : 2, MPI_INT, y.data(), 2, MPI_INT, MPI_COMM_WORLD);
  });
}

// Across nodes with the default OSMP_CHECK=lazy the leaders run only the
// MPI's own collective: a mismatch on rank `odd`, which is not its node's
// leader, fails every rank of that node in the call (each node's part
// agrees in the node), and no rank of another node, whose leaders' call
// went on with that node's leader's buffers; nobody hangs and the next call
// works everywhere. Rooted calls at `root` (the odd rank's too: its node
// still feeds the others). A user op on every rank runs on the MPI.
void lazy_across_nodes(int odd, int root) {
  const char* rpn = std::getenv("OSMP_SIM_RANKS_PER_NODE");
  const int per = rpn ? std::atoi(rpn) : 0;
  const int node_of_odd = per > 0 ? odd / per : 0;
  if (per <= 0 || per >= g_size || odd == node_of_odd * per) fail("lazy_nodes: the odd rank must share a node");
  const bool mine = g_rank / per == node_of_odd;
  const std::string o = " (odd rank " + std::to_string(odd) + ", root " + std::to_string(root) + ")";
  auto expect = [&](const std::string& what_, const std::function<int(bool)>& call) {
    const std::string what = what_ + o;
    const int rc = call(g_rank == odd);
    if (mine && rc == MPI_SUCCESS) fail(what + ": a rank of the odd rank's node returned MPI_SUCCESS");
    if (!mine && rc != MPI_SUCCESS) fail(what + ": a rank of another node failed");
    if (sum_of_ones() != g_size) fail(what + ": the communicator is not usable afterwards");
  };
  for (int n : {1, 100, 30000}) {
    const std::string at = " n=" + std::to_string(n);
    std::vector<double> a(static_cast<std::size_t>(n + 8) * g_size, 1.0), b(a.size(), 0.0);
    expect("allreduce count" + at, [&](bool me) {
      return MPI_Allreduce(a.data(), b.data(), me ? n + 1 : n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    });
    expect("allreduce datatype" + at, [&](bool me) {
      return MPI_Allreduce(a.data(), b.data(), n, me ? MPI_INT64_T : MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    });
    expect("allgather count" + at, [&](bool me) {
      return MPI_Allgather(a.data(), me ? n + 2 : n, MPI_DOUBLE, b.data(), n, MPI_DOUBLE, MPI_COMM_WORLD);
    });
    expect("alltoall count" + at, [&](bool me) {
      return MPI_Alltoall(a.data(), me ? n + 1 : n, MPI_DOUBLE, b.data(), me ? n + 1 : n, MPI_DOUBLE, MPI_COMM_WORLD);
    });
    expect("bcast count" + at,
           [&](bool me) { return MPI_Bcast(b.data(), me ? n + 3 : n, MPI_DOUBLE, root, MPI_COMM_WORLD); });
    expect("reduce count" + at, [&](bool me) {
      return MPI_Reduce(a.data(), b.data(), me ? n + 2 : n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    });
    expect("gather count" + at, [&](bool me) {
      return MPI_Gather(a.data(), me ? n + 1 : n, MPI_DOUBLE, b.data(), n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    });
    expect("scatter count" + at, [&](bool me) {
      return MPI_Scatter(a.data(), n, MPI_DOUBLE, b.data(), me ? n + 1 : n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    });
    expect("scan op" + at, [&](bool me) {
      return MPI_Scan(a.data(), b.data(), n, MPI_DOUBLE, me ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
    });
    expect("reduce_scatter_block count" + at, [&](bool me) {
      return MPI_Reduce_scatter_block(a.data(), b.data(), me ? n + 1 : n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    });
  }
  MPI_Op user;
  MPI_Op_create(add_ints, 1, &user);
  std::vector<int> x(64, 1), y(64, 0);
  expect("user op on one rank",
         [&](bool me) { return MPI_Allreduce(x.data(), y.data(), 64, MPI_INT, me ? user : MPI_SUM, MPI_COMM_WORLD); });
  // Legal: the user op on every rank, every node hands the call to the MPI.
  if (MPI_Allreduce(x.data(), y.data(), 64, MPI_INT, user, MPI_COMM_WORLD) != MPI_SUCCESS || y[0] != g_size ||
      y[63] != g_size)
    fail("user op on every rank: wrong or failed");
  MPI_Op_free(&user);
  // Open MPI checks a negative count before its components see the call.
  const char* route = std::getenv("OSMP_TEST_ROUTE");
  if (route && std::strcmp(route, "component") == 0) return;
  expect("negative count on a rank past the leader",
         [&](bool me) { return MPI_Bcast(x.data(), me ? -1 : 64, MPI_INT, root, MPI_COMM_WORLD); });
}

}  // namespace

int main(int argc, char** argv) {
  start(&argc, &argv);
  if (argc > 1 && std::strcmp(argv[1], "fatal") == 0) {  // MPI_ERRORS_ARE_FATAL: the job ends with the message
    std::vector<double> a(16, 1.0), b(16, 0.0);
    MPI_Allreduce(a.data(), b.data(), g_rank == g_size - 1 ? 15 : 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    std::printf("rank %d: FAIL: the mismatched call returned under MPI_ERRORS_ARE_FATAL\n", g_rank);
    MPI_Finalize();
    return 1;
  }
  if (argc > 1 && std::strcmp(argv[1], "finalize") == 0) {
    int v = 3;
    MPI_Bcast(&v, 1, MPI_INT, g_rank == 1 ? 1 : 0, MPI_COMM_WORLD);
    MPI_Finalize();
    std::printf("rank %d: FAIL: MPI_Finalize returned after a mismatch nobody saw\n", g_rank);
    return 1;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  set_check_info();
  if (argc > 1 && std::strcmp(argv[1], "lazy_nodes") == 0) {
    // The last node's second rank (root 0, and itself the root), the first
    // node's (scan's first node feeds every later one).
    const int per = std::atoi(std::getenv("OSMP_SIM_RANKS_PER_NODE") ? std::getenv("OSMP_SIM_RANKS_PER_NODE") : "0");
    const int last = per > 0 ? (g_size - 1) / per * per + 1 : 1;
    lazy_across_nodes(last, 0);
    lazy_across_nodes(last, last);
    lazy_across_nodes(1, 0);
    return finish("errors");
  }
  for (int odd : {g_size - 1, 0, g_size / 2}) {
    run(odd);
    freed_after_a_mismatch(odd);
  }
  return finish("errors");
}
