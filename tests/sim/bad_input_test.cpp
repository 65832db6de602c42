// Bad arguments, on one rank or all: every rank gets a clear error, nothing is
// written outside the caller's buffers, and the team stays usable.
#include <gtest/gtest.h>

#include <mutex>

#include "team_api_harness.hpp"

namespace osmp {
namespace {

constexpr int kRanks = 5;

class BadInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Strict: every rank gets the error in the faulty call itself (the
    // one-pass calls of OSMP_CHECK=lazy report it one call later on the
    // ranks that did not see it: lazy_check_test.cpp).
    tt_ = new test::ThreadTeams(test::make_teams({"bad", "rome", kRanks, MapBy::scatter, "", "", "strict"}));
  }
  static void TearDownTestSuite() { delete tt_; }

  // Runs fn on every rank; expects every rank to fail with `code` and a
  // message containing `text` (on the ranks in `text_on`, -1: all), then
  // checks that a correct allreduce still works.
  void expect_all_fail(const std::function<Status(Team&)>& fn, Errc code, const std::string& text, int text_on = -1) {
    ASSERT_TRUE(tt_->ok()) << tt_->first_error();
    std::mutex m;
    std::vector<Status> got(kRanks);
    test::on_all(*tt_, [&](Team& t) {
      Status st = fn(t);
      std::lock_guard lock(m);
      got[static_cast<std::size_t>(t.rank())] = st;
    });
    for (int r = 0; r < kRanks; ++r) {
      const Status& st = got[static_cast<std::size_t>(r)];
      EXPECT_FALSE(st.ok()) << "rank " << r << " succeeded";
      EXPECT_EQ(st.code(), code) << "rank " << r << ": " << st.to_string();
      if (text_on < 0 || text_on == r) {
        EXPECT_NE(st.message().find(text), std::string::npos) << "rank " << r << ": " << st.message();
      }
    }
    test::on_all(*tt_, [&](Team& t) {
      std::int64_t v = t.rank() + 1, sum = 0;
      Status st = t.allreduce(&v, &sum, 1, Datatype::int64, Op::sum);
      EXPECT_TRUE(st.ok()) << "team unusable after the error: " << st.to_string();
      EXPECT_EQ(sum, kRanks * (kRanks + 1) / 2);
    });
  }

