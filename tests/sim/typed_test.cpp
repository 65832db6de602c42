// The C++ typed forms (std::span, the datatype from T), blocking and not,
// every operation, in place and not, ranks as threads (label sim); spans
// whose sizes do not fit on one rank: an error there and on the others
// (nobody waits), and the team works after it.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "team_api_harness.hpp"

namespace osmp {
namespace {

constexpr std::size_t kN = 1000;

double v(int rank, std::size_t i) { return static_cast<double>(rank * 1000) + static_cast<double>(i); }
double sum_at(int n, std::size_t i) {
  double s = 0;
  for (int r = 0; r < n; ++r) s += v(r, i);
  return s;
}

// Every operation through its typed forms; `nb`: the non-blocking ones.
void every_operation(Team& t, bool nb) {
  const int me = t.rank(), n = t.size(), root = n - 1;
  const std::size_t un = static_cast<std::size_t>(n);
  auto done = [&](auto&& call_blocking, auto&& call_started) {
    Status st = nb ? call_started().wait() : call_blocking();
    ASSERT_TRUE(st.ok()) << st.to_string();
  };
  std::vector<double> mine(kN), out(kN), all(kN * un);
  for (std::size_t i = 0; i < kN; ++i) mine[i] = v(me, i);
  std::span<const double> in(mine);

  std::vector<double> b(kN, me == root ? 1.5 : 0.0);
  done([&] { return t.bcast(std::span<double>(b), root); }, [&] { return t.ibcast(std::span<double>(b), root); });
  EXPECT_EQ(b[kN - 1], 1.5);

  done([&] { return t.reduce(in, std::span<double>(out), Op::sum, root); },
       [&] { return t.ireduce(in, std::span<double>(out), Op::sum, root); });
  if (me == root) {
    EXPECT_EQ(out[7], sum_at(n, 7));
  }
  std::vector<double> io = mine;
  done([&] { return t.reduce(std::span<double>(io), Op::sum, root); },
       [&] { return t.ireduce(std::span<double>(io), Op::sum, root); });
  if (me == root) {
    EXPECT_EQ(io[9], sum_at(n, 9));
  }

  done([&] { return t.allreduce(in, std::span<double>(out), Op::max); },
       [&] { return t.iallreduce(in, std::span<double>(out), Op::max); });
  EXPECT_EQ(out[3], v(n - 1, 3));
  io = mine;
  done([&] { return t.allreduce(std::span<double>(io), Op::sum); },
       [&] { return t.iallreduce(std::span<double>(io), Op::sum); });
  EXPECT_EQ(io[kN - 1], sum_at(n, kN - 1));

  std::vector<double> g(me == root ? kN * un : 0);
  done([&] { return t.gather(in, std::span<double>(g), root); },
       [&] { return t.igather(in, std::span<double>(g), root); });
  if (me == root) {
    EXPECT_EQ(g[kN + 5], v(1, 5));
  }

  done([&] { return t.allgather(in, std::span<double>(all)); },
       [&] { return t.iallgather(in, std::span<double>(all)); });
  EXPECT_EQ(all[(un - 1) * kN + 2], v(n - 1, 2));
  std::vector<double> ag(kN * un, -1.0);
  std::copy(mine.begin(), mine.end(), ag.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(me) * kN));
  done([&] { return t.allgather(std::span<double>(ag)); }, [&] { return t.iallgather(std::span<double>(ag)); });
  EXPECT_EQ(ag[kN + 4], v(1, 4));

  std::vector<double> sc(me == root ? kN * un : 0);
  for (std::size_t i = 0; i < sc.size(); ++i) sc[i] = static_cast<double>(i);
  done([&] { return t.scatter(std::span<const double>(sc), std::span<double>(out), root); },
       [&] { return t.iscatter(std::span<const double>(sc), std::span<double>(out), root); });
  EXPECT_EQ(out[1], static_cast<double>(static_cast<std::size_t>(me) * kN + 1));

