#include "shm/cma.hpp"

#include <sys/uio.h>

#include <cerrno>
#include <cstring>

namespace osmp {

Status cma_read(pid_t pid, void* local, std::uint64_t remote, std::size_t n) {
  auto* dst = static_cast<char*>(local);
  std::size_t done = 0;
  while (done < n) {
    iovec l{dst + done, n - done};
    iovec r{reinterpret_cast<void*>(remote + done), n - done};
    ssize_t got = ::process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return Status(Errc::system, cat("process_vm_readv from pid ", pid, " failed: ",
                                      got < 0 ? std::strerror(errno) : "nothing read"));
    }
    done += static_cast<std::size_t>(got);
  }
  return {};
}

}  // namespace osmp
