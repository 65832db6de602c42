#include "shm/regions.hpp"

#include <algorithm>
#include <bit>
#include <mutex>

#include "core/strings.hpp"

namespace osmp {

SharedRegions& SharedRegions::of_process() {
  static SharedRegions* r = new SharedRegions();  // never destroyed: teams may outlive static destruction
  return *r;
}

SharedRegions::Used SharedRegions::used() const {
  Used u{};
  u[0] = 1;  // the heaps
  std::shared_lock lock(mu_);
  for (int i = 1; i < kNumbers; ++i)
    if (regions_[static_cast<std::size_t>(i)]) u[static_cast<std::size_t>(i / 64)] |= std::uint64_t{1} << (i % 64);
  return u;
}

int SharedRegions::lowest_free(const Used& used) {
  for (std::size_t w = 0; w < used.size(); ++w)
    if (~used[w] != 0) return static_cast<int>(w * 64) + std::countr_one(used[w]);
  return 0;
}

Status SharedRegions::add(int number, std::vector<RegionPart> parts, std::vector<pid_t> members) {
  if (number <= 0 || number >= kNumbers)
    return Status(Errc::invalid_argument, cat("shared region: number ", number, " is not in 1..", kNumbers - 1));
  if (parts.empty() || parts.size() > kMaxParts)
    return Status(Errc::invalid_argument,
                  cat("shared region ", number, ": ", parts.size(), " parts (1..", kMaxParts, ")"));
  if (members.empty()) return Status(Errc::invalid_argument, cat("shared region ", number, ": no member processes"));
  std::sort(members.begin(), members.end());
  auto r = std::make_unique<Region>(Region{std::move(parts), std::move(members)});
  std::unique_lock lock(mu_);
  auto& slot = regions_[static_cast<std::size_t>(number)];
  if (slot) return Status(Errc::invalid_argument, cat("shared region ", number, " is registered already"));
  slot = std::move(r);
  live_.fetch_add(1, std::memory_order_relaxed);
  return {};
}

void SharedRegions::remove(int number) {
  if (number <= 0 || number >= kNumbers) return;
  std::unique_lock lock(mu_);
  auto& slot = regions_[static_cast<std::size_t>(number)];
  if (!slot) return;
  slot.reset();
  live_.fetch_sub(1, std::memory_order_relaxed);
}

std::uint64_t SharedRegions::locate(const void* p, std::size_t n, const std::vector<pid_t>& readers) const {
  if (!p || n == 0 || empty()) return 0;
  const auto* b = static_cast<const std::byte*>(p);
  std::shared_lock lock(mu_);
  for (int i = 1; i < kNumbers; ++i) {
    const Region* r = regions_[static_cast<std::size_t>(i)].get();
    if (!r) continue;
    for (std::size_t k = 0; k < r->parts.size(); ++k) {
      const RegionPart& part = r->parts[k];
      if (b < part.base || b >= part.base + part.size) continue;
      const auto off = static_cast<std::size_t>(b - part.base);
      if (n > part.size - off || off > kRegionOffsetMask) return 0;
      for (pid_t q : readers)
        if (!std::binary_search(r->members.begin(), r->members.end(), q)) return 0;
      return region_word(i, k, off);
    }
  }
  return 0;
}

std::byte* SharedRegions::at(std::uint64_t word, std::size_t n) const {
  const int number = region_of(word);
  if (number <= 0 || number >= kNumbers) return nullptr;
  const std::size_t part = (word >> kRegionPartShift) & kRegionPartMask;
  const std::size_t off = word & kRegionOffsetMask;
  std::shared_lock lock(mu_);
  const Region* r = regions_[static_cast<std::size_t>(number)].get();
  if (!r || part >= r->parts.size()) return nullptr;
  const RegionPart& p = r->parts[part];
  if (off > p.size || n > p.size - off) return nullptr;
  return p.base + off;
}

}  // namespace osmp
