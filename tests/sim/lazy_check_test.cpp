// OSMP_CHECK=lazy: one-pass calls do not agree on the headers before they
// move data, so a mismatch is found by the ranks that read (a bcast's
// receivers, a reduce's root) or, where nobody read, by the next call's
// comparison or by Team::finish(). Every rank learns it at the latest in its
// next call on the team, whose error names the failed call; the team stays
// usable. The immediate agreement of OSMP_CHECK=strict is mismatch_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "api/access.hpp"
#include "team/team.hpp"
#include "team_api_harness.hpp"

namespace osmp {
namespace {

using test::Config;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

class LazyCheck : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    tt_ = std::make_unique<test::ThreadTeams>(test::make_teams(GetParam()));
    ASSERT_TRUE(tt_->ok()) << tt_->first_error();
  }
  int n() const { return GetParam().n; }

  // fn on every rank; the statuses by rank.
  std::vector<Status> run(const std::function<Status(Team&)>& fn) {
    std::mutex m;
    std::vector<Status> got(static_cast<std::size_t>(n()));
    test::on_all(*tt_, [&](Team& t) {
      Status st = fn(t);
      std::lock_guard lock(m);
      got[static_cast<std::size_t>(t.rank())] = st;
    });
    return got;
  }

  // A correct allreduce on every rank; `fails`: each rank's must fail with
  // `code` (a mismatch; the failed call's own code where it was not one)
  // and a message that names the earlier failed call and `what`.
  void next_call(bool fails, const std::string& what = "", Errc code = Errc::mismatch) {
    auto got = run([&](Team& t) {
      std::int64_t v = t.rank() + 1, sum = 0;
      Status st = t.allreduce(&v, &sum, 1, Datatype::int64, Op::sum);
      if (st.ok()) {
        EXPECT_EQ(sum, n() * (n() + 1) / 2) << "rank " << t.rank();
      }
      return st;
    });
    for (int r = 0; r < n(); ++r) {
      const Status& st = got[static_cast<std::size_t>(r)];
      if (!fails) {
        EXPECT_TRUE(st.ok()) << "rank " << r << ": team unusable after the error: " << st.to_string();
        continue;
      }
      EXPECT_EQ(st.code(), code) << "rank " << r << ": " << st.to_string();
      EXPECT_THAT(st.message(), ContainsRegex("^allreduce: not (run|completed): call [0-9]+ on this team failed: "))
          << "rank " << r;
      EXPECT_THAT(st.message(), HasSubstr(what)) << "rank " << r;
    }
  }

  // A bcast whose count the odd rank gets wrong, four more that the root
  // runs ahead through, then `allreduces` allreduces: every rank hears of the
  // failed call, a bcast that succeeds has the root's data, and the calls
  // line up again (the test then checks the next call works).
  void ranks_ahead_line_up(int odd, int allreduces) {
    std::mutex m;
    std::vector<int> heard(static_cast<std::size_t>(n()), 0);
    auto heard_it = [](Team& t, const Status& s) {
      EXPECT_EQ(s.code(), Errc::mismatch) << s.to_string();
      EXPECT_THAT(s.message(), HasSubstr("bcast: ranks disagree on the count")) << "rank " << t.rank();
      return 1;
    };
    run([&](Team& t) {
      std::int32_t buf[4] = {1, 2, 3, 4};
      int errors = t.bcast(buf, t.rank() == odd ? 2 : 4, Datatype::int32, 0).ok() ? 0 : 1;
      for (int i = 0; i < 4; ++i) {
        std::int32_t v = t.rank() == 0 ? 100 + i : -1;
        Status s = t.bcast(&v, 1, Datatype::int32, 0);
        if (s.ok()) {
          EXPECT_EQ(v, 100 + i) << "rank " << t.rank() << " bcast " << i;
        } else {
          errors += heard_it(t, s);
        }
      }
      for (int i = 0; i < allreduces; ++i) {  // the first may still report it
        std::int64_t one = 1, sum = 0;
        if (Status s = t.allreduce(&one, &sum, 1, Datatype::int64, Op::sum); !s.ok()) errors += heard_it(t, s);
      }
      std::lock_guard lock(m);
      heard[static_cast<std::size_t>(t.rank())] = errors;
      return Status{};
    });
    for (int r = 0; r < n(); ++r) EXPECT_GE(heard[static_cast<std::size_t>(r)], 1) << "rank " << r << " never heard";
  }

  // The rank that acts as local root of `rank`'s lowest group in a call
  // rooted at `root` (Group::actor): the root where it lies in that group's
  // domain, else the group's leader. A one-pass bcast's receiver compares
  // with what it writes; a one-pass reduce's sender is compared there.
  int local_root_of(int rank, int root) const {
    const Domain* low = nullptr;
    for (const Domain& d : core_of(*tt_->teams[0]).tree().domains()) {
      const bool in = std::find(d.members.begin(), d.members.end(), rank) != d.members.end();
      if (in && d.has_group() && (!low || d.depth > low->depth)) low = &d;
    }
    if (!low) return root;
    return std::find(low->members.begin(), low->members.end(), root) != low->members.end() ? root : low->leader;
  }

  // Whether the tree is one group (gatherv's and scatterv's rows, scan's
  // prefix top: PlanSettings::one_group).
  bool one_group() const {
    int groups = 0;
    for (const Domain& d : core_of(*tt_->teams[0]).tree().domains()) groups += d.has_group() ? 1 : 0;
    return groups == 1;
  }

  std::unique_ptr<test::ThreadTeams> tt_;
};

