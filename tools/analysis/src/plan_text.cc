#include "plan_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace utilsim::text {

std::string Fixed(double v, int digits) {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  std::string s = buf;
  if (s == "-0" || s.rfind("-0.", 0) == 0) {
    // "-0.0" reads as a sign that is not there.
    if (s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  }
  return s;
}

std::string Pct(double v) { return std::isnan(v) ? "n/a" : Fixed(v, 1) + " %"; }

std::string Duration(double s) {
  if (std::isnan(s)) return "n/a";
  if (std::fabs(s) < 60) return Fixed(s, 1) + " s";
  if (std::fabs(s) < 3600) return Fixed(s / 60, 1) + " min";
  return Fixed(s / 3600, 1) + " h";
}

Table::Table(std::vector<std::string> header, std::vector<bool> left)
    : header_(std::move(header)), left_(std::move(left)) {
  left_.resize(header_.size(), false);
  if (!left_.empty()) left_[0] = true;
}

void Table::Add(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

std::string Table::Render(const std::string& indent) const {
  std::vector<size_t> w(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) {
    w[c] = header_[c].size();
    for (const auto& r : rows_) w[c] = std::max(w[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c) out += "  ";
      const std::string pad(w[c] - cells[c].size(), ' ');
      out += left_[c] ? cells[c] + pad : pad + cells[c];
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  std::vector<std::string> rule;
  for (size_t c = 0; c < header_.size(); ++c) rule.push_back(std::string(w[c], '-'));
  out += line(rule);
  for (const auto& r : rows_) out += line(r);
  return out;
}

}  // namespace utilsim::text
