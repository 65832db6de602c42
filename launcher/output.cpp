#include "launcher/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "core/status.hpp"

namespace osmp {

TaggedOutput::TaggedOutput(int ranks) : streams_(static_cast<std::size_t>(2 * ranks)) {
  for (int r = 0; r < ranks; ++r) {
    streams_[static_cast<std::size_t>(2 * r)].rank = r;
    streams_[static_cast<std::size_t>(2 * r)].target = STDOUT_FILENO;
    streams_[static_cast<std::size_t>(2 * r + 1)].rank = r;
    streams_[static_cast<std::size_t>(2 * r + 1)].target = STDERR_FILENO;
  }
}

TaggedOutput::~TaggedOutput() {
  for (auto& s : streams_) {
    if (s.read_fd >= 0) ::close(s.read_fd);
    if (s.write_fd >= 0) ::close(s.write_fd);
  }
}

void TaggedOutput::prepare(int rank) {
  for (int k = 0; k < 2; ++k) {
    Stream& s = streams_[static_cast<std::size_t>(2 * rank + k)];
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) continue;
    s.read_fd = fds[0];
    s.write_fd = fds[1];
    ::fcntl(s.read_fd, F_SETFL, ::fcntl(s.read_fd, F_GETFL) | O_NONBLOCK);
  }
}

void TaggedOutput::child_after_fork(int rank) {
  for (int k = 0; k < 2; ++k) {
    Stream& s = streams_[static_cast<std::size_t>(2 * rank + k)];
    if (s.write_fd >= 0) ::dup2(s.write_fd, s.target);  // dup2 clears close-on-exec
  }
}

void TaggedOutput::parent_after_fork(int rank) {
  for (int k = 0; k < 2; ++k) {
    Stream& s = streams_[static_cast<std::size_t>(2 * rank + k)];
    if (s.write_fd >= 0) ::close(s.write_fd);
    s.write_fd = -1;
  }
}

void TaggedOutput::add_poll_fds(std::vector<pollfd>& fds) const {
  for (const auto& s : streams_)
    if (s.read_fd >= 0) fds.push_back({s.read_fd, POLLIN, 0});
}

void TaggedOutput::on_poll(const std::vector<pollfd>& fds) {
  for (const auto& p : fds) {
    if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
    for (auto& s : streams_) {
      if (s.read_fd == p.fd && !pump(s)) {
        ::close(s.read_fd);
        s.read_fd = -1;
      }
    }
  }
}

void TaggedOutput::emit(Stream& s, std::string_view line) {
  std::string out = cat("[", s.rank, "] ", line, "\n");
  for (std::size_t done = 0; done < out.size();) {
    ssize_t n = ::write(s.target, out.data() + done, out.size() - done);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
}

bool TaggedOutput::pump(Stream& s) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(s.read_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return true;  // EAGAIN: later
    if (n == 0) {
      if (!s.partial.empty()) emit(s, s.partial);
      s.partial.clear();
      return false;
    }
    s.partial.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = s.partial.find('\n', start)) != std::string::npos; start = nl + 1) {
      emit(s, std::string_view(s.partial).substr(start, nl - start));
    }
    s.partial.erase(0, start);
  }
}

void TaggedOutput::drain() {
  for (auto& s : streams_) {
    if (s.read_fd < 0) continue;
    ::fcntl(s.read_fd, F_SETFL, ::fcntl(s.read_fd, F_GETFL) & ~O_NONBLOCK);
    while (pump(s)) {}
    ::close(s.read_fd);
    s.read_fd = -1;
  }
}

}  // namespace osmp
