// allreduce.cpp: the C++ interface in one page. Run: osmprun -n 4 ./allreduce_cpp
#include <osmp.hpp>

#include <cstdio>
#include <vector>

int main() {
  auto created = osmp::Team::create();  // collective; reads OSMP_* settings
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().to_string().c_str());
    return 1;
  }
  osmp::Team& team = *created;
  std::vector<float> v(1 << 20, 1.0f);
  osmp::Status st = team.allreduce(std::span(v), osmp::Op::sum);  // in place
  if (st.ok()) st = team.bcast(std::span(v), team.size() - 1);
  if (!st.ok()) {
    std::fprintf(stderr, "rank %d: %s\n", team.rank(), st.to_string().c_str());
    return 1;
  }
  if (team.rank() == 0) std::printf("%zu floats summed over %d ranks: v[0] = %g\n", v.size(), team.size(), v[0]);
  return 0;
}
