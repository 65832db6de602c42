// Our own cpuset: a set of PU os indexes, so that hwloc bitmaps never leave
// topology/. Value type; trailing zero words are trimmed so == is exact.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace osmp {

class CpuSet {
 public:
  CpuSet() = default;
  static CpuSet single(unsigned pu);
  static CpuSet range(unsigned first, unsigned last);  // inclusive
  // Parses the list format "0-3,8,10-11" (the same as hwloc's and taskset's -c).
  static Result<CpuSet> parse(std::string_view list);

  void set(unsigned pu);
  void reset(unsigned pu);
  bool test(unsigned pu) const;
  bool empty() const { return words_.empty(); }
  unsigned count() const;
  int first() const;          // -1 when empty
  int next(int after) const;  // next PU > after, -1 at the end
  int last() const;           // -1 when empty

  bool is_subset_of(const CpuSet& other) const;
  bool intersects(const CpuSet& other) const;

  CpuSet& operator|=(const CpuSet& other);
  CpuSet& operator&=(const CpuSet& other);
  CpuSet& operator-=(const CpuSet& other);  // set difference
  friend CpuSet operator|(CpuSet a, const CpuSet& b) { return a |= b; }
  friend CpuSet operator&(CpuSet a, const CpuSet& b) { return a &= b; }
  friend CpuSet operator-(CpuSet a, const CpuSet& b) { return a -= b; }
  friend bool operator==(const CpuSet&, const CpuSet&) = default;

  std::string to_string() const;  // list format, "" when empty

  // Raw 64-bit words, PU i in bit (i % 64) of word (i / 64).
  const std::vector<std::uint64_t>& words() const { return words_; }

 private:
  void drop_trailing_zeros();
  std::vector<std::uint64_t> words_;
};

}  // namespace osmp
