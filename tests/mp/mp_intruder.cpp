// A hostile local user, for the security tests (label mp). Run as root; it
// becomes USER first, then for SECONDS tries everything another user can
// against the jobs of VICTIM (a uid), over and over:
//
//   plant   pre-create every name an osmp job ever used in the shm directory
//           (osmp-<victim>-<job>-job, -ctl, -g0..-g15), mode 0666, holding a
//           perfect job segment of its own; and watch the directory for the
//           victim's names, creating the ones they announce first
//   forge   listen on rendezvous names of the victim's jobs
//           (@osmp-<victim>-<job>-<anything>) and hand every caller that
//           forged segment
//   steal   connect to the victim's rendezvous sockets and ask for their job
//           segment
//   open    open every descriptor and mapping of every process of the
//           victim's (/proc/PID/fd/N, /proc/PID/map_files), as a thief of
//           live segments would
//   abort   raise the abort word of its forged segments, which would stop
//           any job that had joined them
//
//   mp_intruder USER VICTIM SECONDS [JOBHEX...]     (SIGTERM ends it early)
//
// Or it floods one job of the user that started it with connections to its
// rendezvous, COUNT of them within 4 s (as fast as the job's rank 0 takes
// them), and prints "flood: connected K":
//
//   mp_intruder USER flood COUNT JOBHEX
//
// Job ids come from the command line (a launcher's id can be predictable)
// and from the victim's rendezvous names it sees. Prints one line:
// "intruder: planted P forged F callers C joined J stolen S opened O tries T"
// where J (victims that claimed a line of a forged segment), S and O must be 0.
#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/random.hpp"
#include "shm/layout.hpp"
#include "shm/rendezvous.hpp"
#include "shm/segment.hpp"
#include "team/shm_bootstrap.hpp"

namespace {

struct Counts {
  int planted = 0, forged = 0, callers = 0, joined = 0, stolen = 0, opened = 0, tries = 0;
};

constexpr int kForgedRanks = 64;

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "%016" PRIx64, v);
  return b;
}

// A forged rendezvous: unlike osmp's own, it serves anyone who calls.
struct Forged {
  int sock = -1;
  std::string name;
};

Forged forge(const std::string& prefix) {
  Forged f;
  f.name = prefix + osmp::random_hex(16);
  f.sock = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, f.name.data(), f.name.size());
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + f.name.size());
  if (f.sock < 0 || ::bind(f.sock, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(f.sock, 16) != 0) {
    if (f.sock >= 0) ::close(f.sock);
    f.sock = -1;
  }
  return f;
}

int serve_anyone(const Forged& f, int fd, std::uint64_t job) {
  int n = 0;
  for (int c; (c = ::accept4(f.sock, nullptr, nullptr, SOCK_CLOEXEC)) >= 0; ::close(c)) {
    const osmp::JobGreeting hello{job, 64};
    (void)osmp::send_fd(c, fd, &hello, sizeof hello);  // whether they take it is their business
    ++n;
  }
  return n;
}

// One job the intruder goes after: its forged segment and forged rendezvous.
struct Target {
  osmp::ControlLayout layout;
  osmp::Segment forged;
  std::vector<Forged> listeners;
};

std::vector<std::string> g_planted;
volatile std::sig_atomic_t g_stop =
    0;  // SIGTERM: stop early, report as usual  // removed at the end: a test leaves nothing either

void plant(Target& t, std::uint64_t job, unsigned victim, Counts& c) {
  const std::string dir = osmp::shm_dir();
  const std::string base = "osmp-" + std::to_string(victim) + "-" + hex(job) + "-";
  std::vector<std::string> names = {"job", "ctl"};
  for (int g = 0; g < 16; ++g) names.push_back("g" + std::to_string(g));
  for (const auto& n : names) {
    std::string path = dir + "/" + base + n;
    std::string self = "/proc/self/fd/" + std::to_string(t.forged.fd());
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      ::chmod(path.c_str(), 0666);
      g_planted.push_back(path);
      ++c.planted;
    }
  }
}

Target& target(std::map<std::uint64_t, Target>& jobs, std::uint64_t job, unsigned victim, Counts& c) {
  auto it = jobs.find(job);
  if (it != jobs.end()) return it->second;
  Target& t = jobs[job];
  auto layout = osmp::job_layout(kForgedRanks);
  if (!layout.ok()) std::exit(2);
  t.layout = *layout;
  osmp::SegmentInfo info = osmp::job_info(job, kForgedRanks);
  auto seg = osmp::Segment::create(osmp::shm_dir(), t.layout.total, info);
  if (!seg.ok()) std::exit(2);
  t.forged = std::move(seg).value();
  plant(t, job, victim, c);
  return t;
}

// Names a victim's job shows in the shm directory give the names it will
// create next (team "...-<team>-ctl" before its groups "...-<team>-g<i>"):
// take those first.
void watch_names(unsigned victim, Target& any, Counts& c) {
  const std::string dir = osmp::shm_dir();
  const std::string prefix = "osmp-" + std::to_string(victim) + "-";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  std::vector<std::string> next;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.rfind(prefix, 0) != 0 || n.size() < 5 || n.compare(n.size() - 4, 4, "-ctl") != 0) continue;
    struct stat st {};
    if (::stat((dir + "/" + n).c_str(), &st) != 0 || st.st_uid == ::geteuid()) continue;
    for (int g = 0; g < 16; ++g) next.push_back(n.substr(0, n.size() - 3) + "g" + std::to_string(g));
  }
  ::closedir(d);
  const std::string self = "/proc/self/fd/" + std::to_string(any.forged.fd());
  for (const auto& n : next) {
    std::string path = dir + "/" + n;
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      g_planted.push_back(path);
      ++c.planted;
    }
  }
}

