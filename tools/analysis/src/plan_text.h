// Text helpers shared by `plan` and `diagnose` (private to the tools module):
// an aligned plain-text table and locale-independent number formatting.
#pragma once

#include <string>
#include <vector>

namespace utilsim::text {

// "42.0 s" below a minute, "4.2 min" below an hour, "3.5 h" from an hour,
// "n/a" for NaN (the console tables' convention, docs/results.md).
std::string Duration(double s);
// printf("%.<digits>f") without the locale; "n/a" for NaN.
std::string Fixed(double v, int digits);
// Fixed(v, 1) + " %".
std::string Pct(double v);

// Columns separated by two spaces; the first column left-aligned, the others
// right-aligned unless `left` says so. Lines end with "\n", no trailing
// spaces; a dashed rule under the header.
class Table {
 public:
  explicit Table(std::vector<std::string> header, std::vector<bool> left = {});
  void Add(std::vector<std::string> row);
  std::string Render(const std::string& indent = "") const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> left_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace utilsim::text
