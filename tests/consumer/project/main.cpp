// Builds against the installed public headers only: a team of one process
// over a Bootstrap of the program's own (no launcher), typed calls, settings
// by name.
#include <osmp.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstring>

namespace {

class Solo final : public osmp::Bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::uint64_t job_id() const override { return static_cast<std::uint64_t>(getpid()); }
  osmp::Status allgather(const void* in, std::size_t len, void* out) override {
    if (len) std::memcpy(out, in, len);
    return {};
  }
  osmp::Status broadcast(void*, std::size_t, int) override { return {}; }
};

}  // namespace

int main() {
  Solo solo;
  osmp::Options options;
  options.settings["OSMP_WAIT"] = "spin";
  auto team = osmp::Team::create(solo, options);
  if (!team.ok()) return std::fprintf(stderr, "%s\n", team.status().to_string().c_str()), 1;
  double in[3] = {1, 2, 3}, out[3] = {};
  osmp::Status st = team->allreduce(std::span<const double>(in), std::span<double>(out), osmp::Op::sum);
  if (!st.ok()) return std::fprintf(stderr, "%s\n", st.to_string().c_str()), 1;
  options.settings["OSMP_NO_SUCH_SETTING"] = "1";
  auto refused = osmp::Team::create(solo, options);
  if (refused.ok() || refused.status().code() != osmp::Errc::invalid_argument) return 1;
  std::printf("consumer: %d rank, allreduce %g %g %g, %d operations, %s refused\n", team->size(), out[0], out[1],
              out[2], osmp::kOpKindCount, osmp::to_string(osmp::OpKind::reduce_scatter_block));
  return team->finish().ok() ? 0 : 1;
}