// "0,2-4": every rank of 0..n-1 but `odd`.
std::string others(int n, int odd) {
  auto run = [](int a, int b) { return a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b); };
  if (odd == 0) return run(1, n - 1);
  if (odd == n - 1) return run(0, n - 2);
  return run(0, odd - 1) + "," + run(odd + 1, n - 1);
}
// "rank 1 passed 2, ranks 0,2-4 passed 4": the odd side first, unless two
// ranks tie (then in rank order).
std::string sides(int n, int odd, const std::string& odd_value, const std::string& rest_value) {
  std::string mine = "rank " + std::to_string(odd) + " passed " + odd_value;
  std::string rest = (n == 2 ? "rank " : "ranks ") + others(n, odd) + " passed " + rest_value;
  return n == 2 && odd == 1 ? rest + ", " + mine : mine + ", " + rest;
}

TEST_P(LazyCheck, BcastCountFoundByTheReceiverOthersLearnInTheNextCall) {
  const int odd = n() - 1;
  auto got = run([odd](Team& t) {
    // The odd rank's buffer holds 2; the slots after it must stay untouched.
    std::array<std::int32_t, 6> buf;
    buf.fill(t.rank() == 0 ? 7 : -1);
    Status st = t.bcast(buf.data(), t.rank() == odd ? 2 : 4, Datatype::int32, 0);
    if (t.rank() == odd) {
      EXPECT_EQ(buf[2], -1) << "written past the odd rank's buffer";
    }
    if (t.rank() != 0) {
      EXPECT_EQ(buf[4], -1) << "rank " << t.rank() << ": written past its buffer";
    }
    if (st.ok()) {
      EXPECT_EQ(buf[3], 7) << "rank " << t.rank();
    }
    return st;
  });
  // The root moved on at once; the odd receiver compared with what its
  // group's local root forwarded (the root's own release in one group) and
  // knows.
  EXPECT_TRUE(got[0].ok()) << got[0].to_string();
  const Status& found = got[static_cast<std::size_t>(odd)];
  EXPECT_EQ(found.code(), Errc::mismatch);
  EXPECT_EQ(found.message(), "bcast: ranks disagree on the count: rank " + std::to_string(local_root_of(odd, 0)) +
                                 " passed 4, rank " + std::to_string(odd) + " passed 2");
  // Every rank learns it from its next call, with every rank's side.
  next_call(true, "bcast: ranks disagree on the count: " + sides(n(), odd, "2", "4"));
  next_call(false);
}

TEST_P(LazyCheck, ReduceCountFoundByTheRoot) {
  // The odd rank only sends (it is nobody's local root); whoever reads its
  // line compares: the root in one group, else its group's local root,
  // which may be a leader below the top that also tells the root. Both
  // kinds of odd rank where the tree has them.
  const int root = n() - 1;
  std::vector<int> odds;
  for (int r = 0; r < n(); ++r) {
    const int lr = local_root_of(r, root);
    if (lr == r) continue;
    if (odds.empty() || (local_root_of(odds.front(), root) == root) != (lr == root)) odds.push_back(r);
  }
  ASSERT_FALSE(odds.empty());
  for (int odd : odds) {
    const int finder = local_root_of(odd, root);
    SCOPED_TRACE("odd rank " + std::to_string(odd) + ", compared at rank " + std::to_string(finder));
    auto got = run([&](Team& t) {
      std::int32_t in[2] = {1, 1}, out[2] = {0, 0};
      return t.reduce(in, out, t.rank() == odd ? 1 : 2, Datatype::int32, Op::sum, root);
    });
    const Status& found = got[static_cast<std::size_t>(finder)];
    EXPECT_EQ(found.code(), Errc::mismatch) << found.to_string();
    EXPECT_THAT(found.message(), HasSubstr("reduce: ranks disagree on the count: rank "));
    if (finder != root) {
      const Status& told = got[static_cast<std::size_t>(root)];
      EXPECT_EQ(told.code(), Errc::mismatch) << told.to_string();
      // From the leader's status word, or the error it raised first.
      EXPECT_THAT(told.message(), ContainsRegex("^reduce: (not (run|completed): )?ranks disagree on the count"));
    }
    EXPECT_TRUE(got[static_cast<std::size_t>(odd)].ok())
        << "a sender returns once its data is in: " << got[static_cast<std::size_t>(odd)].to_string();
    next_call(true, "reduce: ranks disagree on the count: " + sides(n(), odd, "1", "2"));
    next_call(false);
  }
}

TEST_P(LazyCheck, TwoRootsNobodyComparesTheNextCallFindsIt) {
  // Rank 1 also thinks it is the root: with two ranks, nobody reads; with
  // more, the others may read either root's data. The next call's headers
  // carry a digest of this one, and differ.
  auto got = run([](Team& t) {
    std::int32_t v = t.rank() == 1 ? 11 : t.rank() == 0 ? 10 : 0;
    return t.bcast(&v, 1, Datatype::int32, t.rank() == 1 ? 1 : 0);
  });
  for (int r = 0; r < n(); ++r) {
    // With two ranks, both return at once; with more, a receiver that read
    // the other root's line may find it first, and tell whoever comes later.
    const Status& st = got[static_cast<std::size_t>(r)];
    if (n() == 2 || st.ok()) {
      EXPECT_TRUE(st.ok()) << "rank " << r << ": " << st.to_string();
    } else {
      EXPECT_THAT(st.message(), HasSubstr("ranks disagree on the root")) << "rank " << r;
      if (st.message().find("bcast: not ") == std::string::npos) {  // the finder: it read rank 1's line
        EXPECT_EQ(st.message(),
                  "bcast: ranks disagree on the root: rank 1 passed 1, rank " + std::to_string(r) + " passed 0");
      }
    }
  }
  next_call(true, "bcast: ranks disagree on the root: " + sides(n(), 1, "1", "0"));
  next_call(false);
}

