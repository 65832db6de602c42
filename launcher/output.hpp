// --tag-output: each rank's stdout and stderr go through pipes, and every
// line comes out prefixed with "[rank] ", whole lines only.
#pragma once

#include <poll.h>

#include <string>
#include <vector>

namespace osmp {

class TaggedOutput {
 public:
  explicit TaggedOutput(int ranks);
  TaggedOutput(const TaggedOutput&) = delete;
  TaggedOutput& operator=(const TaggedOutput&) = delete;
  ~TaggedOutput();

  void prepare(int rank);            // before fork: the rank's pipes
  void child_after_fork(int rank);   // in the rank: stdout/stderr into the pipes
  void parent_after_fork(int rank);  // in osmprun: close the write ends
  void add_poll_fds(std::vector<pollfd>& fds) const;
  void on_poll(const std::vector<pollfd>& fds);
  void drain();  // after the ranks exited: everything left

 private:
  struct Stream {
    int rank = 0;
    int read_fd = -1, write_fd = -1;
    int target = 1;  // our stdout or stderr
    std::string partial;
  };
  bool pump(Stream& s);  // false at EOF
  void emit(Stream& s, std::string_view line);
  std::vector<Stream> streams_;  // 2 per rank: out, err
};

}  // namespace osmp
