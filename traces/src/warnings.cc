#include "utilsim/traces/trace.h"

namespace utilsim::traces {

void Warnings::Add(const std::string& kind, const std::string& where_and_detail) {
  ++counts_[kind];
  auto& ex = examples_[kind];
  if (ex.size() < kExamplesPerKind) ex.push_back(where_and_detail);
}

int64_t Warnings::count(const std::string& kind) const {
  auto it = counts_.find(kind);
  return it == counts_.end() ? 0 : it->second;
}

int64_t Warnings::total() const {
  int64_t n = 0;
  for (const auto& [k, c] : counts_) n += c;
  return n;
}

std::vector<std::string> Warnings::Lines() const {
  std::vector<std::string> out;
  for (const auto& [kind, n] : counts_) {
    std::string line = std::to_string(n) + " x " + kind;
    auto it = examples_.find(kind);
    if (it != examples_.end() && !it->second.empty())
      line += " (first: " + it->second.front() + ")";
    out.push_back(line);
  }
  return out;
}

}  // namespace utilsim::traces