TEST_P(LazyCheck, FinishReportsTheLastCallOnEveryRank) {
  // The last calls before finish(): a count mismatch found by a receiver,
  // then (on a fresh team) two roots that nobody compared.
  auto got = run([](Team& t) {
    std::int32_t buf[4] = {};
    (void)t.bcast(buf, t.rank() == 1 ? 2 : 4, Datatype::int32, 0);
    return t.finish();
  });
  for (int r = 0; r < n(); ++r) {
    const Status& st = got[static_cast<std::size_t>(r)];
    EXPECT_EQ(st.code(), Errc::mismatch) << "rank " << r << ": " << st.to_string();
    EXPECT_THAT(st.message(), ContainsRegex("^finalize: call [0-9]+ on this team failed: bcast: "));
    EXPECT_THAT(st.message(), HasSubstr("bcast: ranks disagree on the count: " + sides(n(), 1, "2", "4")))
        << "rank " << r;
  }
  // A finished team makes no more calls.
  auto after = run([](Team& t) { return t.barrier(); });
  for (const Status& st : after) EXPECT_THAT(st.message(), HasSubstr("finished the team"));

  tt_ = std::make_unique<test::ThreadTeams>(test::make_teams(GetParam()));
  ASSERT_TRUE(tt_->ok()) << tt_->first_error();
  got = run([](Team& t) {
    std::int32_t v = 3;
    (void)t.bcast(&v, 1, Datatype::int32, t.rank() == 1 ? 1 : 0);
    return t.finish();
  });
  for (int r = 0; r < n(); ++r) {
    const Status& st = got[static_cast<std::size_t>(r)];
    EXPECT_EQ(st.code(), Errc::mismatch) << "rank " << r << ": " << st.to_string();
    EXPECT_THAT(st.message(), ContainsRegex("^finalize: call [0-9]+ on this team failed: bcast: "));
    EXPECT_THAT(st.message(), HasSubstr("bcast: ranks disagree on the root: " + sides(n(), 1, "1", "0")))
        << "rank " << r;
  }
}

// MPI_Finalize finishes every team of a process, in an order of its own:
// announced on every team first, then finished alone (no resynchronisation
// with the others), two teams finished in opposite orders by half of the
// ranks never hang, and every rank is told of each team's last mismatch.
TEST_P(LazyCheck, TeamsFinishedAloneInAnyOrderReportTheirLastCall) {
  test::ThreadTeams other = test::make_teams(GetParam());
  ASSERT_TRUE(other.ok()) << other.first_error();
  std::vector<std::array<Status, 2>> got(static_cast<std::size_t>(n()));
  std::vector<std::thread> th;
  for (int r = 0; r < n(); ++r) {
    th.emplace_back([&, r] {
      std::array<Team*, 2> teams{tt_->teams[static_cast<std::size_t>(r)].get(),
                                 other.teams[static_cast<std::size_t>(r)].get()};
      for (int k = 0; k < 2; ++k) {  // team k: rank k + 1 passes another count
        std::int32_t buf[4] = {};
        (void)teams[static_cast<std::size_t>(k)]->bcast(buf, r == k + 1 ? 2 : 4, Datatype::int32, 0);
      }
      for (Team* t : teams) TeamAccess::announce_finish(*t);
      for (int i = 0; i < 2; ++i) {
        const int k = r % 2 == 0 ? i : 1 - i;
        got[static_cast<std::size_t>(r)][static_cast<std::size_t>(k)] =
            TeamAccess::finish_alone(*teams[static_cast<std::size_t>(k)]);
      }
    });
  }
  for (auto& t : th) t.join();
  for (int r = 0; r < n(); ++r) {
    for (int k = 0; k < 2; ++k) {
      const Status& st = got[static_cast<std::size_t>(r)][static_cast<std::size_t>(k)];
      if (k + 1 >= n()) {  // two ranks: nobody passes another count on team 1
        EXPECT_TRUE(st.ok()) << "rank " << r << " team " << k << ": " << st.to_string();
        continue;
      }
      EXPECT_EQ(st.code(), Errc::mismatch) << "rank " << r << " team " << k << ": " << st.to_string();
      EXPECT_THAT(st.message(), ContainsRegex("^finalize: call [0-9]+ on this team failed: bcast: "));
      EXPECT_THAT(st.message(), HasSubstr("ranks disagree on the count: " + sides(n(), k + 1, "2", "4")))
          << "rank " << r << " team " << k;
    }
  }
}

TEST_P(LazyCheck, RanksAheadLineUpAgain) {
  // The root runs ahead through bcasts that need nobody; the odd receiver's
  // error stops it where it waits. Whatever each rank got, every one hears of
  // the failed call, a receiver whose bcast succeeded has the root's data,
  // and the calls line up again.
  ranks_ahead_line_up(1, 1);
  next_call(false);
}

