#include "topology/machine_tree.hpp"

#include <algorithm>
#include <map>
#include <ranges>

namespace osmp {

std::vector<int> MachineTree::nodes_of_level(std::string_view level) const {
  std::vector<int> out;
  // Depth-first pre-order visits each level in logical order.
  std::vector<int> stack{0};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (nodes[n].level == level) out.push_back(n);
    for (int child : std::ranges::reverse_view(nodes[n].children)) stack.push_back(child);
  }
  return out;
}

std::vector<int> MachineTree::cores() const {
  auto c = nodes_of_level("Core");
  return c.empty() ? nodes_of_level("PU") : c;
}

std::vector<std::string> MachineTree::level_names() const {
  std::map<std::string, double> first_order;
  for (const auto& n : nodes) {
    auto [it, inserted] = first_order.emplace(n.level, n.order);
    if (!inserted) it->second = std::min(it->second, n.order);
  }
  std::vector<std::pair<double, std::string>> sorted;
  for (auto& [name, order] : first_order) sorted.emplace_back(order, name);
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> out;
  for (auto& s : sorted) out.push_back(s.second);
  return out;
}

int MachineTree::ancestor_of_level(int node, std::string_view level) const {
  for (int n = node; n >= 0; n = nodes[n].parent)
    if (nodes[n].level == level) return n;
  return -1;
}

}  // namespace osmp
