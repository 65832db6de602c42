#include "shm/layout.hpp"

namespace osmp {
namespace {

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

Status check_area(const char* what, std::size_t bytes) {
  if (bytes == 0 || bytes > kMaxAreaBytes) {
    return Status(Errc::invalid_argument, cat(what, " of ", bytes, " bytes is out of range [1, ", kMaxAreaBytes, "]"));
  }
  return {};
}

}  // namespace

Result<GroupLayout> make_group_layout(GroupLayoutParams p) {
  if (p.members < 1 || p.members > (1 << 20)) {
    return Status(Errc::invalid_argument, cat("group of ", p.members, " members"));
  }
  OSMP_RETURN_IF_ERROR(check_area("slot size (OSMP_SLOT_SIZE)", p.slot_bytes));
  OSMP_RETURN_IF_ERROR(check_area("broadcast area size (OSMP_BCAST_SIZE)", p.bcast_bytes));
  p.slot_bytes = round_up(p.slot_bytes, kPage);
  p.bcast_bytes = round_up(p.bcast_bytes, kPage);
  GroupLayout l;
  l.params = p;
  std::size_t m = static_cast<std::size_t>(p.members);
  l.leader_ctrl = sizeof(SegmentHeader);
  l.member_ctrl = l.leader_ctrl + kLeaderLines * kFalseSharingRange;
  l.slots = round_up(l.member_ctrl + kBuffers * m * kFalseSharingRange, kPage);
  l.bcast = l.slots + kBuffers * m * p.slot_bytes;
  l.total = l.bcast + kBuffers * p.bcast_bytes;
  return l;
}

Result<ControlLayout> make_control_layout(ControlLayoutParams p) {
  if (p.ranks < 1 || p.ranks > (1 << 20)) {
    return Status(Errc::invalid_argument, cat("control segment for ", p.ranks, " ranks"));
  }
  if (p.item_bytes) OSMP_RETURN_IF_ERROR(check_area("exchange item size", p.item_bytes));
  if (p.bcast_bytes) OSMP_RETURN_IF_ERROR(check_area("exchange broadcast size", p.bcast_bytes));
  ControlLayout l;
  std::size_t r = static_cast<std::size_t>(p.ranks);
  p.item_bytes = round_up(p.item_bytes, kFalseSharingRange);
  l.params = p;
  l.control = sizeof(SegmentHeader);
  l.rank_lines = l.control + sizeof(ControlBlock);
  l.records = l.rank_lines + r * kFalseSharingRange;
  l.items = l.records + r * sizeof(CallRecord);
  l.bcast = round_up(l.items + r * p.item_bytes, kFalseSharingRange);
  l.total = round_up(l.bcast + p.bcast_bytes, kPage);
  return l;
}

std::size_t ControlLayout::record(int r) const { return records + static_cast<std::size_t>(r) * sizeof(CallRecord); }

std::uint64_t raise_abort(std::atomic<std::uint64_t>& word, AbortCode code, int rank) {
  std::uint64_t expected = 0;
  std::uint64_t mine = encode_abort(code, rank);
  // acq_rel: whoever wins publishes its reason; losers read the winner's.
  if (word.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) return mine;
  return expected;
}

std::string describe_abort(std::uint64_t word) {
  int rank = abort_rank(word);
  switch (abort_code(word)) {
    case AbortCode::none: return "not aborted";
    case AbortCode::peer_dead: return cat("rank ", rank, " died");
    case AbortCode::rank_failed: return cat("rank ", rank, " failed (reported by the launcher)");
    case AbortCode::user: return cat("rank ", rank, " aborted the team");
    case AbortCode::launcher: return "the launcher stopped the job";
    case AbortCode::timeout: return "the launcher's timeout expired";
  }
  return cat("unknown abort reason ", word);
}

}  // namespace osmp