TEST_P(LazyCheck, ResultsOfLargeAllreducesSurviveOnePassBcastsAfterThem) {
  // An allreduce in chunks ends with every rank copying the result out of the
  // top's broadcast area; two one-pass bcasts later the root writes that area
  // again. No rank may see its result overwritten, however late it reads.
  constexpr std::size_t kElems = 1 << 15;   // 128 KiB of int32: several chunks
  constexpr std::int64_t kBcast = 1 << 14;  // 64 KiB: the whole area, in one pass
  auto got = run([&](Team& t) {
    std::vector<std::int32_t> in(kElems), out(kElems), small(static_cast<std::size_t>(kBcast));
    for (int i = 0; i < 40; ++i) {
      for (std::size_t k = 0; k < kElems; ++k) in[k] = static_cast<std::int32_t>(k % 97) + t.rank() + i;
      OSMP_RETURN_IF_ERROR(
          t.allreduce(in.data(), out.data(), static_cast<std::int64_t>(kElems), Datatype::int32, Op::sum));
      for (int b = 0; b < 2; ++b) {
        std::fill(small.begin(), small.end(), t.rank() == 0 ? -1000 - b : 0);
        OSMP_RETURN_IF_ERROR(t.bcast(small.data(), kBcast, Datatype::int32, 0));
        EXPECT_EQ(small.back(), -1000 - b) << "rank " << t.rank();
      }
      const int n = t.size(), ranks = n * (n - 1) / 2;
      for (std::size_t k = 0; k < kElems; ++k) {
        const std::int32_t want = n * (static_cast<std::int32_t>(k % 97) + i) + ranks;
        if (out[k] != want) {
          ADD_FAILURE() << "rank " << t.rank() << " round " << i << ": element " << k << " is " << out[k] << ", not "
                        << want;
          break;
        }
      }
    }
    return Status{};
  });
  for (int r = 0; r < n(); ++r)
    EXPECT_TRUE(got[static_cast<std::size_t>(r)].ok()) << got[static_cast<std::size_t>(r)].to_string();
}

TEST_P(LazyCheck, MismatchesInARowNeverHang) {
  // Each failed bcast makes a later call resynchronise; a rank that is done
  // with that first may find the next mismatch at once, while others still
  // resynchronise. Every call returns, and the team works again after. All
  // in one go: a rank whose calls needed nobody (the root) may learn of the
  // last errors only in its next call, which must come (docs/protocol.md,
  // "When a rank learns it").
  const int odd = n() - 1;
  auto got = run([&](Team& t) {
    for (int i = 0; i < 12; ++i) {
      std::int32_t buf[4] = {1, 2, 3, 4};
      Status st = t.bcast(buf, t.rank() == odd ? 2 : 4, Datatype::int32, 0);
      if (!st.ok()) {
        EXPECT_EQ(st.code(), Errc::mismatch) << "rank " << t.rank() << ": " << st.to_string();
      }
    }
    Status st;
    for (int i = 0; i < 3; ++i) {  // the first may still report, the second realign
      std::int64_t v = 1, sum = 0;
      st = t.allreduce(&v, &sum, 1, Datatype::int64, Op::sum);
      if (st.ok()) {
        EXPECT_EQ(sum, t.size()) << "rank " << t.rank();
      } else {
        EXPECT_EQ(st.code(), Errc::mismatch) << "rank " << t.rank() << ": " << st.to_string();
      }
    }
    return st;
  });
  for (int r = 0; r < n(); ++r) {
    EXPECT_TRUE(got[static_cast<std::size_t>(r)].ok())
        << "rank " << r << ": " << got[static_cast<std::size_t>(r)].to_string();
  }
  next_call(false);
}

TEST_P(LazyCheck, ASenderWithBadArgumentsGetsItsOwnError) {
  // A one-pass reduce's sender returns before any verdict: with its own
  // error, not ok; the root finds it in the sender's line.
  const int bad = n() - 1;
  auto got = run([bad](Team& t) {
    std::int32_t in = 1, out = 0;
    return t.reduce(t.rank() == bad ? nullptr : &in, &out, 1, Datatype::int32, Op::sum, 0);
  });
  const Status& mine = got[static_cast<std::size_t>(bad)];
  EXPECT_EQ(mine.code(), Errc::invalid_argument) << mine.to_string();
  EXPECT_EQ(mine.message(), "reduce on rank " + std::to_string(bad) + ": null send buffer with count 1");
  EXPECT_EQ(got[0].code(), Errc::invalid_argument) << got[0].to_string();
  EXPECT_THAT(got[0].message(), HasSubstr("rank " + std::to_string(bad))) << "the root names the sender";
  run([](Team& t) {  // the root raised it: this call may say so
    std::int64_t v = 1, sum = 0;
    return t.allreduce(&v, &sum, 1, Datatype::int64, Op::sum);
  });
  next_call(false);
}

// The lazy gatherv and scatterv (ops/rows.cpp): the gatherv's root compares
// every rank's length with its counts, each scatterv rank its own with the
// root's entry for it. A rank whose count differs (its block riding in the
// rows, or, long, to be copied by CMA) is the finder's error, naming both
// counts, with nothing written into the finder's buffer; the others return
// (or learn it in the call already, when they come late); every rank learns
// it in its next call; at every root.
TEST_P(LazyCheck, GathervAndScattervCountsFoundWhereReadOthersLearnInTheNextCall) {
  if (!one_group())
    GTEST_SKIP() << "one pass with rows: trees of one group (elsewhere the strict path, varied_test.cpp)";
  for (OpKind k : {OpKind::gatherv, OpKind::scatterv}) {
    for (std::int64_t base : {std::int64_t{3}, std::int64_t{200000}}) {
      for (int root : {0, n() - 1}) {
        const int odd = (root + 1) % n(), finder = k == OpKind::gatherv ? root : odd;
        auto got = run([&](Team& t) {
          const int me = t.rank();
          std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), base), displs(counts.size());
          for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<std::int64_t>(r) * (base + 1);
          const std::int64_t own = me == odd ? base + 1 : base;
          std::vector<std::int32_t> mine(static_cast<std::size_t>(base + 1), k == OpKind::gatherv ? me : -1);
          std::vector<std::int32_t> all(static_cast<std::size_t>((base + 1) * n()), k == OpKind::gatherv ? -1 : me);
          Status st =
              k == OpKind::gatherv
                  ? t.gatherv(mine.data(), own, all.data(), counts.data(), displs.data(), Datatype::int32, root)
                  : t.scatterv(all.data(), counts.data(), displs.data(), mine.data(), own, Datatype::int32, root);
          const std::vector<std::int32_t>& read = k == OpKind::gatherv ? all : mine;
          if (me == finder) {
            EXPECT_EQ(std::count(read.begin(), read.end(), -1), static_cast<std::ptrdiff_t>(read.size()))
                << to_string(k) << ": the finder's buffer was written, base " << base;
          }
          return st;
        });
        for (int r = 0; r < n(); ++r) {
          const Status& st = got[static_cast<std::size_t>(r)];
          if (r == finder) {
            EXPECT_EQ(st.code(), Errc::invalid_argument) << st.to_string();
            EXPECT_EQ(st.message(), cat(to_string(k), ": rank ", odd, " passed count ", base + 1,
                                        ", the root's counts say ", base, " (rank ", root, " is the root)"));
          } else if (!st.ok()) {  // a rank may learn it in the call already (not run / not completed)
            EXPECT_EQ(st.code(), Errc::invalid_argument) << st.to_string();
            EXPECT_THAT(st.message(), HasSubstr(cat("rank ", odd, "'s count is not the root's entry for it")));
          }
        }
        next_call(true, cat(to_string(k), ": rank ", odd, "'s count is not the root's entry for it"),
                  Errc::invalid_argument);
        next_call(false);
      }
    }
  }
}

