#include "topology/cpuset.hpp"

#include <algorithm>
#include <bit>

#include "core/strings.hpp"

namespace osmp {
namespace {
constexpr unsigned kBits = 64;
constexpr unsigned kMaxPu = 1u << 20;  // far above any machine; bounds parser allocations
}  // namespace

CpuSet CpuSet::single(unsigned pu) {
  CpuSet s;
  s.set(pu);
  return s;
}

CpuSet CpuSet::range(unsigned first, unsigned last) {
  CpuSet s;
  for (unsigned i = first; i <= last; ++i) s.set(i);
  return s;
}

Result<CpuSet> CpuSet::parse(std::string_view list) {
  CpuSet s;
  std::string_view t = trim(list);
  if (t.empty()) return s;
  for (std::string_view item : split(t, ',')) {
    auto parts = split(item, '-');
    if (parts.size() > 2) {
      return Status(Errc::invalid_argument, cat("cpuset '", list, "': bad range '", item, "'"));
    }
    auto lo = parse_int(parts[0], 0, kMaxPu, cat("cpuset '", list, "'"));
    if (!lo.ok()) return lo.status();
    long long hi_v = *lo;
    if (parts.size() == 2) {
      auto hi = parse_int(parts[1], 0, kMaxPu, cat("cpuset '", list, "'"));
      if (!hi.ok()) return hi.status();
      hi_v = *hi;
    }
    if (hi_v < *lo) {
      return Status(Errc::invalid_argument, cat("cpuset '", list, "': empty range '", item, "'"));
    }
    for (long long i = *lo; i <= hi_v; ++i) s.set(static_cast<unsigned>(i));
  }
  return s;
}

void CpuSet::set(unsigned pu) {
  if (pu / kBits >= words_.size()) words_.resize(pu / kBits + 1, 0);
  words_[pu / kBits] |= std::uint64_t{1} << (pu % kBits);
}

void CpuSet::reset(unsigned pu) {
  if (pu / kBits >= words_.size()) return;
  words_[pu / kBits] &= ~(std::uint64_t{1} << (pu % kBits));
  drop_trailing_zeros();
}

bool CpuSet::test(unsigned pu) const {
  return pu / kBits < words_.size() && ((words_[pu / kBits] >> (pu % kBits)) & 1u);
}

unsigned CpuSet::count() const {
  unsigned n = 0;
  for (auto w : words_) n += static_cast<unsigned>(std::popcount(w));
  return n;
}

int CpuSet::first() const { return next(-1); }

int CpuSet::next(int after) const {
  unsigned start = static_cast<unsigned>(after + 1);
  for (std::size_t w = start / kBits; w < words_.size(); ++w) {
    std::uint64_t bits = words_[w];
    if (w == start / kBits) bits &= ~std::uint64_t{0} << (start % kBits);
    if (bits) return static_cast<int>(w * kBits + static_cast<unsigned>(std::countr_zero(bits)));
  }
  return -1;
}

int CpuSet::last() const {
  if (words_.empty()) return -1;
  return static_cast<int>((words_.size() - 1) * kBits + kBits - 1 -
                          static_cast<unsigned>(std::countl_zero(words_.back())));
}

bool CpuSet::is_subset_of(const CpuSet& other) const {
  for (std::size_t w = 0; w < words_.size(); ++w) {
    std::uint64_t o = w < other.words_.size() ? other.words_[w] : 0;
    if (words_[w] & ~o) return false;
  }
  return true;
}

bool CpuSet::intersects(const CpuSet& other) const {
  std::size_t n = std::min(words_.size(), other.words_.size());
  for (std::size_t w = 0; w < n; ++w)
    if (words_[w] & other.words_[w]) return true;
  return false;
}

CpuSet& CpuSet::operator|=(const CpuSet& other) {
  if (other.words_.size() > words_.size()) words_.resize(other.words_.size(), 0);
  for (std::size_t w = 0; w < other.words_.size(); ++w) words_[w] |= other.words_[w];
  return *this;
}

CpuSet& CpuSet::operator&=(const CpuSet& other) {
  if (words_.size() > other.words_.size()) words_.resize(other.words_.size());
  for (std::size_t w = 0; w < words_.size(); ++w) words_[w] &= other.words_[w];
  drop_trailing_zeros();
  return *this;
}

CpuSet& CpuSet::operator-=(const CpuSet& other) {
  std::size_t n = std::min(words_.size(), other.words_.size());
  for (std::size_t w = 0; w < n; ++w) words_[w] &= ~other.words_[w];
  drop_trailing_zeros();
  return *this;
}

std::string CpuSet::to_string() const {
  std::string out;
  for (int i = first(); i >= 0;) {
    int j = i;
    while (test(static_cast<unsigned>(j + 1))) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(i);
    if (j > i) out += cat('-', j);
    i = next(j);
  }
  return out;
}

void CpuSet::drop_trailing_zeros() {
  while (!words_.empty() && words_.back() == 0) words_.pop_back();
}

}  // namespace osmp
