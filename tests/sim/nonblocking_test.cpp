// Non-blocking calls (Team::ibarrier() and the others), ranks as threads:
// the collective matrix through requests, many outstanding calls waited in
// random orders, blocking calls after pending ones, two teams waited in
// opposite orders, errors reported by requests.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "support/collective_suite.hpp"
#include "team_api_harness.hpp"

namespace osmp {
namespace {

using test::Config;
using test::Mode;

// A failure seen on any rank, the first kept.
struct FirstError {
  std::mutex m;
  std::string what;
  void note(const std::string& s) {
    if (s.empty()) return;
    std::lock_guard lock(m);
    if (what.empty()) what = s;
  }
};

class NbMatrix : public ::testing::TestWithParam<Config> {};

TEST_P(NbMatrix, EveryOpThroughWait) {
  auto tt = test::make_teams(GetParam());
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  auto cases = test::matrix(GetParam().n, {0, 1, 7}, true, {4096});
  EXPECT_EQ(test::run_cases(tt, cases, 11, Mode::wait), "");
}

class NbLarge : public ::testing::TestWithParam<Config> {};

TEST_P(NbLarge, CallsThroughTest) {
  // Chunked steps (bcast, reduce, allreduce), the CMA paths (gather,
  // allgather, scatter, reduce_scatter_block, alltoall; OSMP_CMA=1, whether
  // it pays on this host or not), then with
  // OSMP_CMA=0 gather's and scatter's flat paths (allgather's and
  // alltoall's are their v-variants', which Varied runs with OSMP_CMA=0),
  // moved on by test() alone.
  auto tt = test::make_teams(GetParam());
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  std::vector<test::CollCase> cases, flat;
  for (auto& c : test::matrix(GetParam().n, {}, false, {300000}))
    if (c.type == Datatype::float64 || c.type == Datatype::uint8) cases.push_back(c);
  for (const auto& c : test::matrix(GetParam().n, {}, false, {100000}))  // past an outbox: in chunks
    if ((c.kind == OpKind::gather || c.kind == OpKind::scatter) && c.type == Datatype::float64) flat.push_back(c);
  ASSERT_FALSE(flat.empty());
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CMA", "1"}}).ok()); });
  EXPECT_EQ(test::run_cases(tt, cases, 12, Mode::test_loop), "");
  if (GetParam().n > 4) return;  // the flat paths once, on the small team (time: 8 threads on 2 CPUs)
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CMA", "0"}}).ok()); });
  EXPECT_EQ(test::run_cases(tt, flat, 13, Mode::test_loop), "") << "OSMP_CMA=0";
}

const Config kNbConfigs[] = {
    {"here_2", "", 2, MapBy::core, "", "", ""},
    {"here_5_lazy", "", 5, MapBy::core, "", "", "lazy"},
    {"here_7_flat", "", 7, MapBy::core, "", "flat", ""},
    {"cascadelake_16_degree2", "cascadelake", 16, MapBy::core, "Package:2", "", ""},
};

INSTANTIATE_TEST_SUITE_P(Configs, NbMatrix, ::testing::ValuesIn(kNbConfigs),
                         [](const auto& p) { return p.param.name; });

// At most 8 ranks: test() in a loop on 16 threads of 2 CPUs is slow by nature.
INSTANTIATE_TEST_SUITE_P(Configs, NbLarge,
                         ::testing::Values(Config{"here_3_lazy", "", 3, MapBy::core, "", "", "lazy"},
                                           Config{"rome_8_scatter", "rome", 8, MapBy::scatter, "", "", ""}),
                         [](const auto& p) { return p.param.name; });

// 16 mixed calls (every operation, small and large, several roots) started
// in the same order everywhere, waited in a random order of each rank's own.
class Outstanding : public ::testing::TestWithParam<Config> {};

TEST_P(Outstanding, SixteenWaitedInRandomOrder) {
  const Config& cfg = GetParam();
  auto tt = test::make_teams(cfg);
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  const int n = cfg.n;
  std::vector<test::CollCase> cases = {
      {OpKind::allreduce, Datatype::float64, Op::sum, 3},
      {OpKind::bcast, Datatype::int32, Op::sum, 9, n - 1},
      {OpKind::barrier},
      {OpKind::reduce, Datatype::int64, Op::max, 5, n / 2},
      {OpKind::gather, Datatype::uint8, Op::sum, 17, 1},
      {OpKind::allgather, Datatype::int16, Op::sum, 4},
      {OpKind::scatter, Datatype::float32, Op::sum, 6, 0},
      {OpKind::reduce_scatter_block, Datatype::int32, Op::sum, 2},
      {OpKind::allreduce, Datatype::int32, Op::bxor, 40000},  // chunked
      {OpKind::bcast, Datatype::uint8, Op::sum, 200000, 1},   // chunked
      {OpKind::gather, Datatype::int32, Op::sum, 30000, 0},   // CMA (flat without)
      {OpKind::allreduce, Datatype::uint16, Op::min, 1, -1, true},
      {OpKind::barrier},
      {OpKind::allgather, Datatype::float64, Op::sum, 20000},  // CMA (flat without)
      {OpKind::reduce, Datatype::float32, Op::sum, 33, 0, true},
      {OpKind::scatter, Datatype::int64, Op::sum, 9000, n - 1},  // CMA (flat without)
      {OpKind::alltoall, Datatype::int32, Op::sum, 3},
      {OpKind::alltoall, Datatype::float64, Op::sum, 9000},  // CMA (flat without)
      {OpKind::alltoall, Datatype::uint8, Op::sum, 70, -1, true},
  };
  FirstError err;
  test::on_all(tt, [&](Team& t) {
    for (int round = 0; round < 3; ++round) {
      std::vector<std::unique_ptr<test::PreparedCase>> p;
      std::vector<Request> r;
      for (std::size_t i = 0; i < cases.size(); ++i) {
        p.push_back(test::prepare(t, cases[i], static_cast<std::uint32_t>(100 * round + i)));
        r.push_back(p.back()->start(t));
      }
      std::vector<std::size_t> order(cases.size());
      std::iota(order.begin(), order.end(), 0);
      std::mt19937 rng(static_cast<unsigned>(t.rank() * 7919 + round));
      std::shuffle(order.begin(), order.end(), rng);
      for (std::size_t i : order) {
        std::string bad = p[i]->check(r[i].wait());
        if (!bad.empty()) err.note(cat("round ", round, ", ", cases[i].name(), ": ", bad));
      }
    }
  });
  EXPECT_EQ(err.what, "");
}

INSTANTIATE_TEST_SUITE_P(Teams, Outstanding,
                         ::testing::Values(Config{"here8", "", 8, MapBy::core, "", "", ""},
                                           Config{"here8_lazy", "", 8, MapBy::core, "", "", "lazy"},
                                           Config{"here16", "", 16, MapBy::core, "", "", ""},
                                           Config{"rome16", "rome", 16, MapBy::scatter, "", "", ""}),
                         [](const auto& p) { return p.param.name; });

TEST(NonBlocking, BlockingCallsComeAfterTheStartedOnes) {
  auto tt = test::make_teams({"here4", "", 4, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  FirstError err;
  test::on_all(tt, [&](Team& t) {
    // Started: x = bcast from rank 2; then, blocking, an allreduce of x that
    // must see the bcast's value on every rank.
    std::int64_t x = t.rank() == 2 ? 42 : -1, sum = 0;
    Request r = t.ibcast(&x, 1, Datatype::int64, 2);
    Status st = t.allreduce(&x, &sum, 1, Datatype::int64, Op::sum);
    if (!st.ok()) err.note(st.to_string());
    if (!r.done()) err.note("the blocking call returned before the call started earlier");
    if (sum != 42 * 4) err.note(cat("rank ", t.rank(), ": sum ", sum));
    if (!r.wait().ok()) err.note(r.status().to_string());
  });
  EXPECT_EQ(err.what, "");
}

TEST(NonBlocking, TestReturnsWhileAPeerIsLate) {
  auto tt = test::make_teams({"here2", "", 2, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  FirstError err;
  test::on_all(tt, [&](Team& t) {
    if (t.rank() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    double v = 1.0 + t.rank(), out = 0;
    Request r = t.iallreduce(&v, &out, 1, Datatype::float64, Op::sum);
    if (t.rank() == 0) {
      // Rank 1 starts 200 ms later: test() answers at once meanwhile.
      auto t0 = std::chrono::steady_clock::now();
      int tests = 0;
      while (!r.test()) ++tests;
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
      if (tests < 10) err.note(cat("test() was called only ", tests, " times in ", ms, " ms"));
    }
    if (!r.wait().ok() || out != 3.0) err.note(cat("rank ", t.rank(), ": ", r.status().to_string(), ", out ", out));
  });
  EXPECT_EQ(err.what, "");
}

TEST(NonBlocking, TwoTeamsWaitedInOppositeOrders) {
  auto a = test::make_teams({"here4", "", 4, MapBy::core, "", "", ""});
  auto b = test::make_teams({"here4", "", 4, MapBy::core, "", "", ""});
  ASSERT_TRUE(a.ok() && b.ok()) << a.first_error() << b.first_error();
  FirstError err;
  std::vector<std::thread> th;
  for (int r = 0; r < 4; ++r) {
    th.emplace_back([&, r] {
      Team& ta = *a.teams[static_cast<std::size_t>(r)];
      Team& tb = *b.teams[static_cast<std::size_t>(r)];
      int x = r == 0 ? 7 : 0, y = r == 3 ? 9 : 0;
      Request ra = ta.ibcast(&x, 1, Datatype::int32, 0);
      Request rb = tb.ibcast(&y, 1, Datatype::int32, 3);
      Status s1 = r % 2 ? rb.wait() : ra.wait();
      Status s2 = r % 2 ? ra.wait() : rb.wait();
      if (!s1.ok() || !s2.ok() || x != 7 || y != 9) err.note(cat("rank ", r, ": x ", x, " y ", y));
      // A blocking call on one team while a call waits on the other: rank 0
      // takes team b's barrier before waiting for team a's call.
      Request rc = ta.ibarrier();
      if (r == 0) {
        if (Status st = tb.barrier(); !st.ok()) err.note(st.to_string());
        if (Status st = rc.wait(); !st.ok()) err.note(st.to_string());
      } else {
        if (Status st = rc.wait(); !st.ok()) err.note(st.to_string());
        if (Status st = tb.barrier(); !st.ok()) err.note(st.to_string());
      }
    });
  }
  for (auto& t : th) t.join();
  EXPECT_EQ(err.what, "");
}

TEST(NonBlocking, BadArgumentsAreTheRequestsError) {
  auto tt = test::make_teams({"here3", "", 3, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  FirstError err;
  test::on_all(tt, [&](Team& t) {
    std::int32_t v = 1, out = 0;
    // Rank 1 passes no receive buffer (an allreduce: every rank hears of it
    // in the call itself, as the result comes down).
    Request r = t.iallreduce(&v, t.rank() == 1 ? nullptr : &out, 1, Datatype::int32, Op::sum);
    Status st = r.wait();
    if (st.code() != Errc::invalid_argument) err.note(cat("rank ", t.rank(), ": ", st.to_string()));
    if (t.rank() == 1 && st.message().find("null receive buffer") == std::string::npos) err.note(st.to_string());
    if (t.rank() != 1 && st.message().find("rank 1") == std::string::npos) err.note(st.to_string());
    // The team goes on.
    Request ok = t.iallreduce(&v, &out, 1, Datatype::int32, Op::sum);
    if (!ok.wait().ok() || out != 3) err.note(cat("after the error: ", ok.status().to_string()));
  });
  EXPECT_EQ(err.what, "");
}

TEST(NonBlocking, MismatchReportedByTheRequestOrTheNextCall) {
  auto tt = test::make_teams({"here2", "", 2, MapBy::core, "", "", "lazy"});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  FirstError err;
  test::on_all(tt, [&](Team& t) {
    // A one-pass bcast: the root returns at once; the receiver finds that
    // the counts differ.
    std::int32_t buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    Request r = t.ibcast(buf, t.rank() == 0 ? 8 : 4, Datatype::int32, 0);
    Status first = r.wait();
    Status next = t.barrier();
    Status fin = t.finish();
    const bool told = first.code() == Errc::mismatch || next.code() == Errc::mismatch || fin.code() == Errc::mismatch;
    if (!told) err.note(cat("rank ", t.rank(), " was not told: ", first.to_string(), " / ", next.to_string()));
  });
  EXPECT_EQ(err.what, "");
}

TEST(NonBlocking, ADetachedCallStillCompletes) {
  auto tt = test::make_teams({"here3", "", 3, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  FirstError err;
  test::on_all(tt, [&](Team& t) {
    std::int64_t v = t.rank() + 1, out = 0;
    {
      Request r = t.iallreduce(&v, &out, 1, Datatype::int64, Op::sum);
      r.reset();  // MPI_Request_free
    }
    if (Status st = t.finish(); !st.ok()) err.note(st.to_string());
    if (out != 6) err.note(cat("rank ", t.rank(), ": out ", out));
  });
  EXPECT_EQ(err.what, "");
}

TEST(NonBlocking, WaitAllAndEmptyRequests) {
  auto tt = test::make_teams({"here3", "", 3, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  FirstError err;
  test::on_all(tt, [&](Team& t) {
    std::int32_t a = t.rank(), b[3] = {}, c = 0;
    std::vector<Request> rs;
    rs.push_back(t.iallgather(&a, b, 1, Datatype::int32));
    rs.emplace_back();  // empty: complete and ok
    rs.push_back(t.iallreduce(&a, &c, 1, Datatype::int32, Op::max));
    if (Status st = wait_all(rs); !st.ok()) err.note(st.to_string());
    if (b[0] != 0 || b[1] != 1 || b[2] != 2 || c != 2) err.note(cat("rank ", t.rank(), ": wrong results"));
    // A second wait gives the same status.
    if (!rs[0].wait().ok() || !rs[0].done()) err.note("a second wait");
  });
  EXPECT_EQ(err.what, "");
}

TEST(NonBlocking, StartedInOneThreadWaitedInAnother) {
  auto tt = test::make_teams({"here3", "", 3, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  FirstError err;
  test::on_all(tt, [&](Team& t) {
    std::int64_t v = t.rank() + 1, out = 0;
    Request r;
    std::thread([&] { r = t.iallreduce(&v, &out, 1, Datatype::int64, Op::sum); }).join();
    // Another thread (one at a time, as MPI_THREAD_SERIALIZED allows) tests and waits.
    std::thread([&] {
      while (!r.test()) {}
      if (!r.wait().ok() || out != 6) err.note(cat("rank ", t.rank(), ": ", r.status().to_string(), ", out ", out));
      // And the team's next calls from this thread work.
      if (Status st = t.barrier(); !st.ok()) err.note(st.to_string());
    }).join();
  });
  EXPECT_EQ(err.what, "");
}

TEST(NonBlocking, AMovedFromTeamsRequestFails) {
  auto tt = test::make_teams({"here1", "", 1, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  Team moved = std::move(*tt.teams[0]);
  Request r = tt.teams[0]->ibarrier();
  EXPECT_TRUE(r.done());
  EXPECT_EQ(r.wait().code(), Errc::invalid_argument);
  EXPECT_TRUE(moved.ibarrier().wait().ok());
}

}  // namespace
}  // namespace osmp