// The one-pass scan and exscan (base/prefix.hpp): each rank compares the
// headers of the ranks before it. A count that differs is the error of the
// ranks after the odd one (which read it) and of the odd one (which read
// those before it: in their call, found there or raised by another finder
// first); a rank that read no differing header returns, its result right;
// everyone learns it in the next call.
TEST_P(LazyCheck, ScanCountFoundByTheRanksAfter) {
  for (OpKind k : {OpKind::scan, OpKind::exscan}) {
    for (int odd : {0, n() - 1}) {
      auto got = run([&](Team& t) {
        std::int64_t in[3] = {t.rank() + 1, 1, 1}, out[3] = {-1, -1, -1};
        const std::int64_t count = t.rank() == odd ? 3 : 2;
        Status st = k == OpKind::scan ? t.scan(in, out, count, Datatype::int64, Op::sum)
                                      : t.exscan(in, out, count, Datatype::int64, Op::sum);
        if (st.ok() && !(k == OpKind::exscan && t.rank() == 0)) {
          const std::int64_t upto = k == OpKind::scan ? t.rank() + 1 : t.rank();
          EXPECT_EQ(out[0], upto * (upto + 1) / 2) << to_string(k) << " rank " << t.rank();
        }
        return st;
      });
      for (int r = 0; r < n(); ++r) {
        const Status& st = got[static_cast<std::size_t>(r)];
        const bool finds = r == odd ? odd > 0 : r > odd;
        if (finds) {
          EXPECT_EQ(st.code(), Errc::mismatch) << to_string(k) << " rank " << r << ": " << st.to_string();
          EXPECT_THAT(st.message(), HasSubstr("ranks disagree on the count")) << "rank " << r;
        } else if (!st.ok()) {  // or it learns it in the call already, coming late
          EXPECT_THAT(st.message(), HasSubstr("ranks disagree on the count")) << "rank " << r;
        }
      }
      next_call(true, cat(to_string(k), ": ranks disagree on the count: ", sides(n(), odd, "3", "2")));
      next_call(false);
    }
  }
}

// Counts of 0 with null buffers where every count is 0 (the root's too),
// right after calls that left rows in both parities' lines and areas: the
// lazy calls write (and read) the rows all the same, so nobody takes old
// ones; a gatherv whose root has no buffer (all its counts 0) still finds
// a sender's count of 1.
TEST_P(LazyCheck, GathervAndScattervWithZeroCountsAndNullBuffersReadNoOldRows) {
  if (!one_group())
    GTEST_SKIP() << "one pass with rows: trees of one group (elsewhere the strict path, varied_test.cpp)";
  auto dirty = [&] {
    run([&](Team& t) {
      std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), 3), displs(counts.size());
      for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<std::int64_t>(3 * r);
      std::vector<std::int8_t> all(static_cast<std::size_t>(3 * n()), 9), mine(3, 1);
      for (int i = 0; i < 3; ++i)  // both parities
        EXPECT_TRUE(t.scatterv(all.data(), counts.data(), displs.data(), mine.data(), 3, Datatype::int8, 0).ok());
      for (int i = 0; i < 3; ++i)
        EXPECT_TRUE(t.gatherv(mine.data(), 3, all.data(), counts.data(), displs.data(), Datatype::int8, 0).ok());
      return Status{};
    });
  };
  dirty();
  auto got = run([&](Team& t) {
    std::vector<std::int64_t> zeros(static_cast<std::size_t>(n()), 0);
    Status st = t.scatterv(nullptr, zeros.data(), zeros.data(), nullptr, 0, Datatype::int8, 0);
    if (!st.ok()) return st;
    return t.gatherv(nullptr, 0, nullptr, zeros.data(), zeros.data(), Datatype::int8, 0);
  });
  for (int r = 0; r < n(); ++r) EXPECT_TRUE(got[static_cast<std::size_t>(r)].ok()) << got[r].to_string();
  next_call(false);
  dirty();
  const int odd = n() - 1;
  got = run([&](Team& t) {
    std::vector<std::int64_t> zeros(static_cast<std::size_t>(n()), 0);
    std::int8_t one = 1;
    return t.gatherv(t.rank() == odd ? &one : nullptr, t.rank() == odd ? 1 : 0, nullptr, zeros.data(), zeros.data(),
                     Datatype::int8, 0);
  });
  EXPECT_EQ(got[0].code(), Errc::invalid_argument) << got[0].to_string();
  EXPECT_EQ(got[0].message(),
            cat("gatherv: rank ", odd, " passed count 1, the root's counts say 0 (rank 0 is the root)"));
  next_call(true, cat("gatherv: rank ", odd, "'s count is not the root's entry for it"), Errc::invalid_argument);
  next_call(false);
}

