#include "team/bootstrap.hpp"

#include <algorithm>
#include <cstring>

namespace osmp {

Status Bootstrap::broadcast_string(std::string& s, int root) {
  std::uint64_t len = s.size();
  OSMP_RETURN_IF_ERROR(broadcast(&len, sizeof len, root));
  if (rank() != root) s.assign(len, '\0');
  return len ? broadcast(s.data(), len, root) : Status{};
}

Result<std::vector<std::string>> Bootstrap::allgather_strings(const std::string& mine) {
  const auto n = static_cast<std::size_t>(size());
  std::uint64_t len = mine.size();
  std::vector<std::uint64_t> lens(n);
  OSMP_RETURN_IF_ERROR(allgather(&len, sizeof len, lens.data()));
  const std::size_t most = *std::max_element(lens.begin(), lens.end());
  std::vector<std::string> out(n);
  if (most == 0) return out;
  std::string padded = mine;  // every rank gives the same length
  padded.resize(most, '\0');
  std::string all(most * n, '\0');
  OSMP_RETURN_IF_ERROR(allgather(padded.data(), most, all.data()));
  for (std::size_t r = 0; r < n; ++r) out[r] = all.substr(r * most, lens[r]);
  return out;
}

Status Bootstrap::agree(const Status& local) {
  struct Record {
    std::int32_t code;
    char message[236];
  };
  static_assert(sizeof(Record) == 240);
  Record mine{};
  mine.code = static_cast<std::int32_t>(local.code());
  std::string text = local.message().substr(0, sizeof mine.message - 1);
  std::memcpy(mine.message, text.c_str(), text.size() + 1);
  std::vector<Record> all(static_cast<std::size_t>(size()));
  OSMP_RETURN_IF_ERROR(allgather(&mine, sizeof mine, all.data()));
  for (int r = 0; r < size(); ++r) {
    const Record& rec = all[static_cast<std::size_t>(r)];
    if (rec.code != 0) {
      std::string msg(rec.message, strnlen(rec.message, sizeof rec.message));
      return Status(static_cast<Errc>(rec.code), r == rank() ? msg : cat("rank ", r, ": ", msg));
    }
  }
  return {};
}

}  // namespace osmp