// The victim's rendezvous names: "osmp-<victim>-<job>-<random>".
std::set<std::uint64_t> seen_jobs(unsigned victim) {
  std::set<std::uint64_t> jobs;
  const std::string prefix = "osmp-" + std::to_string(victim) + "-";
  for (const auto& name : osmp::abstract_sockets(prefix)) {
    auto dash = name.find('-', prefix.size());
    if (dash != std::string::npos)
      jobs.insert(std::strtoull(name.substr(prefix.size(), dash - prefix.size()).c_str(), nullptr, 16));
  }
  return jobs;
}

void steal_from(unsigned victim, std::uint64_t job, const std::set<std::string>& mine, Counts& c) {
  const std::string prefix = "osmp-" + std::to_string(victim) + "-" + hex(job) + "-";
  for (const auto& name : osmp::abstract_sockets(prefix)) {
    if (mine.count(name)) continue;
    auto s = osmp::connect_abstract(name);
    ++c.tries;
    if (!s.ok()) continue;
    char buf[16];
    auto fd = osmp::recv_fd(*s, buf, sizeof buf, 50);
    if (fd.ok()) {
      ++c.stolen;
      ::close(*fd);
    }
    ::close(*s);
  }
}

// Every process of the victim: its descriptors and mapped files.
void open_live(unsigned victim, Counts& c) {
  DIR* proc = ::opendir("/proc");
  if (!proc) return;
  while (dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::string pdir = std::string("/proc/") + e->d_name;
    struct stat st {};
    if (::stat(pdir.c_str(), &st) != 0 || st.st_uid != victim) continue;
    for (const char* sub : {"/fd", "/map_files"}) {
      DIR* d = ::opendir((pdir + sub).c_str());
      ++c.tries;
      if (!d) continue;  // EACCES: as it should be
      while (dirent* f = ::readdir(d)) {
        if (f->d_name[0] == '.') continue;
        std::string path = pdir + sub + "/" + f->d_name;
        int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
        ++c.tries;
        if (fd >= 0) {
          ++c.opened;
          ::close(fd);
        }
      }
      ::closedir(d);
    }
  }
  ::closedir(proc);
}

}  // namespace

// Connects to the job's rendezvous (not its started marker, which never
// accepts) `count` times, closing each at once.
int flood(unsigned victim, int count, std::uint64_t job) {
  const std::string prefix = "osmp-" + std::to_string(victim) + "-" + hex(job) + "-";
  const std::string marker = prefix + "started-";
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  int connected = 0;
  while (connected < count && std::chrono::steady_clock::now() < end) {
    bool any = false;
    for (const auto& name : osmp::abstract_sockets(prefix)) {
      if (name.rfind(marker, 0) == 0) continue;
      if (auto s = osmp::connect_abstract(name); s.ok()) {
        ++connected;
        any = true;
        ::close(*s);
      }
    }
    if (!any) std::this_thread::sleep_for(std::chrono::microseconds(200));  // its backlog is full: rank 0 serves
  }
  std::printf("flood: connected %d\n", connected);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[2], "flood") == 0) {
    const auto user = static_cast<unsigned>(std::atoi(argv[1]));
    const unsigned victim = ::geteuid();  // who started it: the job's user
    if (::setgid(user) != 0 || ::setuid(user) != 0) {
      std::perror("mp_intruder: setuid");
      return 2;
    }
    return flood(victim, std::atoi(argv[3]), std::strtoull(argv[4], nullptr, 16));
  }
  if (argc < 4) {
    std::fprintf(stderr, "usage: mp_intruder USER VICTIM SECONDS [JOBHEX...]\n");
    return 2;
  }
  const auto user = static_cast<unsigned>(std::atoi(argv[1]));
  const auto victim = static_cast<unsigned>(std::atoi(argv[2]));
  const double seconds = std::atof(argv[3]);
  if (::setgid(user) != 0 || ::setuid(user) != 0) {
    std::perror("mp_intruder: setuid");
    return 2;
  }
  std::map<std::uint64_t, Target> jobs;
  Counts c;
  for (int i = 4; i < argc; ++i) target(jobs, std::strtoull(argv[i], nullptr, 16), victim, c);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::set<std::string> mine;
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  while (!g_stop && std::chrono::steady_clock::now() < end) {
    for (std::uint64_t job : seen_jobs(victim)) target(jobs, job, victim, c);
    for (auto& [job, t] : jobs) {
      if (t.listeners.size() < 4) {  // names the victim's rank 0 would use
        Forged f = forge("osmp-" + std::to_string(victim) + "-" + hex(job) + "-");
        if (f.sock >= 0) {
          mine.insert(f.name);
          t.listeners.push_back(f);
        }
      }
      for (const Forged& f : t.listeners) c.callers += serve_anyone(f, t.forged.fd(), job);
      steal_from(victim, job, mine, c);
      auto* abort = t.forged.at<osmp::ControlBlock>(t.layout.control);
      osmp::raise_abort(abort->abort, osmp::AbortCode::user, 0);
    }
    open_live(victim, c);
    watch_names(victim, target(jobs, 1, victim, c), c);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::set<int> joined;
  for (auto& [job, t] : jobs) {
    c.forged += static_cast<int>(t.listeners.size());
    for (int r = 0; r < kForgedRanks; ++r)
      if (t.forged.at<osmp::RankLine>(t.layout.rank_line(r))->pid.load() != 0) ++c.joined;
  }
  for (const auto& p : g_planted) ::unlink(p.c_str());
  std::printf("intruder: planted %d forged %d callers %d joined %d stolen %d opened %d tries %d\n", c.planted, c.forged,
              c.callers, c.joined, c.stolen, c.opened, c.tries);
  return 0;
}
