// The exchange that creates the teams of a split (osmp::Team::split): each
// group of a running team's ranks creates its own team at the same time as
// the others, over the parent's own collectives.
//
// Every exchange of every group is one round of the parent: an allgather of
// each rank's header (whether it takes part in this round, how many bytes it
// gives), then, when some rank gives bytes, an allgather of everyone's bytes
// padded to the longest. A rank that takes part reads its group's members'
// parts; the others give nothing. A group's ranks make the same exchanges in
// the same order (a team's creation is collective over the group), so each
// one's k-th exchange is the parent's k-th round for all of them. A rank
// whose group is done (or that joins none) takes part in the rounds of the
// others until every rank is done (finish()), so every rank makes the same
// number of rounds and the parent's collectives line up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "osmp_base.hpp"

namespace osmp {

class SplitBootstrap final : public Bootstrap {
 public:
  // `members`: the parent ranks of this rank's group, in the group's rank
  // order (this rank among them); empty: this rank joins no group.
  SplitBootstrap(Bootstrap& parent, std::vector<int> members);

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }
  std::uint64_t job_id() const override { return parent_.job_id(); }
  Status allgather(const void* in, std::size_t len, void* out) override;
  Status broadcast(void* buf, std::size_t len, int root) override;
  const std::atomic<std::uint64_t>* job_abort() const override { return parent_.job_abort(); }

  // This rank's group is done (its team made, or failed): takes part in
  // the others' rounds until every rank of the parent is done. Collective
  // over the parent; after it, no exchange.
  Status finish();

 private:
  struct Header {
    std::uint64_t active = 0;  // 1: this rank's group exchanges in this round
    std::uint64_t len = 0;     // the bytes it gives
  };
  // One round: every rank's header into headers_, every rank's bytes into
  // items_ (stride_ apart). Returns whether any rank was active.
  Result<bool> round(bool active, const void* in, std::size_t len);
  const std::byte* item(int group_rank) const {
    return items_.data() + static_cast<std::size_t>(members_[static_cast<std::size_t>(group_rank)]) * stride_;
  }
  bool active_of(int group_rank) const {
    return headers_[static_cast<std::size_t>(members_[static_cast<std::size_t>(group_rank)])].active != 0;
  }
  std::uint64_t len_of(int group_rank) const {
    return headers_[static_cast<std::size_t>(members_[static_cast<std::size_t>(group_rank)])].len;
  }

  Bootstrap& parent_;
  std::vector<int> members_;
  int rank_ = -1;
  bool finished_ = false;
  std::vector<Header> headers_;
  std::vector<std::byte> items_;
  std::size_t stride_ = 0;
};

}  // namespace osmp
