// Misusing the C interface (and a moved-from C++ Team): NULL, finalized and
// foreign team handles are OSMP_ERR_ARG with a message, never a crash; a
// finalized handle never names a later team (label sim: real teams).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "api/access.hpp"
#include "osmp.h"
#include "osmp.hpp"
#include "team/thread_bootstrap.hpp"

namespace {

// osmp_init_with over threads: the callbacks run a ThreadBootstrap.
int allgather(const void* in, size_t len, void* out, void* ctx) {
  return static_cast<osmp::ThreadBootstrap*>(ctx)->allgather(in, len, out).ok() ? 0 : 1;
}
int bcast(void* buf, size_t len, int root, void* ctx) {
  return static_cast<osmp::ThreadBootstrap*>(ctx)->broadcast(buf, len, root).ok() ? 0 : 1;
}

// A team of `n` threads; fn(rank, team) on each, then (if fn did not) finalize.
void with_team(int n, const std::function<void(int, osmp_team*)>& fn) {
  osmp::ThreadJob job(n);
  std::vector<std::thread> th;
  for (int r = 0; r < n; ++r) {
    th.emplace_back([&, r] {
      osmp::ThreadBootstrap boot(job, r);
      osmp_team* t = nullptr;
      char err[256] = "";
      ASSERT_EQ(osmp_init_with(r, n, allgather, bcast, &boot, &t, err, sizeof err), OSMP_SUCCESS) << err;
      fn(r, t);
    });
  }
  for (auto& t : th) t.join();
}

osmp_team* solo() {
  osmp_team* t = nullptr;
  osmp::ThreadJob job(1);
  osmp::ThreadBootstrap boot(job, 0);
  char err[256] = "";
  EXPECT_EQ(osmp_init_with(0, 1, allgather, bcast, &boot, &t, err, sizeof err), OSMP_SUCCESS) << err;
  return t;
}

// Every entry point that takes a team, with `t`: all must refuse it.
void expect_refused_everywhere(osmp_team* t, const std::string& words) {
  int x = 0, y = 0;
  const std::int64_t n = 1, d = 0;
  osmp_request q = OSMP_REQUEST_NULL;
  char buf[32];
  const std::vector<std::pair<const char*, std::function<int()>>> calls = {
      {"osmp_barrier", [&] { return osmp_barrier(t); }},
      {"osmp_bcast", [&] { return osmp_bcast(t, &x, 1, OSMP_INT32, 0); }},
      {"osmp_reduce", [&] { return osmp_reduce(t, &x, &y, 1, OSMP_INT32, OSMP_SUM, 0); }},
      {"osmp_allreduce", [&] { return osmp_allreduce(t, &x, &y, 1, OSMP_INT32, OSMP_SUM); }},
      {"osmp_gather", [&] { return osmp_gather(t, &x, &y, 1, OSMP_INT32, 0); }},
      {"osmp_allgather", [&] { return osmp_allgather(t, &x, &y, 1, OSMP_INT32); }},
      {"osmp_scatter", [&] { return osmp_scatter(t, &x, &y, 1, OSMP_INT32, 0); }},
      {"osmp_reduce_scatter_block", [&] { return osmp_reduce_scatter_block(t, &x, &y, 1, OSMP_INT32, OSMP_SUM); }},
      {"osmp_alltoall", [&] { return osmp_alltoall(t, &x, &y, 1, OSMP_INT32); }},
      {"osmp_scan", [&] { return osmp_scan(t, &x, &y, 1, OSMP_INT32, OSMP_SUM); }},
      {"osmp_exscan", [&] { return osmp_exscan(t, &x, &y, 1, OSMP_INT32, OSMP_SUM); }},
      {"osmp_gatherv", [&] { return osmp_gatherv(t, &x, 1, &y, &n, &d, OSMP_INT32, 0); }},
      {"osmp_allgatherv", [&] { return osmp_allgatherv(t, &x, 1, &y, &n, &d, OSMP_INT32); }},
      {"osmp_scatterv", [&] { return osmp_scatterv(t, &x, &n, &d, &y, 1, OSMP_INT32, 0); }},
      {"osmp_alltoallv", [&] { return osmp_alltoallv(t, &x, &n, &d, &y, &n, &d, OSMP_INT32); }},
      {"osmp_reduce_scatter", [&] { return osmp_reduce_scatter(t, &x, &y, &n, OSMP_INT32, OSMP_SUM); }},
      {"osmp_ibarrier", [&] { return osmp_ibarrier(t, &q); }},
      {"osmp_ibcast", [&] { return osmp_ibcast(t, &x, 1, OSMP_INT32, 0, &q); }},
      {"osmp_iscan", [&] { return osmp_iscan(t, &x, &y, 1, OSMP_INT32, OSMP_SUM, &q); }},
      {"osmp_igatherv", [&] { return osmp_igatherv(t, &x, 1, &y, &n, &d, OSMP_INT32, 0, &q); }},
      {"osmp_iscatterv", [&] { return osmp_iscatterv(t, &x, &n, &d, &y, 1, OSMP_INT32, 0, &q); }},
      {"osmp_ireduce_scatter", [&] { return osmp_ireduce_scatter(t, &x, &y, &n, OSMP_INT32, OSMP_SUM, &q); }},
      {"osmp_ialltoallv", [&] { return osmp_ialltoallv(t, &x, &n, &d, &y, &n, &d, OSMP_INT32, &q); }},
      {"osmp_set", [&] { return osmp_set(t, OSMP_COLL_ALL, "OSMP_VH", ""); }},
      {"osmp_set_vh", [&] { return osmp_set_vh(t, OSMP_COLL_ALL, ""); }},
      {"osmp_alloc",
       [&] {
         void* p = nullptr;
         return osmp_alloc(t, 64, &p);
       }},
      {"osmp_free", [&] { return osmp_free(t, &x); }},
  };
  for (const auto& [name, call] : calls) {
    EXPECT_EQ(call(), OSMP_ERR_ARG) << name;
    // The thread's message, through NULL and through the bad handle alike.
    EXPECT_EQ(std::string(osmp_last_error(nullptr)), std::string(name) + ": " + words) << name;
    EXPECT_STREQ(osmp_last_error(t), osmp_last_error(nullptr));
  }
  EXPECT_EQ(osmp_rank(t), -1);
  EXPECT_EQ(std::string(osmp_last_error(nullptr)), "osmp_rank: " + words);
  EXPECT_EQ(osmp_size(t), -1);
  EXPECT_EQ(osmp_get_vh(t, OSMP_COLL_ALL, buf, sizeof buf), -1);
  EXPECT_EQ(std::string(osmp_last_error(nullptr)), "osmp_get_vh: " + words);
  EXPECT_EQ(osmp_finalize(t), OSMP_ERR_ARG);
  EXPECT_EQ(std::string(osmp_last_error(nullptr)), "osmp_finalize: " + words);
}

TEST(CApi, NullTeam) {
  expect_refused_everywhere(nullptr, "the team handle is NULL");
  EXPECT_EQ(osmp_init(nullptr), OSMP_ERR_ARG);
}

TEST(CApi, UseAfterFinalizeAndDoubleFinalize) {
  osmp_team* t = solo();
  ASSERT_EQ(osmp_barrier(t), OSMP_SUCCESS);
  ASSERT_EQ(osmp_finalize(t), OSMP_SUCCESS);
  expect_refused_everywhere(t, "the team was finalized (osmp_finalize); its handle may not be used again");
}

TEST(CApi, AFinalizedHandleNeverNamesALaterTeam) {
  osmp_team* old = solo();
  ASSERT_EQ(osmp_finalize(old), OSMP_SUCCESS);
  for (int i = 0; i < 3; ++i) {  // later teams may reuse its slot, never its handle
    osmp_team* t = solo();
    ASSERT_NE(t, old);
    EXPECT_EQ(osmp_barrier(old), OSMP_ERR_ARG);
    EXPECT_EQ(osmp_finalize(old), OSMP_ERR_ARG);
    EXPECT_EQ(osmp_barrier(t), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(osmp_rank(t), 0);
    EXPECT_EQ(osmp_finalize(t), OSMP_SUCCESS);
  }
}

TEST(CApi, ForeignPointersAreRefusedWithoutBeingRead) {
  // A page nobody may touch: dereferencing it would crash the test.
  void* page = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  osmp_team* live = solo();
  const auto h = reinterpret_cast<std::uintptr_t>(live);
  int on_stack = 0;
  const std::vector<osmp_team*> foreign = {static_cast<osmp_team*>(page),
                                           reinterpret_cast<osmp_team*>(&on_stack),
                                           reinterpret_cast<osmp_team*>(1),
                                           reinterpret_cast<osmp_team*>(~std::uintptr_t{0}),
                                           reinterpret_cast<osmp_team*>(h + 1),           // another slot
                                           reinterpret_cast<osmp_team*>(h + (1u << 16)),  // a generation not issued yet
                                           reinterpret_cast<osmp_team*>(h ^ (1ull << 60))};  // another tag
  for (osmp_team* f : foreign) {
    SCOPED_TRACE(reinterpret_cast<std::uintptr_t>(f));
    expect_refused_everywhere(f, "not a team handle returned by osmp_init or osmp_init_with");
  }
  EXPECT_EQ(osmp_barrier(live), OSMP_SUCCESS);
  EXPECT_STREQ(osmp_last_error(live), "");  // the team's own message: its last call succeeded
  EXPECT_EQ(osmp_finalize(live), OSMP_SUCCESS);
  ::munmap(page, 4096);
}

TEST(CApi, MessagesArePerThreadAndPerTeam) {
  with_team(3, [](int r, osmp_team* t) {
    int x[2] = {1, 1}, y[2] = {0, 0};
    if (r == 1) {
      EXPECT_EQ(osmp_barrier(nullptr), OSMP_ERR_ARG);  // only this thread's message
    }
    // A real error on the team: all ranks, the team's message and the thread's.
    EXPECT_EQ(osmp_allreduce(t, x, y, r == 2 ? 2 : 1, OSMP_INT32, OSMP_SUM), OSMP_ERR_MISMATCH);
    EXPECT_NE(std::string(osmp_last_error(t)).find("disagree on the count"), std::string::npos) << osmp_last_error(t);
    EXPECT_STREQ(osmp_last_error(nullptr), osmp_last_error(t));
    EXPECT_EQ(osmp_allreduce(t, x, y, 1, OSMP_INT32, OSMP_SUM), OSMP_SUCCESS);
    EXPECT_EQ(y[0], 3);
    EXPECT_STREQ(osmp_last_error(t), "");
    EXPECT_EQ(osmp_finalize(t), OSMP_SUCCESS);
    EXPECT_EQ(osmp_finalize(t), OSMP_ERR_ARG);
  });
}

TEST(CppApi, AMovedFromTeamAnswersWithAnError) {
  osmp::ThreadJob job(1);
  osmp::ThreadBootstrap boot(job, 0);
  auto created = osmp::Team::create(boot, osmp::Options{});
  ASSERT_TRUE(created.ok()) << created.status().to_string();
  osmp::Team a = std::move(created).value();
  osmp::Team b = std::move(a);
  EXPECT_TRUE(b.barrier().ok());
  int x = 1, y = 0;
  for (const osmp::Status& st :
       {a.barrier(), a.allreduce(&x, &y, 1, osmp::Datatype::int32, osmp::Op::sum),
        a.bcast(&x, 1, osmp::Datatype::int32, 0), a.set_vh("auto"), a.configure({{"OSMP_VH", ""}})}) {
    EXPECT_EQ(st.code(), osmp::Errc::invalid_argument) << st.to_string();
    EXPECT_NE(st.message().find("this team was moved from"), std::string::npos) << st.message();
  }
  std::vector<int> in(1, 1), out(1);
  EXPECT_EQ(a.allgather(std::span<const int>(in), std::span<int>(out)).code(), osmp::Errc::invalid_argument);
  EXPECT_EQ(a.rank(), -1);
  EXPECT_EQ(a.size(), -1);
  EXPECT_EQ(a.vh(osmp::OpKind::barrier), "");
  EXPECT_EQ(a.views(), 0);
  EXPECT_THROW(core_of(a), std::logic_error);
  a = std::move(b);  // a moved-from team takes a live one again
  EXPECT_TRUE(a.barrier().ok());
}

}  // namespace

namespace {

TEST(CapiRequests, EveryOperationStartedThenWaitedOrTested) {
  with_team(3, [](int r, osmp_team* t) {
    double x = r + 1.0, sum = 0, all[3] = {}, part[3] = {1, 2, 3}, mine = 0, rs[3] = {1, 1, 1}, rsout = 0;
    int b = r == 2 ? 7 : 0;
    osmp_request q[8];
    ASSERT_EQ(osmp_ibarrier(t, &q[0]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_ibcast(t, &b, 1, OSMP_INT32, 2, &q[1]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_iallreduce(t, &x, &sum, 1, OSMP_FLOAT64, OSMP_SUM, &q[2]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_iallgather(t, &x, all, 1, OSMP_FLOAT64, &q[3]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_iscatter(t, part, &mine, 1, OSMP_FLOAT64, 0, &q[4]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_ireduce_scatter_block(t, rs, &rsout, 1, OSMP_FLOAT64, OSMP_SUM, &q[5]), OSMP_SUCCESS);
    double red = 0, gat[3] = {};
    ASSERT_EQ(osmp_ireduce(t, &x, &red, 1, OSMP_FLOAT64, OSMP_MAX, 1, &q[6]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_igather(t, &x, gat, 1, OSMP_FLOAT64, 0, &q[7]), OSMP_SUCCESS);
    int flag = 0;
    while (!flag) ASSERT_EQ(osmp_test(&q[7], &flag), OSMP_SUCCESS);
    EXPECT_EQ(q[7], OSMP_REQUEST_NULL);
    EXPECT_EQ(osmp_waitall(8, q), OSMP_SUCCESS) << osmp_last_error(nullptr);
    for (auto& h : q) EXPECT_EQ(h, OSMP_REQUEST_NULL);
    EXPECT_EQ(b, 7);
    EXPECT_EQ(sum, 6.0);
    EXPECT_EQ(all[2], 3.0);
    EXPECT_EQ(mine, r + 1.0);
    EXPECT_EQ(rsout, 3.0);
    if (r == 1) {
      EXPECT_EQ(red, 3.0);
    }
    if (r == 0) {
      EXPECT_EQ(gat[1], 2.0);
    }
    EXPECT_EQ(osmp_finalize(t), OSMP_SUCCESS);
  });
}

// The operations the test above leaves out, each through osmp_<name> and
// osmp_i<name> (both generated from osmp_ops.h's row): the results MPI's
// rules give, on 3 ranks, with blocks of different lengths for the
// v-variants.
struct Rest {
  int a2a[3] = {}, scan = 0, exscan = -1, gv[6] = {}, agv[6] = {}, sv[3] = {}, a2av[3] = {}, rs[3] = {};
};
void expect_rest(int r, const Rest& o) {
  const int blocks[6] = {0, 1, 1, 2, 2, 2};
  for (int q = 0; q < 3; ++q) EXPECT_EQ(o.a2a[q], 10 * q + r) << q;
  EXPECT_EQ(o.scan, (r + 1) * (r + 2) / 2);
  EXPECT_EQ(o.exscan, r == 0 ? -1 : r * (r + 1) / 2);  // rank 0's is not written
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(o.gv[i], r == 0 ? blocks[i] : 0) << i;
    EXPECT_EQ(o.agv[i], blocks[i]) << i;
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(o.sv[i], i <= r ? r : 0) << i;
  for (int q = 0; q < 3; ++q) EXPECT_EQ(o.a2av[2 - q], 10 * q + r) << q;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(o.rs[i], i <= r ? 3 : 0) << i;
}

TEST(CApi, EveryOtherOperationBlockingAndStarted) {
  with_team(3, [](int r, osmp_team* t) {
    const int x = r + 1, mine[3] = {r, r, r}, blocks[6] = {0, 1, 1, 2, 2, 2}, ones[6] = {1, 1, 1, 1, 1, 1};
    const int a2a_in[3] = {10 * r, 10 * r + 1, 10 * r + 2};
    const std::int64_t counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3};
    const std::int64_t one[3] = {1, 1, 1}, fwd[3] = {0, 1, 2}, back[3] = {2, 1, 0};
    Rest b, n;
    EXPECT_EQ(osmp_alltoall(t, a2a_in, b.a2a, 1, OSMP_INT32), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(osmp_scan(t, &x, &b.scan, 1, OSMP_INT32, OSMP_SUM), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(osmp_exscan(t, &x, &b.exscan, 1, OSMP_INT32, OSMP_SUM), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(osmp_gatherv(t, mine, r + 1, b.gv, counts, displs, OSMP_INT32, 0), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(osmp_allgatherv(t, mine, r + 1, b.agv, counts, displs, OSMP_INT32), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(osmp_scatterv(t, blocks, counts, displs, b.sv, r + 1, OSMP_INT32, 0), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(osmp_alltoallv(t, a2a_in, one, fwd, b.a2av, one, back, OSMP_INT32), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(osmp_reduce_scatter(t, ones, b.rs, counts, OSMP_INT32, OSMP_SUM), OSMP_SUCCESS) << osmp_last_error(t);
    expect_rest(r, b);
    osmp_request q[8];
    ASSERT_EQ(osmp_ialltoall(t, a2a_in, n.a2a, 1, OSMP_INT32, &q[0]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_iscan(t, &x, &n.scan, 1, OSMP_INT32, OSMP_SUM, &q[1]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_iexscan(t, &x, &n.exscan, 1, OSMP_INT32, OSMP_SUM, &q[2]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_igatherv(t, mine, r + 1, n.gv, counts, displs, OSMP_INT32, 0, &q[3]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_iallgatherv(t, mine, r + 1, n.agv, counts, displs, OSMP_INT32, &q[4]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_iscatterv(t, blocks, counts, displs, n.sv, r + 1, OSMP_INT32, 0, &q[5]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_ialltoallv(t, a2a_in, one, fwd, n.a2av, one, back, OSMP_INT32, &q[6]), OSMP_SUCCESS);
    ASSERT_EQ(osmp_ireduce_scatter(t, ones, n.rs, counts, OSMP_INT32, OSMP_SUM, &q[7]), OSMP_SUCCESS);
    EXPECT_EQ(osmp_waitall(8, q), OSMP_SUCCESS) << osmp_last_error(nullptr);
    expect_rest(r, n);
    // OSMP_IN_PLACE is the engine's kInPlace, passed through as it is.
    EXPECT_EQ(OSMP_IN_PLACE, osmp::kInPlace);
    int inout = r + 1;
    EXPECT_EQ(osmp_allreduce(t, OSMP_IN_PLACE, &inout, 1, OSMP_INT32, OSMP_SUM), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(inout, 6);
    EXPECT_EQ(osmp_finalize(t), OSMP_SUCCESS);
  });
}

TEST(CapiRequests, BadRequestsAreArgumentErrors) {
  osmp_team* t = solo();
  osmp_request q = OSMP_REQUEST_NULL;
  int flag = 0;
  EXPECT_EQ(osmp_wait(&q), OSMP_SUCCESS);  // the null request
  EXPECT_EQ(osmp_test(&q, &flag), OSMP_SUCCESS);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(osmp_ibarrier(t, nullptr), OSMP_ERR_ARG);
  EXPECT_NE(std::string(osmp_last_error(nullptr)).find("request pointer is NULL"), std::string::npos);
  EXPECT_EQ(osmp_wait(nullptr), OSMP_ERR_ARG);
  EXPECT_EQ(osmp_test(&q, nullptr), OSMP_ERR_ARG);
  // A value osmp never returned, and a request completed already.
  osmp_request foreign = reinterpret_cast<osmp_request>(static_cast<std::uintptr_t>(0x1234));
  EXPECT_EQ(osmp_wait(&foreign), OSMP_ERR_ARG);
  EXPECT_NE(std::string(osmp_last_error(nullptr)).find("not a pending request"), std::string::npos);
  ASSERT_EQ(osmp_ibarrier(t, &q), OSMP_SUCCESS);
  osmp_request copy = q;
  EXPECT_EQ(osmp_wait(&q), OSMP_SUCCESS);
  EXPECT_EQ(osmp_wait(&copy), OSMP_ERR_ARG);
  EXPECT_EQ(osmp_request_free(&copy), OSMP_ERR_ARG);
  EXPECT_EQ(osmp_waitall(-1, nullptr), OSMP_ERR_ARG);
  // A bad team: the request stays null.
  q = reinterpret_cast<osmp_request>(static_cast<std::uintptr_t>(0x99));
  EXPECT_EQ(osmp_ibarrier(nullptr, &q), OSMP_ERR_ARG);
  EXPECT_EQ(q, OSMP_REQUEST_NULL);
  EXPECT_EQ(osmp_finalize(t), OSMP_SUCCESS);
}

TEST(CapiRequests, ACallsErrorComesWithItsCompletion) {
  with_team(2, [](int r, osmp_team* t) {
    int x = 1, y = 0;
    osmp_request q;
    // Rank 1 passes no receive buffer: both ranks learn it from the request.
    ASSERT_EQ(osmp_iallreduce(t, &x, r == 1 ? nullptr : &y, 1, OSMP_INT32, OSMP_SUM, &q), OSMP_SUCCESS);
    EXPECT_EQ(osmp_wait(&q), OSMP_ERR_ARG);
    EXPECT_NE(std::string(osmp_last_error(nullptr)).find("osmp_wait"), std::string::npos);
    // A freed request's call still runs; finalize completes it.
    ASSERT_EQ(osmp_iallreduce(t, &x, &y, 1, OSMP_INT32, OSMP_SUM, &q), OSMP_SUCCESS);
    EXPECT_EQ(osmp_request_free(&q), OSMP_SUCCESS);
    EXPECT_EQ(q, OSMP_REQUEST_NULL);
    EXPECT_EQ(osmp_finalize(t), OSMP_SUCCESS);
    EXPECT_EQ(y, 2);
  });
}

// The shared heap through C: a bcast from heap memory, the errors a user
// can make (a pointer from elsewhere, a second free), and no room.
TEST(CApi, HeapAllocFreeAndErrors) {
  with_team(2, [](int r, osmp_team* t) {
    const int64_t n = 100000;
    void* p = nullptr;
    ASSERT_EQ(osmp_alloc(t, n * sizeof(int32_t), &p), OSMP_SUCCESS) << osmp_last_error(t);
    auto* v = static_cast<int32_t*>(p);
    for (int64_t i = 0; i < n; ++i) v[i] = r == 0 ? static_cast<int32_t>(i * 3) : 0;
    ASSERT_EQ(osmp_bcast(t, v, n, OSMP_INT32, 0), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(v[n - 1], static_cast<int32_t>((n - 1) * 3));
    int local = 0;
    EXPECT_EQ(osmp_free(t, &local), OSMP_ERR_ARG);
    EXPECT_NE(std::string(osmp_last_error(t)).find("not in this process's shared heap"), std::string::npos);
    EXPECT_EQ(osmp_free(t, p), OSMP_SUCCESS);
    EXPECT_EQ(osmp_free(t, p), OSMP_ERR_ARG);
    EXPECT_NE(std::string(osmp_last_error(t)).find("freed twice"), std::string::npos) << osmp_last_error(t);
    EXPECT_EQ(osmp_free(t, nullptr), OSMP_SUCCESS);
    void* q = nullptr;
    EXPECT_EQ(osmp_alloc(t, size_t{1} << 60, &q), OSMP_ERR_NO_SPACE);
    EXPECT_EQ(q, nullptr);
    EXPECT_EQ(osmp_alloc(t, 64, nullptr), OSMP_ERR_ARG);
    EXPECT_EQ(osmp_barrier(t), OSMP_SUCCESS);
    EXPECT_EQ(osmp_finalize(t), OSMP_SUCCESS);
  });
}

}  // namespace

// osmp_team_split and osmp_team_dup: who is where, a collective on each new
// team, the parent still working, and each finalized on its own; NULL out
// on every rank is an argument error and no collective.
TEST(CApi, SplitAndDup) {
  with_team(4, [](int r, osmp_team* t) {
    osmp_team* half = nullptr;
    osmp_team* copy = nullptr;
    osmp_team* none = reinterpret_cast<osmp_team*>(1);
    ASSERT_EQ(osmp_team_split(t, r % 2, -r, &half), OSMP_SUCCESS) << osmp_last_error(t);
    ASSERT_EQ(osmp_team_dup(t, &copy), OSMP_SUCCESS) << osmp_last_error(t);
    ASSERT_EQ(osmp_team_split(t, r == 0 ? OSMP_UNDEFINED : 1, 0, &none), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(osmp_size(half), 2);
    EXPECT_EQ(osmp_rank(half), r < 2 ? 1 : 0);  // keys -r: the higher rank first
    EXPECT_EQ(osmp_rank(copy), r);
    EXPECT_EQ(osmp_size(copy), 4);
    if (r == 0) {
      EXPECT_EQ(none, nullptr);
    } else {
      EXPECT_EQ(osmp_size(none), 3);
      EXPECT_EQ(osmp_rank(none), r - 1);
    }
    int x = r, sum = -1;
    EXPECT_EQ(osmp_allreduce(half, &x, &sum, 1, OSMP_INT32, OSMP_SUM), OSMP_SUCCESS) << osmp_last_error(half);
    EXPECT_EQ(sum, r % 2 ? 1 + 3 : 0 + 2);
    EXPECT_EQ(osmp_allreduce(copy, &x, &sum, 1, OSMP_INT32, OSMP_SUM), OSMP_SUCCESS) << osmp_last_error(copy);
    EXPECT_EQ(sum, 6);
    EXPECT_EQ(osmp_allreduce(t, &x, &sum, 1, OSMP_INT32, OSMP_MAX), OSMP_SUCCESS) << osmp_last_error(t);
    EXPECT_EQ(sum, 3);
    EXPECT_EQ(osmp_team_dup(t, nullptr), OSMP_ERR_ARG);
    EXPECT_NE(std::string(osmp_last_error(t)).find("out is NULL"), std::string::npos) << osmp_last_error(t);
    EXPECT_EQ(osmp_finalize(half), OSMP_SUCCESS);
    EXPECT_EQ(osmp_finalize(copy), OSMP_SUCCESS);
    if (none) {
      EXPECT_EQ(osmp_finalize(none), OSMP_SUCCESS);
    }
    EXPECT_EQ(osmp_finalize(t), OSMP_SUCCESS);
  });
}
