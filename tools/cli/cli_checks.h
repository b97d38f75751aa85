// CLI11 validators for utilsim's options (private to the tools module). Each
// checks the text of one value before CLI11 converts it and, when it is out
// of range, says so with the accepted range, e.g. "expected seconds >= 0, got
// '-1'"; CLI11 puts the option's name in front ("--horizon: ...") and
// utilsim exits with the usage code 2. The description (shown in --help
// after the type, e.g. "FLOAT:>=0") is the range in short.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim::cli::checks {

// A finite real number in a range; `what` names it ("seconds", "a
// fraction"; with neither bound it is the whole message, e.g. "a finite
// number of seconds"). Open ends exclude the bound. NaN and infinities are
// refused.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;
  std::string what = "a number";
};
CLI::Validator Real(const Range& r);
// Shorthands: >= lo, > lo, lo..hi (closed).
CLI::Validator AtLeast(double lo, const std::string& what);
CLI::Validator Above(double lo, const std::string& what);
CLI::Validator Within(double lo, double hi, const std::string& what);

// A plain decimal integer (digits only, no sign, no 0x/leading-zero octal:
// leading zeros are dropped before CLI11 converts it) in lo..hi, lo >= 0.
CLI::Validator Integer(int64_t lo, int64_t hi = std::numeric_limits<int64_t>::max());
// A seed: any integer 0..2^64-1 written as plain decimal digits.
CLI::Validator Seed();

// One of `names` ("expected a, b or c, got 'x'", with a did-you-mean).
CLI::Validator OneOf(std::vector<std::string> names);

// Whatever `parse` accepts; its error message (without a leading
// "--option: ", which CLI11 adds) is the validator's.
CLI::Validator Parsed(std::function<Status(const std::string&)> parse);

// A comma-separated list without empty entries ("a,,b", "a," refused);
// `what` names the entries ("policy names").
CLI::Validator ListOf(const std::string& what);

// "-1.5" style numbers for messages: %g.
std::string Num(double v);

}  // namespace utilsim::cli::checks