// Argument errors in a lazy gatherv: the root's own (null counts), with
// senders whose blocks ride and one whose block would go by CMA (it waits
// for the root's ack, which comes, and writes nothing); a sender's own (in place off
// the root). Each gets its own error, the root names the sender; every
// rank's next call works or reports it, the one after works.
TEST_P(LazyCheck, GathervArgumentErrorsAtTheRootOrASender) {
  if (!one_group())
    GTEST_SKIP() << "one pass with rows: trees of one group (elsewhere the strict path, varied_test.cpp)";
  const int root = 0, big = n() - 1;
  auto at_root = run([&](Team& t) {
    const std::int64_t mine_count = t.rank() == big ? 100000 : 2;
    std::vector<std::int32_t> mine(static_cast<std::size_t>(mine_count), 1), all(16, -1);
    std::vector<std::int64_t> displs(static_cast<std::size_t>(n()), 0);
    return t.gatherv(mine.data(), mine_count, all.data(), nullptr, displs.data(), Datatype::int32, root);
  });
  EXPECT_EQ(at_root[0].code(), Errc::invalid_argument) << at_root[0].to_string();
  EXPECT_THAT(at_root[0].message(), HasSubstr("null receive counts"));
  for (int r = 1; r < n(); ++r) EXPECT_TRUE(at_root[static_cast<std::size_t>(r)].ok()) << "rank " << r;
  run([](Team& t) {  // the root raised it: this call may say so
    std::int64_t v = 1, sum = 0;
    return t.allreduce(&v, &sum, 1, Datatype::int64, Op::sum);
  });
  next_call(false);

  const int sender = n() - 1;
  auto in_place = run([&](Team& t) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(n()), 1), displs(counts.size());
    for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<std::int64_t>(r);
    std::int64_t mine = 5, all[64] = {};
    return t.gatherv(t.rank() == sender ? kInPlace : &mine, 1, all, counts.data(), displs.data(), Datatype::int64,
                     root);
  });
  const Status& own = in_place[static_cast<std::size_t>(sender)];
  EXPECT_EQ(own.code(), Errc::invalid_argument) << own.to_string();
  EXPECT_THAT(own.message(), HasSubstr("in-place send is not allowed"));
  EXPECT_EQ(in_place[0].code(), Errc::invalid_argument) << in_place[0].to_string();
  EXPECT_THAT(in_place[0].message(), HasSubstr("rank " + std::to_string(sender))) << "the root names the sender";
  run([](Team& t) {
    std::int64_t v = 1, sum = 0;
    return t.allreduce(&v, &sum, 1, Datatype::int64, Op::sum);
  });
  next_call(false);
}

TEST_P(LazyCheck, InAViewOfItsOwn) {
  // bcast on a view of its own (Team::configure per operation): its calls
  // are numbered, checked and raised through the team's one call record and
  // error word, like the base view's.
  auto configured = run([](Team& t) { return t.configure({}, {{OpKind::bcast, {{"OSMP_BASE_CASE", "flat"}}}}); });
  for (int r = 0; r < n(); ++r) ASSERT_TRUE(configured[static_cast<std::size_t>(r)].ok()) << configured[0].to_string();
  ranks_ahead_line_up(n() - 1, 2);
  next_call(false);
}