  static test::ThreadTeams* tt_;
};

test::ThreadTeams* BadInput::tt_ = nullptr;

TEST_F(BadInput, NullBufferOnOneRank) {
  expect_all_fail(
      [](Team& t) {
        std::vector<int> buf(4, t.rank());
        return t.bcast(t.rank() == 3 ? nullptr : buf.data(), 4, Datatype::int32, 0);
      },
      Errc::invalid_argument, "rank 3");
}

TEST_F(BadInput, NullBufferMessageOnTheFaultyRank) {
  expect_all_fail(
      [](Team& t) {
        std::vector<int> in(4), out(4);
        return t.allreduce(t.rank() == 2 ? nullptr : in.data(), out.data(), 4, Datatype::int32, Op::sum);
      },
      Errc::invalid_argument, "null send buffer with count 4", 2);
}

TEST_F(BadInput, NegativeCount) {
  expect_all_fail(
      [](Team& t) {
        int x = 0, y = 0;
        return t.allreduce(&x, &y, t.rank() == 1 ? -1 : 1, Datatype::int32, Op::sum);
      },
      Errc::invalid_argument, "negative count -1", 1);
}

TEST_F(BadInput, RootOutOfRange) {
  expect_all_fail(
      [](Team& t) {
        int x = 0;
        return t.bcast(&x, 1, Datatype::int32, kRanks);
      },
      Errc::invalid_argument, "root 5 is not a rank of this team");
}

TEST_F(BadInput, OpNotDefinedForType) {
  expect_all_fail(
      [](Team& t) {
        double x = 1, y = 0;
        return t.allreduce(&x, &y, 1, Datatype::float64, Op::bxor);
      },
      Errc::invalid_argument, "'bxor' is not defined for float64");
}

TEST_F(BadInput, UnequalCounts) {
  expect_all_fail(
      [](Team& t) {
        std::vector<double> in(8, 1), out(8, -1);
        Status st = t.allreduce(in.data(), out.data(), t.rank() == 4 ? 7 : 8, Datatype::float64, Op::sum);
        for (double v : out) EXPECT_EQ(v, -1) << "a failed call wrote the result";
        return st;
      },
      Errc::mismatch, "disagree on the count");
}

TEST_F(BadInput, UnequalCountsAcrossTheChunkedThreshold) {
  // One rank's count fits the first step, the others' need chunks.
  expect_all_fail(
      [](Team& t) {
        std::vector<std::int32_t> buf(1 << 20, 7);
        return t.bcast(buf.data(), t.rank() == 1 ? 3 : (1 << 20), Datatype::int32, 0);
      },
      Errc::mismatch, "disagree on the count");
}

TEST_F(BadInput, UnequalCountsAcrossTheSymmetricSlotThresholds) {
  // The top group has two members: allreduce up to a slot goes symmetric
  // through the slots. A rank in the line, the slot or the chunked path while
  // the others are in another must fail with them, not hang or overrun.
  for (auto [odd, rest] :
       {std::pair<std::int64_t, std::int64_t>{3, 4000}, {4000, 3}, {16384, 16385}, {16385, 16384}, {3, 70000}}) {
    expect_all_fail(
        [odd = odd, rest = rest](Team& t) {
          std::vector<std::int32_t> in(70000, 1), out(70000, 0);
          return t.allreduce(in.data(), out.data(), t.rank() == 2 ? odd : rest, Datatype::int32, Op::sum);
        },
        Errc::mismatch, "disagree on the count");
  }
}

TEST_F(BadInput, UnequalDatatypes) {
  expect_all_fail(
      [](Team& t) {
        std::int64_t in[2] = {1, 2}, out[2] = {};
        return t.allreduce(in, out, 2, t.rank() == 0 ? Datatype::uint64 : Datatype::int64, Op::sum);
      },
      Errc::mismatch, "disagree on the datatype");
}

TEST_F(BadInput, UnequalRoots) {
  expect_all_fail(
      [](Team& t) {
        std::int32_t in = 1, out = 0;
        return t.reduce(&in, &out, 1, Datatype::int32, Op::sum, t.rank() == 3 ? 1 : 0);
      },
      Errc::mismatch, "disagree on the root");
}

TEST_F(BadInput, UnequalOps) {
  expect_all_fail(
      [](Team& t) {
        std::int32_t in = 1, out = 0;
        return t.allreduce(&in, &out, 1, Datatype::int32, t.rank() == 2 ? Op::max : Op::sum);
      },
      Errc::mismatch, "disagree on the reduction op");
}

TEST_F(BadInput, DifferentOperations) {
  expect_all_fail(
      [](Team& t) {
        std::int32_t in = 1, out = 0;
        if (t.rank() == 4) return t.barrier();
        return t.allreduce(&in, &out, 1, Datatype::int32, Op::sum);
      },
      Errc::mismatch, "disagree on the operation");
}

TEST_F(BadInput, OverlappingBuffers) {
  expect_all_fail(
      [](Team& t) {
        std::vector<std::int32_t> buf(16, 1);
        return t.allreduce(buf.data(), buf.data() + 4, 8, Datatype::int32, Op::sum);
      },
      Errc::invalid_argument, "overlap");
}

TEST_F(BadInput, InPlaceWhereNotAllowed) {
  expect_all_fail(
      [](Team& t) {
        std::int32_t out = 0;
        return t.reduce(kInPlace, &out, 1, Datatype::int32, Op::sum, 0);  // non-roots may not
      },
      Errc::invalid_argument, "only the root may use it", 1);
}

TEST_F(BadInput, GatherRootBufferTooSmallIsTheCallersProblemButNullIsNot) {
  expect_all_fail(
      [](Team& t) {
        std::int32_t in = t.rank();
        return t.gather(&in, nullptr, 1, Datatype::int32, 2);
      },
      Errc::invalid_argument, "null receive buffer", 2);
}

// Abstaining (Team::abstain): the MPI glue hands one rank's decision to all.
TEST_F(BadInput, OneRankAbstainsEveryRankGetsItsReason) {
  for (std::int64_t n : {1, 5000, 1 << 18}) {  // the first step's line, a slot, chunks
    expect_all_fail(
        [n](Team& t) {
          std::vector<double> in(static_cast<std::size_t>(n), 1), out(static_cast<std::size_t>(n), -1);
          if (t.rank() == 3) return t.abstain(OpKind::allreduce, n, Datatype::float64, Op::sum, -1, Errc::no_space);
          Status st = t.allreduce(in.data(), out.data(), n, Datatype::float64, Op::sum);
          for (double v : out) EXPECT_EQ(v, -1) << "a call abstained from wrote the result";
          return st;
        },
        Errc::no_space, "rank 3");
  }
}

TEST_F(BadInput, EveryRankDeclinesWithNoBuffers) {
  for (std::int64_t n : {0, 1 << 20}) {
    expect_all_fail(
        [n](Team& t) { return t.abstain(OpKind::gather, n, Datatype::uint8, Op::sum, 2, Errc::unsupported); },
        Errc::unsupported, "every rank declined");
  }
}

TEST_F(BadInput, SomeDeclineOthersTakeItIsAMismatchWhateverTheOrder) {
  for (int decliner : {0, 2, 4})
    for (std::int64_t n : {0, 3, 5000, 1 << 18}) {
      expect_all_fail(
          [n, decliner](Team& t) {
            std::vector<std::int32_t> in(static_cast<std::size_t>(n), 1), out(in.size(), -1);
            if (t.rank() == decliner)
              return t.abstain(OpKind::allreduce, n, Datatype::int32, Op::sum, -1, Errc::unsupported);
            Status st = t.allreduce(in.data(), out.data(), n, Datatype::int32, Op::sum);
            for (auto v : out) EXPECT_EQ(v, -1) << "a failed call wrote the result";
            return st;
          },
          Errc::mismatch, "rank " + std::to_string(decliner) + " would hand it to the MPI");
    }
}

TEST_F(BadInput, TheRootAbstainsFromABcast) {
  expect_all_fail(
      [](Team& t) {
        std::vector<std::int32_t> buf(64, t.rank());
        if (t.rank() == 2) return t.abstain(OpKind::bcast, 64, Datatype::int32, Op::sum, 2, Errc::mismatch);
        Status st = t.bcast(buf.data(), 64, Datatype::int32, 2);
        for (auto v : buf) EXPECT_EQ(v, t.rank()) << "the buffer changed";
        return st;
      },
      Errc::mismatch, "rank 2");
}

TEST_F(BadInput, AbstainingWithoutAnErrorIsRefused) {
  ASSERT_TRUE(tt_->ok()) << tt_->first_error();
  test::on_all(*tt_, [](Team& t) {
    Status st = t.abstain(OpKind::barrier, 0, Datatype::uint8, Op::sum, -1, Errc::peer_dead);
    EXPECT_EQ(st.code(), Errc::invalid_argument) << st.to_string();
  });
}

}  // namespace
}  // namespace osmp
