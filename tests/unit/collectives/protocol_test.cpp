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
  h.root = root;
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
  EXPECT_EQ(mismatch_message(all[4], all), "barrier: ranks disagree on the operation: rank 4 called barrier, "
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

}  // namespace
}  // namespace osmp
