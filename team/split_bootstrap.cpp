#include "team/split_bootstrap.hpp"

#include <algorithm>
#include <cstring>

#include "core/strings.hpp"

namespace osmp {

SplitBootstrap::SplitBootstrap(Bootstrap& parent, std::vector<int> members)
    : parent_(parent), members_(std::move(members)) {
  const auto at = std::find(members_.begin(), members_.end(), parent.rank());
  rank_ = at == members_.end() ? -1 : static_cast<int>(at - members_.begin());
  headers_.resize(static_cast<std::size_t>(parent.size()));
}

Result<bool> SplitBootstrap::round(bool active, const void* in, std::size_t len) {
  const Header mine{active ? 1u : 0u, active ? len : 0u};
  OSMP_RETURN_IF_ERROR(parent_.allgather(&mine, sizeof mine, headers_.data()));
  bool any = false;
  std::uint64_t longest = 0;
  for (const Header& h : headers_) {
    any = any || h.active != 0;
    longest = std::max(longest, h.len);
  }
  // Every rank saw the same headers: the same stride, the same decision.
  stride_ = static_cast<std::size_t>(longest);
  if (stride_ > 0) {
    std::vector<std::byte> padded(stride_);
    if (mine.len) std::memcpy(padded.data(), in, mine.len);
    items_.resize(stride_ * headers_.size());
    OSMP_RETURN_IF_ERROR(parent_.allgather(padded.data(), stride_, items_.data()));
  }
  return any;
}

Status SplitBootstrap::allgather(const void* in, std::size_t len, void* out) {
  if (rank_ < 0 || finished_) return Status(Errc::invalid_argument, "split: an exchange outside the rank's group");
  OSMP_RETURN_IF_ERROR(round(true, in, len).status());
  for (int r = 0; r < size(); ++r) {
    if (!active_of(r) || len_of(r) != len) {
      return Status(Errc::mismatch, cat("split: rank ", members_[static_cast<std::size_t>(r)],
                                        active_of(r) ? cat(" gave ", len_of(r), " bytes to an exchange of ", len)
                                                     : std::string(" was done with its group's exchanges")));
    }
    if (len) std::memcpy(static_cast<std::byte*>(out) + static_cast<std::size_t>(r) * len, item(r), len);
  }
  return {};
}

Status SplitBootstrap::broadcast(void* buf, std::size_t len, int root) {
  if (rank_ < 0 || finished_) return Status(Errc::invalid_argument, "split: an exchange outside the rank's group");
  if (root < 0 || root >= size()) return Status(Errc::invalid_argument, cat("split: broadcast root ", root));
  OSMP_RETURN_IF_ERROR(round(true, rank_ == root ? buf : nullptr, rank_ == root ? len : 0).status());
  if (!active_of(root) || len_of(root) != len) {
    return Status(Errc::mismatch, cat("split: the broadcast's root (rank ", members_[static_cast<std::size_t>(root)],
                                      ") gave ", len_of(root), " bytes, rank ", parent_.rank(), " expected ", len));
  }
  if (rank_ != root && len) std::memcpy(buf, item(root), len);
  return {};
}

Status SplitBootstrap::finish() {
  if (finished_) return {};
  finished_ = true;
  for (;;) {
    OSMP_ASSIGN_OR_RETURN(bool any, round(false, nullptr, 0));
    if (!any) return {};
  }
}

}  // namespace osmp
