// The mismatch message every rank reports, from every rank's op header.
#include "collectives/protocol.hpp"

#include <gtest/gtest.h>

namespace osmp {
namespace {

OpHeader header(OpKind k, std::int64_t count, Datatype t = Datatype::int32, Op op = Op::sum, int root = -1) {
  OpHeader h;
  h.kind = static_cast<std::uint8_t>(k);
  h.dtype = static_cast<std::uint8_t>(t);
  h.op = static_cast<std::uint8_t>(op);
  h.root = static_cast<std::int16_t>(root);
  h.count = count;
  return h;
}

TEST(MismatchMessage, AgreementIsNoMessage) {
  std::vector<OpHeader> all(3, header(OpKind::allreduce, 16));
  EXPECT_EQ(mismatch_message(all[0], all), "");
}

TEST(MismatchMessage, NamesTheOddRankAndBothValues) {
  std::vector<OpHeader> all(4, header(OpKind::allreduce, 16));
  all[1].count = 8;
  const std::string want = "allreduce: ranks disagree on the count: rank 1 passed 8, ranks 0,2-3 passed 16";
  for (const auto& mine : all) EXPECT_EQ(mismatch_message(mine, all), want);
}

TEST(MismatchMessage, EveryFieldThatDiffersIsNamed) {
  std::vector<OpHeader> all(3, header(OpKind::reduce, 16, Datatype::int16, Op::max, 2));
  all[0] = header(OpKind::reduce, 8, Datatype::int32, Op::max, 2);
  EXPECT_EQ(mismatch_message(all[1], all),
            "reduce: ranks disagree on the count: rank 0 passed 8, ranks 1-2 passed 16; "
            "on the datatype: rank 0 passed int32, ranks 1-2 passed int16");
  all[0] = header(OpKind::reduce, 16, Datatype::int16, Op::sum, 1);
  EXPECT_EQ(mismatch_message(all[1], all),
            "reduce: ranks disagree on the root: rank 0 passed 1, ranks 1-2 passed 2; "
            "on the reduction op: rank 0 passed sum, ranks 1-2 passed max");
}

TEST(MismatchMessage, DifferentOperationsNameOnlyTheOperation) {
  std::vector<OpHeader> all(5, header(OpKind::allreduce, 1));
  all[4] = header(OpKind::barrier, 0);
  EXPECT_EQ(mismatch_message(all[4], all),
            "barrier: ranks disagree on the operation: rank 4 called barrier, "
            "ranks 0-3 called allreduce");
  EXPECT_EQ(mismatch_message(all[0], all).rfind("allreduce: ranks disagree on the operation", 0), 0u);
}

TEST(MismatchMessage, ADecliningRankIsNamedAndNothingElseCompared) {
  std::vector<OpHeader> all(4, header(OpKind::allreduce, 64));
  all[2] = header(OpKind::allreduce, 0, Datatype::uint8);  // Team::abstain declining: no arguments
  all[2].declined = 1;
  EXPECT_EQ(mismatch_message(all[0], all),
            "allreduce: ranks disagree on running the call on osmp: rank 2 would hand it to the MPI, "
            "ranks 0-1,3 would run it");
}

TEST(PairMismatchMessage, TheTwoRanksInRankOrder) {
  OpHeader mine = header(OpKind::bcast, 4, Datatype::int32, Op::sum, 0);
  OpHeader theirs = mine;
  theirs.count = 2;
  EXPECT_EQ(pair_mismatch_message(mine, 3, theirs, 0),
            "bcast: ranks disagree on the count: rank 0 passed 2, rank 3 passed 4");
  EXPECT_EQ(pair_mismatch_message(mine, 0, theirs, 3),
            "bcast: ranks disagree on the count: rank 0 passed 4, rank 3 passed 2");
  EXPECT_EQ(pair_mismatch_message(mine, 1, mine, 0), "");
}

TEST(EarlierDigest, ComparedFirstAndLeftToTheFailedCallsMessage) {
  OpHeader a = header(OpKind::bcast, 4, Datatype::int32, Op::sum, 0);
  OpHeader b = a;
  b.earlier = static_cast<std::uint16_t>(a.earlier + 1);
  b.count = 8;  // the earlier call failed first: its error is the one reported
  EXPECT_EQ(compare(a, b), Field::earlier);
  EXPECT_EQ(pair_mismatch_message(a, 0, b, 1), "");  // Calls names the earlier call from every rank's record
  b = a;
  b.earlier = 7;
  EXPECT_EQ(compare_fields(a, b), Field::earlier);
}

TEST(EarlierDigest, EveryFieldButItsOwnCounts) {
  const OpHeader a = header(OpKind::reduce, 16, Datatype::int16, Op::max, 2);
  OpHeader chained = a;
  chained.earlier = 99;  // the digest of a call does not depend on the one before
  EXPECT_EQ(earlier_digest(a), earlier_digest(chained));
  int differ = 0;
  for (OpHeader h :
       {header(OpKind::bcast, 16, Datatype::int16, Op::max, 2), header(OpKind::reduce, 17, Datatype::int16, Op::max, 2),
        header(OpKind::reduce, 16, Datatype::int32, Op::max, 2),
        header(OpKind::reduce, 16, Datatype::int16, Op::min, 2),
        header(OpKind::reduce, 16, Datatype::int16, Op::max, 1)}) {
    differ += earlier_digest(h) != earlier_digest(a) ? 1 : 0;
  }
  EXPECT_EQ(differ, 5);
  OpHeader declined = a;
  declined.declined = 1;
  EXPECT_NE(earlier_digest(declined), earlier_digest(a));
}

}  // namespace
}  // namespace osmp
