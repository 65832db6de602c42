#include "shm/heap.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "core/log.hpp"

namespace osmp {
namespace {

constexpr std::uint64_t kHeapLayout = 1;  // params[0] of a heap's header: its layout's version

std::size_t pages_for(std::size_t bytes) { return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes; }

// The process's heap and the peers' heaps it maps, shared by its teams.
struct Registry {
  std::mutex mu;
  std::weak_ptr<Heap> own;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::weak_ptr<const Segment>> peers;  // (dev, ino)
};
Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: teams may outlive static destruction
  return *r;
}

}  // namespace

SegmentInfo Heap::info() {
  SegmentInfo i;
  i.kind = SegmentKind::heap;
  i.params[0] = kHeapLayout;
  return i;
}

Heap::Heap(Segment s) : seg_(std::move(s)) {
  if (seg_.size() > kFirst) free_.emplace(kFirst, seg_.size() - kFirst);
  // Large pages where the system gives them to shared memory
  // (/sys/kernel/mm/transparent_hugepage/shmem_enabled = advise or always).
  (void)::madvise(seg_.base(), seg_.size(), MADV_HUGEPAGE);
}

Result<std::shared_ptr<Heap>> Heap::create(const std::string& dir, std::size_t bytes) {
  const std::size_t size = kFirst + pages_for(bytes);
  OSMP_ASSIGN_OR_RETURN(Segment s, Segment::create(dir, size, info(), {}, Segment::Reserve::header_only));
  return std::shared_ptr<Heap>(new Heap(std::move(s)));
}

Result<std::shared_ptr<Heap>> Heap::of_process(std::size_t bytes) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  if (auto h = r.own.lock()) return h;
  if (bytes == 0) return std::shared_ptr<Heap>();
  OSMP_ASSIGN_OR_RETURN(std::shared_ptr<Heap> h, create(shm_dir(), bytes));
  r.own = h;
  return h;
}

Result<void*> Heap::allocate(std::size_t bytes) {
  if (bytes == 0) return Status(Errc::invalid_argument, "shared heap: cannot allocate 0 bytes");
  if (bytes > seg_.size()) {
    return Status(Errc::no_space, cat("shared heap: ", format_bytes(bytes), " asked for, the heap has ",
                                      format_bytes(seg_.size() - kFirst), " in all (OSMP_HEAP_SIZE)"));
  }
  const std::size_t len = pages_for(bytes);
  std::lock_guard lock(mu_);
  auto it = free_.begin();
  std::size_t largest = 0, free_total = 0;
  for (; it != free_.end() && it->second < len; ++it) largest = std::max(largest, it->second);
  if (it == free_.end()) {
    for (const auto& [o, n] : free_) free_total += n;
    return Status(Errc::no_space, cat("shared heap: ", format_bytes(bytes), " asked for, ", format_bytes(free_total),
                                      " free of ", format_bytes(seg_.size() - kFirst), " (the largest free run ",
                                      format_bytes(largest), "; OSMP_HEAP_SIZE sets the size)"));
  }
  const std::size_t off = it->first;
  OSMP_RETURN_IF_ERROR(seg_.reserve(off, len));
  const std::size_t rest = it->second - len;
  free_.erase(it);
  if (rest) free_.emplace(off + len, rest);
  used_.emplace(off, len);
  return static_cast<void*>(seg_.base() + off);
}

Status Heap::free(void* p) { return release(p, /*reuse=*/true); }

Status Heap::retire(void* p) { return release(p, /*reuse=*/false); }

Status Heap::release(void* p, bool reuse) {
  auto* b = static_cast<std::byte*>(p);
  if (!contains(p)) {
    return Status(Errc::invalid_argument, cat("shared heap: ", p, " is not in this heap (", seg_.base(), " .. ",
                                              static_cast<void*>(seg_.base() + seg_.size()), ")"));
  }
  const std::size_t off = static_cast<std::size_t>(b - seg_.base());
  std::lock_guard lock(mu_);
  auto it = used_.find(off);
  if (it == used_.end()) {
    auto after = used_.upper_bound(off);
    if (after != used_.begin() && off < std::prev(after)->first + std::prev(after)->second) {
      return Status(Errc::invalid_argument,
                    cat("shared heap: ", p, " is inside the block at ",
                        static_cast<void*>(seg_.base() + std::prev(after)->first), ", not its start"));
    }
    return Status(Errc::invalid_argument,
                  cat("shared heap: ", p, " is not an allocated block (freed twice, or never allocated)"));
  }
  std::size_t start = off, len = it->second;
  used_.erase(it);
  if (!reuse) return {};  // its pages stay reserved, its range out of the free list
  seg_.give_back(start, len);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + len) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      len += prev->second;
      free_.erase(prev);
    }
  }
  free_.emplace(start, len);
  return {};
}

std::uint64_t Heap::locate(const void* p, std::size_t n) const {
  if (!contains(p)) return kNowhere;
  const std::size_t off = static_cast<std::size_t>(static_cast<const std::byte*>(p) - seg_.base());
  std::lock_guard lock(mu_);
  auto after = used_.upper_bound(off);
  if (after == used_.begin()) return kNowhere;
  auto block = std::prev(after);
  const std::size_t end = block->first + block->second;
  return off < end && n <= end - off ? off : kNowhere;  // off >= kFirst > 0: never kNowhere
}

std::size_t Heap::used() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& [o, len] : used_) n += len;
  return n;
}

Result<HeapPeers> HeapPeers::attach(const std::vector<SegmentHandle>& handles, int me, std::shared_ptr<Heap> own) {
  HeapPeers v;
  v.own_ = std::move(own);
  const SegmentHandle mine = v.own_ ? v.own_->handle() : SegmentHandle{};
  Registry& reg = registry();
  std::lock_guard lock(reg.mu);
  std::erase_if(reg.peers, [](const auto& kv) { return kv.second.expired(); });
  for (std::size_t r = 0; r < handles.size(); ++r) {
    const SegmentHandle& h = handles[r];
    const bool self = static_cast<int>(r) == me || (mine.valid() && h.dev == mine.dev && h.ino == mine.ino);
    if (self || !h.valid()) {
      const bool have = self && v.own_;
      v.bases_.push_back(have ? v.own_->base() : nullptr);
      v.sizes_.push_back(have ? v.own_->size() : 0);
      v.mapped_.emplace_back();
      continue;
    }
    std::shared_ptr<const Segment> seg = reg.peers[{h.dev, h.ino}].lock();
    if (!seg) {
      auto s = Segment::attach(h, Heap::info());
      if (!s.ok()) return Status(s.status().code(), cat("rank ", r, "'s shared heap: ", s.status().message()));
      seg = std::make_shared<const Segment>(std::move(*s));
      reg.peers[{h.dev, h.ino}] = seg;
    }
    v.bases_.push_back(seg->base());
    v.sizes_.push_back(seg->size());
    v.mapped_.push_back(std::move(seg));
  }
  v.complete_ = std::find(v.sizes_.begin(), v.sizes_.end(), std::size_t{0}) == v.sizes_.end();
  return v;
}

}  // namespace osmp
