#include "shm/cma.hpp"

#include <sys/uio.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include "core/clock.hpp"

namespace osmp {
namespace {

// One direction of a copy with the peer, retried until all `n` bytes moved.
template <class Call>
Status cma_copy(pid_t pid, char* local, std::uint64_t remote, std::size_t n, const char* name, Call call) {
  std::size_t done = 0;
  while (done < n) {
    iovec l{local + done, n - done};
    iovec r{reinterpret_cast<void*>(remote + done), n - done};
    ssize_t moved = call(pid, &l, &r);
    if (moved < 0 && errno == EINTR) continue;
    if (moved <= 0) {
      return Status(Errc::system,
                    cat(name, " with pid ", pid, " failed: ", moved < 0 ? std::strerror(errno) : "nothing moved"));
    }
    done += static_cast<std::size_t>(moved);
  }
  return {};
}

double measure_slowdown() {
  std::vector<char> from(kCmaProbeBytes, 1), to(kCmaProbeBytes, 2);  // touched: no page faults in the timing
  const auto source = reinterpret_cast<std::uint64_t>(from.data());
  std::uint64_t copy_ns = std::numeric_limits<std::uint64_t>::max(), cma_ns = copy_ns;
  for (int i = 0; i < kCmaProbeTries; ++i) {  // interleaved: a busy moment slows both alike
    const std::uint64_t t0 = now_ns();
    std::memcpy(to.data(), from.data(), kCmaProbeBytes);
    asm volatile("" : : "r"(to.data()) : "memory");  // the copy happens here, not elided
    const std::uint64_t t1 = now_ns();
    if (!cma_read(::getpid(), to.data(), source, kCmaProbeBytes).ok()) return 0;
    const std::uint64_t t2 = now_ns();
    copy_ns = std::min(copy_ns, t1 - t0);
    cma_ns = std::min(cma_ns, t2 - t1);
  }
  return static_cast<double>(cma_ns) / static_cast<double>(std::max<std::uint64_t>(copy_ns, 1));
}

}  // namespace

double cma_slowdown() {
  static const double measured = measure_slowdown();  // once per process (thread-safe initialisation)
  return measured;
}

Status cma_read(pid_t pid, void* local, std::uint64_t remote, std::size_t n) {
  return cma_copy(pid, static_cast<char*>(local), remote, n, "process_vm_readv",
                  [](pid_t p, const iovec* l, const iovec* r) { return ::process_vm_readv(p, l, 1, r, 1, 0); });
}

Status cma_write(pid_t pid, std::uint64_t remote, const void* local, std::size_t n) {
  return cma_copy(pid, const_cast<char*>(static_cast<const char*>(local)), remote, n, "process_vm_writev",
                  [](pid_t p, const iovec* l, const iovec* r) { return ::process_vm_writev(p, l, 1, r, 1, 0); });
}

}  // namespace osmp
