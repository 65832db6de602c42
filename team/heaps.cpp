#include "team/heaps.hpp"

#include <vector>

#include "core/log.hpp"

namespace osmp {

std::size_t default_heap_bytes(const std::string& dir, int ranks) {
  auto free_bytes = shm_free_bytes(dir);
  if (!free_bytes.ok() || ranks < 1) return 0;
  const std::size_t share = static_cast<std::size_t>(*free_bytes / 4 / static_cast<std::uint64_t>(ranks));
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  return share / kMiB * kMiB;
}

Result<std::shared_ptr<const HeapPeers>> join_heaps(Bootstrap& boot, const TeamOptions& options) {
  const std::size_t bytes = options.heap_bytes ? *options.heap_bytes : default_heap_bytes(shm_dir(), boot.size());
  auto own = Heap::of_process(bytes);
  Status local = own.status();
  SegmentHandle mine;
  if (own.ok() && *own) mine = (*own)->handle();
  std::vector<SegmentHandle> all(static_cast<std::size_t>(boot.size()));
  OSMP_RETURN_IF_ERROR(boot.allgather(&mine, sizeof mine, all.data()));
  Result<HeapPeers> peers = local.ok() ? HeapPeers::attach(all, boot.rank(), *own) : Result<HeapPeers>(local);
  // A heap that cannot be made or mapped anywhere (no room, an address-space
  // limit) leaves the team without heaps on every rank, never without a team.
  Status agreed = boot.agree(peers.status());
  if (!agreed.ok()) {
    if (agreed.code() == Errc::peer_dead || agreed.code() == Errc::aborted || agreed.code() == Errc::timeout) {
      return agreed;
    }
    if (boot.rank() == 0) log(LogLevel::warn, "no shared heaps for this team: ", agreed.message());
    return std::shared_ptr<const HeapPeers>();
  }
  return std::make_shared<const HeapPeers>(std::move(*peers));
}

}  // namespace osmp
