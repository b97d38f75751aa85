#include "suggest.h"

#include <algorithm>
#include <numeric>

namespace utilsim::cli {

size_t EditDistance(std::string_view a, std::string_view b) {
  // row[j] = distance between the first i chars of a and the first j of b.
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];  // row[i-1][j-1]
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];  // row[i-1][j]
      row[j] = std::min({up + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string Suggest(std::string_view word, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(1, word.size() / 3);
  std::string best;
  size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    if (c == word) return "";
    const size_t d = EditDistance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string SuggestPolicy(const std::string& name, const PolicyRegistry& reg) {
  std::vector<std::string> queues, placements, lone;
  for (const auto& p : reg.List()) {
    (p.kind == "queue" ? queues : placements).push_back(p.name);
    lone.push_back(p.name);
  }
  lone.push_back("as-recorded");
  // A part that is already right stays; a wrong one takes its suggestion.
  auto fix = [](const std::string& part, const std::vector<std::string>& known) {
    if (std::find(known.begin(), known.end(), part) != known.end()) return part;
    return Suggest(part, known);
  };
  const size_t plus = name.find('+');
  if (plus == std::string::npos) return Suggest(name, lone);
  const std::string q = fix(name.substr(0, plus), queues);
  // Placements and profiles both place (a profile carries its own queue,
  // but QUEUE+PROFILE is accepted by Make).
  const std::string p = fix(name.substr(plus + 1), placements);
  if (q.empty() || p.empty()) return "";
  const std::string fixed = q + "+" + p;
  return fixed == name ? "" : fixed;
}

std::string DidYouMean(const std::string& suggestion) {
  return suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)";
}

}  // namespace utilsim::cli
