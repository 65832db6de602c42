// The tuning file on disk: atomic saves, bounded reads, the fingerprint of a
// placement, the default location, and the runtime's lookup (tuning_file.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <string>

#include "core/env.hpp"
#include "core/strings.hpp"
#include "tuning/tuning_file.hpp"

namespace osmp {
namespace {

constexpr std::size_t kMaxFileBytes = std::size_t{64} << 20;

Status sys_error(std::string_view what, const std::string& path, int err) {
  return Status(Errc::system, cat(what, " ", path, ": ", std::strerror(err)));
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// mkdir -p of the directory holding `path`, mode 0755.
Status make_parents(const std::string& path) {
  for (std::size_t pos = path.find('/', 1); pos != std::string::npos; pos = path.find('/', pos + 1)) {
    std::string dir = path.substr(0, pos);
    if (dir.back() == '/' || is_directory(dir)) continue;
    if (::mkdir(dir.c_str(), 0755) != 0 && !(errno == EEXIST && is_directory(dir)))
      return sys_error("cannot create directory", dir, errno);
  }
  return {};
}

Status write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("cannot write", path, errno);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Status write_atomically(const std::string& path, std::string_view text) {
  OSMP_RETURN_IF_ERROR(make_parents(path));
  std::string tmp = cat(path, ".tmp.", ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return sys_error("cannot create", tmp, errno);
  Status st = write_all(fd, text, tmp);
  if (st.ok() && ::fsync(fd) != 0) st = sys_error("cannot sync", tmp, errno);
  if (::close(fd) != 0 && st.ok()) st = sys_error("cannot close", tmp, errno);
  if (st.ok() && ::rename(tmp.c_str(), path.c_str()) != 0)
    st = sys_error(cat("cannot rename ", tmp, " to"), path, errno);
  if (!st.ok()) ::unlink(tmp.c_str());
  return st;
}

Result<std::string> read_all(int fd, const std::string& path) {
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("cannot read tuning file", path, errno);
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxFileBytes)
      return Status(Errc::invalid_argument, cat("tuning file ", path, " is larger than ", kMaxFileBytes, " bytes"));
  }
}

Result<std::string> read_file(const std::string& path) {
  // O_NONBLOCK: a FIFO at the path must not hang team creation.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) return Status(Errc::not_found, cat("tuning file ", path, " does not exist"));
  if (fd < 0) return sys_error("cannot open tuning file", path, errno);
  struct stat st {};
  Result<std::string> text = Status(Errc::invalid_argument, cat("tuning file ", path, " is not a regular file"));
  if (::fstat(fd, &st) != 0)
    text = sys_error("cannot stat tuning file", path, errno);
  else if (S_ISREG(st.st_mode))
    text = read_all(fd, path);
  ::close(fd);
  return text;
}

std::string config_file(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return cat(dir == "/" ? "" : dir, "/osmp/tuning.json");
}

}  // namespace

Status save_tuning(const TuningFile& file, const std::string& path) {
  std::string context = cat("cannot save tuning file ", path.empty() ? "''" : path);
  if (path.empty()) return Status(Errc::invalid_argument, cat(context, ": empty path"));
  std::string text = to_json(file);
  Status st = parse_tuning(text, "(as written)").status();  // what would not load back is not written
  if (st.ok()) st = write_atomically(path, text);
  return st.prefix(context);
}

Result<TuningFile> load_tuning(const std::string& path) {
  OSMP_ASSIGN_OR_RETURN(std::string text, read_file(path));
  return parse_tuning(text, path);
}

std::string fingerprint(const MachineTree& machine, std::span<const CpuSet> places) {
  std::string text = "osmp-fingerprint 1\n";
  for (const MachineNode& n : machine.nodes)
    text += n.level + " " + std::to_string(n.logical_index) + " " + n.cpuset.to_string() + "\n";
  text += "ranks " + std::to_string(places.size()) + "\n";
  for (std::size_t r = 0; r < places.size(); ++r) text += std::to_string(r) + " " + places[r].to_string() + "\n";
  std::uint64_t h = fnv1a(text);
  std::string hex(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) hex[static_cast<std::size_t>(i)] = "0123456789abcdef"[h & 0xf];
  return hex;
}

std::string default_tuning_path() {
  if (auto file = env_get("OSMP_TUNING_FILE")) return *file;
  // The XDG spec: an empty or relative XDG_CONFIG_HOME is ignored.
  if (auto xdg = env_get("XDG_CONFIG_HOME"); xdg && xdg->starts_with('/')) return config_file(*xdg);
  if (auto home = env_get("HOME"); home && !home->empty()) return config_file(*home + "/.config");
  return "";
}

Result<TuningLookup> load_for(const std::string& path, const std::string& fingerprint) {
  TuningLookup out;
  if (path.empty()) {
    out.note = "no tuning file (OSMP_TUNING_FILE is empty, or no HOME): defaults apply";
    return out;
  }
  Result<TuningFile> file = load_tuning(path);
  if (!file.ok() && file.status().code() != Errc::not_found) return file.status();
  if (!file.ok()) {
    out.outcome = TuningLookup::Outcome::missing;
    out.note = cat("no tuning file at ", path, ": defaults apply");
  } else if (file->fingerprint != fingerprint) {
    out.outcome = TuningLookup::Outcome::mismatch;
    out.note = cat("tuning file ", path, " was made for another topology/placement (fingerprint ", file->fingerprint,
                   " on ", file->machine, "; this team ", fingerprint, "): ignored");
  } else {
    out.outcome = TuningLookup::Outcome::loaded;
    out.note = cat("tuning file ", path, " (", file->machine, ", created ", file->created, ") applies");
    out.file = std::move(file).value();
  }
  return out;
}

}  // namespace osmp
