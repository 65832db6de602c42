// osmp-clean: lists the osmp state of the calling user on this machine and
// removes what is stale, never what is in use.
//
// osmp's segments have no names and its rendezvous sockets vanish with their
// process (docs/security.md), so a run of this version leaves nothing to
// clean. What can exist:
//   - names "osmp-<uid>-..." in the shm directories, left by osmp before 0.2
//     (which named its segments) or planted by someone: removed unless a
//     process still maps or holds them;
//   - rendezvous sockets "@osmp-<uid>-<job>-..." of jobs starting without
//     osmprun: listed with the process serving them (they go when it goes);
//   - processes that map unnamed files of the shm directories (running osmp
//     jobs among them): listed.
//
//   osmp-clean [--dry-run] [--dir DIR]...
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/main.hpp"
#include "osmp/build_info.hpp"
#include "shm/rendezvous.hpp"
#include "shm/segment.hpp"

namespace {

const char* const kUsage =
    "usage: osmp-clean [--dry-run] [--dir DIR]... | --help | --version\n"
    "  Lists the calling user's osmp state (names in the shm directories, rendezvous\n"
    "  sockets of starting jobs, processes mapping segments) and removes stale names.\n"
    "  --dry-run   list only\n"
    "  --dir DIR   look in DIR too (default: OSMP_SHM_DIR, and /dev/shm)\n"
    "  -h, --help, --version\n";

std::vector<int> my_processes() {
  std::vector<int> pids;
  DIR* d = ::opendir("/proc");
  if (!d) return pids;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    struct stat st {};
    std::string p = std::string("/proc/") + e->d_name;
    if (::stat(p.c_str(), &st) == 0 && st.st_uid == ::geteuid()) pids.push_back(std::atoi(e->d_name));
  }
  ::closedir(d);
  return pids;
}

// Files each process maps or holds open: /proc/PID/maps and /proc/PID/fd.
std::map<int, std::set<std::string>> open_files(const std::vector<int>& pids) {
  std::map<int, std::set<std::string>> files;
  for (int pid : pids) {
    const std::string base = "/proc/" + std::to_string(pid);
    std::ifstream maps(base + "/maps");
    for (std::string line; std::getline(maps, line);) {
      auto slash = line.find('/');
      if (slash != std::string::npos) files[pid].insert(line.substr(slash));
    }
    if (DIR* d = ::opendir((base + "/fd").c_str())) {
      while (dirent* e = ::readdir(d)) {
        char target[4096];
        ssize_t n = ::readlink((base + "/fd/" + e->d_name).c_str(), target, sizeof target - 1);
        if (n > 0) files[pid].insert(std::string(target, static_cast<std::size_t>(n)));
      }
      ::closedir(d);
    }
  }
  return files;
}

std::vector<int> users_of(const std::string& path, const std::map<int, std::set<std::string>>& files) {
  std::vector<int> users;
  for (const auto& [pid, set] : files)
    if (set.count(path) || set.count(path + " (deleted)")) users.push_back(pid);
  return users;
}

int clean_names(const std::string& dir, bool dry, const std::map<int, std::set<std::string>>& files) {
  const std::string mine = "osmp-" + std::to_string(::geteuid()) + "-";
  int found = 0;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  while (dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, "osmp-", 5) != 0) continue;
    const std::string path = dir + "/" + e->d_name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    ++found;
    if (st.st_uid != ::geteuid() || std::strncmp(e->d_name, mine.c_str(), mine.size()) != 0) {
      std::printf("  %s: uid %u's, not yours: left alone\n", path.c_str(), static_cast<unsigned>(st.st_uid));
      continue;
    }
    auto users = users_of(path, files);
    if (!users.empty()) {
      std::printf("  %s: in use by pid %d: kept\n", path.c_str(), users.front());
    } else if (dry) {
      std::printf("  %s: stale (%s): would remove\n", path.c_str(),
                  osmp::format_bytes(static_cast<std::uint64_t>(st.st_size)).c_str());
    } else if (::unlink(path.c_str()) == 0) {
      std::printf("  %s: stale (%s): removed\n", path.c_str(),
                  osmp::format_bytes(static_cast<std::uint64_t>(st.st_size)).c_str());
    } else {
      std::printf("  %s: stale, cannot remove: %s\n", path.c_str(), std::strerror(errno));
    }
  }
  ::closedir(d);
  return found;
}

void list_rendezvous() {
  const std::string prefix = "osmp-" + std::to_string(::geteuid()) + "-";
  for (const auto& name : osmp::abstract_sockets(prefix)) {
    auto s = osmp::connect_abstract(name);
    if (!s.ok()) continue;
    auto who = osmp::peer_cred(*s);
    ::close(*s);
    if (who.ok() && who->uid == ::geteuid())
      std::printf("  @%s: a job starting, served by pid %d (goes with it)\n", name.c_str(), who->pid);
  }
}

void list_mappers(const std::vector<std::string>& dirs, const std::map<int, std::set<std::string>>& files) {
  for (const auto& [pid, set] : files) {
    int n = 0;
    for (const auto& f : set)
      for (const auto& d : dirs)
        if (f.rfind(d + "/#", 0) == 0 && f.find(" (deleted)") != std::string::npos) ++n;
    if (n) std::printf("  pid %d maps %d unnamed segment file(s) (running; freed when it exits)\n", pid, n);
  }
}

}  // namespace

namespace {
int run(int argc, char** argv) {
  bool dry = false;
  std::vector<std::string> dirs{osmp::shm_dir()};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dry-run") {
      dry = true;
    } else if (a == "--dir" && i + 1 < argc) {
      dirs.emplace_back(argv[++i]);
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--version") {
      osmp::build_info::print_version("osmp-clean");
      return 0;
    } else {
      std::fprintf(stderr, "osmp-clean: unknown argument '%s'\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (dirs.front() != "/dev/shm") dirs.emplace_back("/dev/shm");
  std::set<std::string> seen;
  auto files = open_files(my_processes());
  int names = 0;
  std::printf("osmp-clean: uid %u\n", static_cast<unsigned>(::geteuid()));
  for (const auto& d : dirs) {
    if (!seen.insert(d).second) continue;
    std::printf("names in %s:\n", d.c_str());
    names += clean_names(d, dry, files);
  }
  std::printf("rendezvous sockets:\n");
  list_rendezvous();
  std::printf("processes mapping segments:\n");
  list_mappers(std::vector<std::string>(seen.begin(), seen.end()), files);
  if (!names) std::printf("no osmp names found\n");
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  return osmp::guarded_main("osmp-clean", [&] { return run(argc, argv); });
}
