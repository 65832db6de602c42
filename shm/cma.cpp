#include "shm/cma.hpp"

#include <sys/uio.h>

#include <cerrno>
#include <cstring>

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

}  // namespace

Status cma_read(pid_t pid, void* local, std::uint64_t remote, std::size_t n) {
  return cma_copy(pid, static_cast<char*>(local), remote, n, "process_vm_readv",
                  [](pid_t p, const iovec* l, const iovec* r) { return ::process_vm_readv(p, l, 1, r, 1, 0); });
}

Status cma_write(pid_t pid, std::uint64_t remote, const void* local, std::size_t n) {
  return cma_copy(pid, const_cast<char*>(static_cast<const char*>(local)), remote, n, "process_vm_writev",
                  [](pid_t p, const iovec* l, const iovec* r) { return ::process_vm_writev(p, l, 1, r, 1, 0); });
}

}  // namespace osmp
