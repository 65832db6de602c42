#include "collectives/ops/pairs.hpp"

#include "shm/copy.hpp"

namespace osmp {

PairsMine write_pairs_row(std::byte* row, const Exchange& x, int me, int n, const std::byte* send, std::size_t cap,
                          std::size_t cma_from) {
  PairsMine mine;
  const std::uint64_t total = pairs_carried_bytes(x, me, n);
  std::uint64_t longest_out = 0;
  for (int b = 0; b < n; ++b) {
    const PairEntry entry{x.out.len(b), x.out.at(b), x.in.len(b)};
    std::memcpy(row + static_cast<std::size_t>(b) * sizeof entry, &entry, sizeof entry);
    longest_out = std::max<std::uint64_t>(longest_out, entry.len);
    mine.longest = std::max<std::uint64_t>(mine.longest, std::max(entry.len, entry.want));
  }
  mine.carried = total <= cap && longest_out < cma_from;
  const PairsTail tail{mine.longest, mine.carried ? total : PairsTail::kNotCarried};
  std::memcpy(row + static_cast<std::size_t>(n) * sizeof(PairEntry), &tail, sizeof tail);
  if (!mine.carried) return mine;
  std::byte* blocks = row + pairs_blocks_at(n);
  for (int b = 0; b < n; ++b) {
    if (b == me || !x.out.len(b)) continue;
    copy_to_shared(blocks, send + x.out.at(b), x.out.len(b));
    blocks += x.out.len(b);
  }
  return mine;
}

Status pairs_error(const CollArgs& a, const PairsFinding& f) {
  const std::size_t es = size_of(a.dtype);
  return Status(Errc::invalid_argument, cat("alltoallv: rank ", f.sender, " sends ", f.sent / es, " elements to rank ",
                                            f.receiver, ", which expects ", f.expected / es));
}

}  // namespace osmp