  std::vector<double> gi(me == root ? kN * un : kN);
  if (me == root) {
    std::copy(mine.begin(), mine.end(), gi.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(me) * kN));
  } else {
    gi = mine;
  }
  done([&] { return t.gather(std::span<double>(gi), root); }, [&] { return t.igather(std::span<double>(gi), root); });
  if (me == root) {
    EXPECT_EQ(gi[6], v(0, 6));
  }
  std::vector<double> si(me == root ? kN * un : kN, -1.0);
  for (std::size_t i = 0; me == root && i < si.size(); ++i) si[i] = static_cast<double>(i);
  done([&] { return t.scatter(std::span<double>(si), root); }, [&] { return t.iscatter(std::span<double>(si), root); });
  const std::size_t at = me == root ? static_cast<std::size_t>(me) * kN + 3 : 3;  // the root's block stays in place
  EXPECT_EQ(si[at], static_cast<double>(static_cast<std::size_t>(me) * kN + 3));

  std::vector<double> rs(kN * un);
  for (std::size_t i = 0; i < rs.size(); ++i) rs[i] = v(me, i);
  done([&] { return t.reduce_scatter_block(std::span<const double>(rs), std::span<double>(out), Op::sum); },
       [&] { return t.ireduce_scatter_block(std::span<const double>(rs), std::span<double>(out), Op::sum); });
  EXPECT_EQ(out[0], sum_at(n, static_cast<std::size_t>(me) * kN));
  done([&] { return t.reduce_scatter_block(std::span<double>(rs), Op::sum); },
       [&] { return t.ireduce_scatter_block(std::span<double>(rs), Op::sum); });
  EXPECT_EQ(rs[2], sum_at(n, static_cast<std::size_t>(me) * kN + 2));
}

TEST(TypedForms, EveryOperationBlockingAndNot) {
  auto tt = test::make_teams({"here_3", "", 3, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  test::on_all(tt, [](Team& t) {
    every_operation(t, false);
    every_operation(t, true);
  });
}

// One rank's output span is one element short: it gets the size error, the
// others an error too (they do not wait for it), and the next calls work.
TEST(TypedForms, SpansThatDoNotFitOnOneRank) {
  auto tt = test::make_teams({"here_3", "", 3, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  test::on_all(tt, [](Team& t) {
    std::vector<double> in(kN, 1.0), out(t.rank() == 1 ? kN - 1 : kN);
    Status st = t.allreduce(std::span<const double>(in), std::span<double>(out), Op::sum);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), Errc::invalid_argument) << st.to_string();
    if (t.rank() == 1) {
      EXPECT_NE(st.message().find("rank 1's spans"), std::string::npos) << st.to_string();
    }
    Request r = t.iallgather(std::span<const double>(in), std::span<double>(out));  // too short everywhere
    EXPECT_FALSE(r.wait().ok());
    std::vector<double> good(kN);
    Status after = t.allreduce(std::span<const double>(in), std::span<double>(good), Op::sum);
    ASSERT_TRUE(after.ok()) << after.to_string();
    EXPECT_EQ(good[0], 3.0);
  });
}

// A root whose output (reduce, gather) or input (scatter) does not fit, in
// small calls (the one-pass plans under OSMP_CHECK=lazy, the default here:
// senders learn of it at their next call) and large ones, lazy and strict:
// every rank gets an error, in that call or the next, and nobody waits.
TEST(TypedForms, ARootWhoseSpansDoNotFit) {
  for (const char* check : {"lazy", "strict"}) {
    auto tt = test::make_teams({"here_3", "", 3, MapBy::core, "", "", check});
    ASSERT_TRUE(tt.ok()) << tt.first_error();
    for (std::size_t count : {std::size_t{16}, std::size_t{40000}}) {
      test::on_all(tt, [&](Team& t) {
        const bool root = t.rank() == 0;
        std::vector<double> in(count, 1.0), out(root ? count - 1 : count), all(root ? 3 * count - 1 : 0);
        std::vector<Status> got;
        got.push_back(t.reduce(std::span<const double>(in), std::span<double>(out), Op::sum, 0));
        got.push_back(t.gather(std::span<const double>(in), std::span<double>(all), 0));
        got.push_back(t.scatter(std::span<const double>(all), std::span<double>(in), 0));
        Status next = t.barrier();  // lazy senders learn of the last failure here
        int errors = 0;
        for (const Status& st : got) errors += st.ok() ? 0 : 1;
        if (root) {
          EXPECT_EQ(errors, 3) << check << " count " << count;
        } else {
          EXPECT_TRUE(errors + (next.ok() ? 0 : 1) >= 1) << check << " count " << count;
        }
        Status after = t.allreduce(std::span<double>(in), Op::sum);
        EXPECT_TRUE(after.ok()) << after.to_string();
      });
    }
  }
}

}  // namespace
}  // namespace osmp