// Correct calls whose root changes at every call, over every kind of
// one-pass step and size (in the line, in the slot or area, beyond one step:
// chunks after a header step) with round trips between them, some ranks
// blocking and others starting a request and waiting: above the bottom
// lane who acts for a unit follows the root, and each step's lines and
// areas are reused two steps on (StepState::reuse). Every result is checked.
TEST_P(LazyCheck, RootsChangeEveryCallEveryResultRight) {
  const int n = this->n();
  run([&](Team& t) {
    const int me = t.rank();
    std::uint32_t seed = 12345;  // the same sequence on every rank
    auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
    constexpr std::size_t kCounts[] = {1, 3, 12, 40, 300, 20000};
    for (int i = 0; i < 240; ++i) {
      const int root = static_cast<int>(next() % static_cast<std::uint32_t>(n));
      const std::size_t c = kCounts[next() % 6];
      const int op = static_cast<int>(next() % 5);
      const bool by_request = (i + me) % 3 == 0;
      const std::string at = "call " + std::to_string(i) + " op " + std::to_string(op) + " count " + std::to_string(c) +
                             " root " + std::to_string(root) + " rank " + std::to_string(me);
      auto value = [&](int r, std::size_t j) { return static_cast<std::int32_t>(r * 7919 + static_cast<int>(j) + i); };
      auto done = [&](Status st, Request rq) {
        if (by_request) st = rq.wait();
        return st;
      };
      Status st;
      switch (op) {
        case 0: {  // bcast
          std::vector<std::int32_t> buf(c, -1);
          if (me == root)
            for (std::size_t j = 0; j < c; ++j) buf[j] = value(root, j);
          std::span<std::int32_t> b(buf);
          st = by_request ? done({}, t.ibcast(b, root)) : t.bcast(b, root);
          for (std::size_t j = 0; st.ok() && j < c; ++j)
            if (buf[j] != value(root, j)) {
              ADD_FAILURE() << at << ": bcast element " << j;
              break;
            }
          break;
        }
        case 1: {  // reduce
          std::vector<std::int32_t> in(c), out(me == root ? c : 0, -1);
          for (std::size_t j = 0; j < c; ++j) in[j] = value(me, j);
          std::span<const std::int32_t> ci(in);
          std::span<std::int32_t> o(out);
          st = by_request ? done({}, t.ireduce(ci, o, Op::sum, root)) : t.reduce(ci, o, Op::sum, root);
          for (std::size_t j = 0; st.ok() && me == root && j < c; ++j) {
            std::int64_t want = 0;
            for (int r = 0; r < n; ++r) want += value(r, j);
            if (out[j] != static_cast<std::int32_t>(want)) {
              ADD_FAILURE() << at << ": reduce element " << j;
              break;
            }
          }
          break;
        }
        case 2: {  // gather
          const std::size_t k = std::min<std::size_t>(c, 4000);
          std::vector<std::int32_t> in(k), out(me == root ? k * static_cast<std::size_t>(n) : 0, -1);
          for (std::size_t j = 0; j < k; ++j) in[j] = value(me, j);
          std::span<const std::int32_t> ci(in);
          std::span<std::int32_t> o(out);
          st = by_request ? done({}, t.igather(ci, o, root)) : t.gather(ci, o, root);
          for (std::size_t j = 0; st.ok() && j < out.size(); ++j)
            if (out[j] != value(static_cast<int>(j / k), j % k)) {
              ADD_FAILURE() << at << ": gather element " << j;
              break;
            }
          break;
        }
        case 3: {  // scatter
          const std::size_t k = std::min<std::size_t>(c, 4000);
          std::vector<std::int32_t> in(me == root ? k * static_cast<std::size_t>(n) : 0), out(k, -1);
          for (std::size_t j = 0; j < in.size(); ++j) in[j] = value(static_cast<int>(j / k), j % k);
          std::span<const std::int32_t> ci(in);
          std::span<std::int32_t> o(out);
          st = by_request ? done({}, t.iscatter(ci, o, root)) : t.scatter(ci, o, root);
          for (std::size_t j = 0; st.ok() && j < k; ++j)
            if (out[j] != value(me, j)) {
              ADD_FAILURE() << at << ": scatter element " << j;
              break;
            }
          break;
        }
        default: {  // a round trip between them
          std::vector<std::int32_t> v(c, 1);
          std::span<std::int32_t> b(v);
          st = by_request ? done({}, t.iallreduce(b, Op::sum)) : t.allreduce(b, Op::sum);
          if (st.ok() && v[c - 1] != n) ADD_FAILURE() << at << ": allreduce";
          break;
        }
      }
      EXPECT_TRUE(st.ok()) << at << ": " << st.to_string();
      if (!st.ok()) break;
    }
    return Status{};
  });
  next_call(false);
}

// Every rank declines a call (Team::abstain with unsupported, as the MPI
// glue does for a user op) whose count would take another plan than a
// declining header's (which carries no count): a rank that arrives late
// makes the others wait past abort_check_ns, when they compare the call
// records (Engine::peek). The records hold the header the steps carry, so
// nobody finds a difference: every rank is told that every rank declined.
TEST_P(LazyCheck, EveryRankDeclinesALargeCallOneRankLate) {
  for (int late : {0, n() - 1}) {
    auto got = run([&](Team& t) {
      if (t.rank() == late) std::this_thread::sleep_for(std::chrono::milliseconds(30));
      return t.abstain(OpKind::reduce, 1 << 20, Datatype::int32, Op::sum, 0, Errc::unsupported);
    });
    for (int r = 0; r < n(); ++r) {
      const Status& st = got[static_cast<std::size_t>(r)];
      EXPECT_EQ(st.code(), Errc::unsupported) << "late rank " << late << ", rank " << r << ": " << st.to_string();
    }
    next_call(false);
  }
}

// Arguments that send ranks on different plans: a one-pass call against a
// round trip (a count on each side of the one-step threshold), another
// operation, roots that cross so that nobody is the root. Whatever each rank
// gets from the call itself, none hangs, every rank's next call fails naming
// the call and what differed, and the call after works.
class LazyPlans : public LazyCheck {
 protected:
  void expect_found(const std::function<Status(Team&)>& fn, const std::string& what) {
    auto first = run(fn);
    for (int r = 0; r < n(); ++r) {
      const Status& st = first[static_cast<std::size_t>(r)];
      if (!st.ok()) {
        EXPECT_THAT(st.code(), ::testing::AnyOf(Errc::mismatch, Errc::invalid_argument)) << st.to_string();
      }
    }
    next_call(true, what);
    next_call(false);
  }
};

TEST_P(LazyPlans, OnePassAgainstARoundTrip) {
  for (int odd : {0, n() - 1}) {
    SCOPED_TRACE("odd rank " + std::to_string(odd));
    expect_found(
        [odd](Team& t) {
          std::vector<std::int32_t> buf(1 << 18, 1);
          return t.bcast(buf.data(), t.rank() == odd ? 4 : (1 << 18), Datatype::int32, 0);
        },
        "bcast: ranks disagree on the count: ");
    expect_found(
        [odd](Team& t) {
          std::vector<std::int32_t> in(1 << 18, 1), out(1 << 18, 0);
          return t.reduce(in.data(), out.data(), t.rank() == odd ? 4 : (1 << 18), Datatype::int32, Op::sum, 0);
        },
        "reduce: ranks disagree on the count: ");
    expect_found(
        [odd](Team& t) {
          std::vector<std::int32_t> in(1 << 16, 1), out(static_cast<std::size_t>(t.size()) << 16, 0);
          return t.gather(in.data(), out.data(), t.rank() == odd ? 2 : (1 << 16), Datatype::int32, 0);
        },
        "gather: ranks disagree on the count: ");
    expect_found(  // the prefix top's one pass against the chain after a header step
        [odd](Team& t) {
          std::vector<std::int32_t> in(1 << 16, 1), out(1 << 16, 0);
          return t.scan(in.data(), out.data(), t.rank() == odd ? 2 : (1 << 16), Datatype::int32, Op::sum);
        },
        "scan: ranks disagree on the count: ");
  }
}

TEST_P(LazyPlans, AnotherOperation) {
  const int odd = n() - 1;
  expect_found(
      [odd](Team& t) {
        std::int32_t v = 1, out = 0;
        return t.rank() == odd ? t.bcast(&v, 1, Datatype::int32, 0)
                               : t.allreduce(&v, &out, 1, Datatype::int32, Op::sum);
      },
      "ranks disagree on the operation: ");
  expect_found(
      [](Team& t) {
        std::int32_t v = 1, out[64] = {};
        return t.rank() == 0 ? t.reduce(&v, out, 1, Datatype::int32, Op::sum, 0)
                             : t.gather(&v, out, 1, Datatype::int32, 0);
      },
      "ranks disagree on the operation: ");
}

TEST_P(LazyPlans, RootsThatCrossRightAfterTwoRoots) {
  // Ranks 0 and 1 both think they are the root (both write, nobody
  // compares), then name each other: each waits for the other's release,
  // and the digests of the call before differ too. Every rank hears of it in
  // one of the two calls or the next, nobody hangs, the team works again.
  auto got = run([](Team& t) {
    std::int32_t v = 5;
    Status first = t.bcast(&v, 1, Datatype::int32, t.rank() == 1 ? 1 : 0);
    Status second = t.bcast(&v, 1, Datatype::int32, t.rank() == 0 ? 1 : 0);
    std::int64_t one = 1, sum = 0;
    Status third = t.allreduce(&one, &sum, 1, Datatype::int64, Op::sum);
    int heard = 0;
    for (const Status* st : {&first, &second, &third}) {
      if (st->ok()) continue;
      EXPECT_EQ(st->code(), Errc::mismatch) << "rank " << t.rank() << ": " << st->to_string();
      EXPECT_THAT(st->message(), ContainsRegex("disagree on (the root|the call before this one)"))
          << "rank " << t.rank();
      ++heard;
    }
    EXPECT_GE(heard, 1) << "rank " << t.rank() << " never heard";
    return Status{};
  });
  next_call(false);
}

TEST_P(LazyPlans, RootsThatCross) {
  // Each rank names the next as the root: every one waits to receive.
  expect_found(
      [](Team& t) {
        std::int32_t v = 5;
        return t.bcast(&v, 1, Datatype::int32, (t.rank() + 1) % t.size());
      },
      "bcast: ranks disagree on the root: ");
}

TEST_P(LazyPlans, ReduceRootsThatDisagreeInsideAGroup) {
  // Up only, nobody is everybody's root. Each rank names itself: every
  // local root waits for lines that other local roots never write. Then two
  // ranks name each other and the rest the last rank: on a tree of several
  // groups both of the two may be members of one group that then has nobody
  // acting for it, while the top waits for that group's line; they return,
  // and only the call records (Engine::peek) show the waiting rank why.
  expect_found(
      [](Team& t) {
        std::int32_t v = 1, out = 0;
        return t.reduce(&v, &out, 1, Datatype::int32, Op::sum, t.rank());
      },
      "reduce: ranks disagree on the root: ");
  expect_found(
      [](Team& t) {
        std::int32_t v = 1, out = 0;
        const int root = t.rank() == 0 ? 1 : t.rank() == 1 ? 0 : t.size() - 1;
        return t.reduce(&v, &out, 1, Datatype::int32, Op::sum, root);
      },
      "reduce: ranks disagree on the root: ");
  expect_found(
      [](Team& t) {
        std::int32_t v = 1, out[64] = {};
        return t.gather(&v, out, 1, Datatype::int32, t.rank());
      },
      "gather: ranks disagree on the root: ");
}

INSTANTIATE_TEST_SUITE_P(Teams, LazyPlans,
                         ::testing::Values(Config{"here2", "", 2, MapBy::core, "", "", "lazy"},
                                           Config{"here5", "", 5, MapBy::core, "", "", "lazy"},
                                           Config{"here8_flat", "", 8, MapBy::core, "", "flat", "lazy"},
                                           Config{"here12_knomial", "", 12, MapBy::core, "", "knomial:2", "lazy"},
                                           // Trees of several levels: one pass through every level.
                                           Config{"rome8_levels", "rome", 8, MapBy::scatter, "", "", "lazy"},
                                           Config{"here9_vh", "", 9, MapBy::core, "?3", "", "lazy"},
                                           Config{"cl10_knomial", "cascadelake", 10, MapBy::scatter, "", "knomial:2",
                                                  "lazy"},
                                           Config{"rome11_vh", "rome", 11, MapBy::numa, "auto", "", "lazy"}),
                         [](const auto& param_info) { return param_info.param.name; });

INSTANTIATE_TEST_SUITE_P(Teams, LazyCheck,
                         ::testing::Values(Config{"here2", "", 2, MapBy::core, "", "", "lazy"},
                                           Config{"here5", "", 5, MapBy::core, "", "", "lazy"},
                                           Config{"rome4_one_group", "rome", 4, MapBy::core, "", "", "lazy"},
                                           Config{"here8_flat", "", 8, MapBy::core, "", "flat", "lazy"},
                                           Config{"rome8_levels", "rome", 8, MapBy::scatter, "", "", "lazy"},
                                           Config{"here9_vh", "", 9, MapBy::core, "?3", "", "lazy"},
                                           Config{"rome11_vh", "rome", 11, MapBy::numa, "auto", "", "lazy"}),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace osmp
